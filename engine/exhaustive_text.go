package engine

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// ExhaustiveSchema identifies the JSON of an exhaustive check; see the
// package doc.
const ExhaustiveSchema = "locksim.exhaustive/v1"

// Guarantee states the result as a bounded guarantee: what was explored
// and what broke, within this configuration and these duration classes.
func (r *ExhaustiveResult) Guarantee() string {
	var b strings.Builder
	if len(r.Schedules) == 0 || r.Total() == 0 && r.Failed() {
		fmt.Fprintf(&b, "design %s breaks %s with no fault at all: nothing else was explored", r.Design, invariant.Names(r.Breaks[0].Broken))
		return b.String()
	}
	words := []string{"one-fault", "two-fault"}
	if r.Interrupted {
		fmt.Fprintf(&b, "PARTIAL: interrupted after %s schedules of design %s, so no guarantee", thousands(r.Total()), r.Design)
		if r.Failed() {
			fmt.Fprintf(&b, "; %s schedules broke a counted invariant so far", thousands(r.BrokenSchedules))
		}
		return b.String()
	}
	if nv := r.NoVerdict(); nv != "" {
		fmt.Fprintf(&b, "no guarantee for design %s: %s", r.Design, nv)
		return b.String()
	}
	if e := r.FirstError; e != nil {
		fmt.Fprintf(&b, "no guarantee: schedule %s of design %s stopped with an error, so exhaustive mode stopped after %s schedules: %s",
			thousands(e.Index), r.Design, thousands(r.Total()), e.Error)
		return b.String()
	}
	if r.HitBound {
		fmt.Fprintf(&b, "no break in the first %s schedules of design %s (the bound, --max-schedules), looking for the first one: "+
			"the rest was not explored, so not a guarantee", thousands(r.Total()), r.Design)
		return b.String()
	}
	if r.Stopped {
		fmt.Fprintf(&b, "stopped at the first break, after %s schedules of design %s: %s broke; a counterexample, not a guarantee",
			thousands(r.Total()), r.Design, invariant.Names(r.Breaks[0].Broken))
		return b.String()
	}
	if len(r.Kinds) == 0 { // reorders only (preemptionClause)
		fmt.Fprintf(&b, "explored design %s with no fault", r.Design)
	}
	for d, n := range r.Schedules {
		if len(r.Kinds) == 0 {
			break
		}
		if d > 0 {
			b.WriteString(" and ")
		} else {
			b.WriteString("explored all ")
		}
		fmt.Fprintf(&b, "%s %s schedules", thousands(n), words[d])
	}
	if len(r.Kinds) > 0 {
		fmt.Fprintf(&b, " of design %s (at %d points of the fault-free run, each of %s where it applies, with %s)",
			r.Design, r.Points, plural(len(r.Kinds), "fault kind"), classCount(len(r.Classes)))
	}
	if len(r.Schedules) > 1 {
		b.WriteString(", two-fault schedules extending only those one-fault schedules that broke nothing")
	}
	b.WriteString(r.preemptionClause())
	var parts []string
	for _, id := range r.Counted {
		if r.Judged[id] != "" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s broke %s", thousands(r.Counts[id]), id))
	}
	if len(parts) > 0 {
		b.WriteString(": " + strings.Join(parts, ", "))
	}
	if n := r.UnfiredSchedules; n > 0 {
		fmt.Fprintf(&b, "; %s whose fault never took effect (trigger never came, target gone) not counted toward it", plural(n, "schedule"))
	}
	return b.String()
}

// Limits says what the guarantee is relative to: the configuration, the
// seed's latencies and the duration classes.
func (r *ExhaustiveResult) Limits() string {
	var cs []string
	for _, c := range r.Classes {
		name := c.Name
		if len(c.Also) > 0 {
			name += " (= " + strings.Join(c.Also, ", ") + ")"
		}
		cs = append(cs, name+" "+sim.FormatDuration(c.Dur))
	}
	return fmt.Sprintf("within: %s; the latencies of seed %d; fault kinds %s; durations %s; "+
		"a client paused or crashed only at its own points, partitions of a client from one endpoint, a node from everyone "+
		"or a node with its client, clock jumps forward only",
		scenarios.Describe(r.Spec), r.Seed, cmp.Or(kindList(r.Kinds), "none"), strings.Join(cs, ", "))
}

// exhaustiveJSON is the JSON of an exhaustive check.
type exhaustiveJSON struct {
	Schema string `json:"schema"`
	// Locksim is the simulator that ran the schedules (ThisBuild).
	Locksim   Build           `json:"locksim"`
	Design    string          `json:"design"`
	Config    string          `json:"config"`
	Seed      uint64          `json:"seed"`
	Depth     int             `json:"depth"`
	Guarantee string          `json:"guarantee"`
	Kinds     []sim.FaultKind `json:"kinds"`
	Classes   []DurClass      `json:"duration_classes"`
	Events    int             `json:"events"`
	Points    int             `json:"points"`
	Schedules []int           `json:"schedules"`
	// Preemptions and Preempted: the most same-instant reorders a schedule
	// added, and the schedules run per reorder count.
	Preemptions int    `json:"preemptions,omitempty"`
	Preempted   []int  `json:"reorder_schedules,omitempty"`
	PerEvent    int    `json:"schedules_per_event"`
	Broken      int    `json:"broken_schedules"`
	Unfired     int    `json:"unfired_schedules,omitempty"`
	NoVerdict   string `json:"no_verdict,omitempty"`
	// FaultFreeOnly: the fault-free run broke a counted invariant, so it
	// is the one run judged (schedules [0], broken_schedules 1) and no
	// fault was placed.
	FaultFreeOnly bool            `json:"fault_free_only,omitempty"`
	Invariants    []invariantJSON `json:"invariants"`
	Breaks        []breakJSON     `json:"breaks"`
	Danger        []DangerPoint   `json:"danger"`
	Error         *Schedule       `json:"error,omitempty"`
	ErrorFault    []string        `json:"error_faults,omitempty"`
}

type invariantJSON struct {
	ID        invariant.ID `json:"id"`
	Verdict   string       `json:"verdict"`
	Schedules int          `json:"schedules,omitempty"`
	Why       string       `json:"why,omitempty"`
}

type breakJSON struct {
	Mechanism string         `json:"mechanism"`
	Classes   []string       `json:"classes"`
	Broken    []invariant.ID `json:"broken"`
	Schedules int            `json:"schedules"`
	Smallest  []string       `json:"smallest"`
	// Interleave is the smallest schedule's same-instant reorders
	// ("preempt:3.1"), if any.
	Interleave string `json:"interleave,omitempty"`
	Case       string `json:"case,omitempty"`
}

// ExhaustiveJSON writes the result as one JSON document (schema
// locksim.exhaustive/v1); cases maps a break's index to its saved case
// file, if any.
func ExhaustiveJSON(w io.Writer, r *ExhaustiveResult, cases map[int]string) error {
	j := exhaustiveJSON{Schema: ExhaustiveSchema, Locksim: ThisBuild(), Design: r.Design, Config: scenarios.Describe(r.Spec), Seed: r.Seed, Depth: r.Depth,
		Guarantee: r.Guarantee(), Kinds: r.Kinds, Classes: r.Classes, Events: r.Events, Points: r.Points, Schedules: r.Schedules,
		PerEvent: r.PerEvent, Broken: r.BrokenSchedules, Danger: r.Danger, Breaks: []breakJSON{},
		Unfired: r.UnfiredSchedules, NoVerdict: r.NoVerdict(), FaultFreeOnly: r.FaultFreeOnly(), Preemptions: r.Preemptions, Preempted: r.Preempted}
	for _, id := range invariant.All {
		v := invariantJSON{ID: id}
		counted := false
		for _, c := range r.Counted {
			counted = counted || c == id
		}
		switch {
		case (r.FirstError != nil || r.NoVerdict() != "") && r.Judged[id] == "":
			v.Verdict = "no-verdict"
		case counted && r.Counts[id] > 0:
			v.Verdict, v.Schedules = "broken", r.Counts[id]
		case !counted && r.Uncounted[id] > 0:
			v.Verdict, v.Schedules = "broken-not-counted", r.Uncounted[id]
		case r.Judged[id] != "":
			v.Verdict, v.Why = "not-checked", r.Judged[id]
		case !counted:
			v.Verdict = "held-not-counted"
		case r.Undecided[id] > 0 && r.Undecided[id] >= r.JudgedSchedules():
			v.Verdict = "no-verdict" // as the text's "no verdict in all N"
		default:
			v.Verdict = "held"
		}
		j.Invariants = append(j.Invariants, v)
	}
	for i, br := range r.Breaks {
		j.Breaks = append(j.Breaks, breakJSON{Mechanism: br.Mechanism, Classes: br.Classes, Broken: br.Broken, Schedules: br.Schedules,
			Smallest: br.Smallest.Lines(), Interleave: br.Smallest.Preempt, Case: cases[i]})
	}
	if e := r.FirstError; e != nil {
		j.Error, j.ErrorFault = e, e.Lines()
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}

// thousands renders n with thousands separators: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func classCount(n int) string {
	if n == 1 {
		return "1 duration class"
	}
	return strconv.Itoa(n) + " duration classes"
}
