package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"locksim/engine"
	"locksim/model/invariant"
)

// ExhaustiveText writes an exhaustive check for people: the guarantee and
// its limits, each invariant's tally, the danger map's picture (the
// fault-free run with each actor's danger row first, DangerText), the
// distinct ways the design broke grouped by mechanism (at most show of
// them, each with its smallest schedule and, from replay, its replay
// line: "" for none), then the danger map's points.
func ExhaustiveText(w io.Writer, r *engine.ExhaustiveResult, show int, replay func(i int) string) error {
	p := &printer{crowded: map[int]bool{}}
	p.line(r.Guarantee())
	p.line(r.Limits())
	if r.PerEvent > 0 && r.Schedules[0] > 0 && r.FirstError == nil {
		p.line(fmt.Sprintf("state dedup: %s one-fault schedules instead of %s (one per event), %s saved",
			thousands(r.Schedules[0]), thousands(r.PerEvent), pct0(r.PerEvent-r.Schedules[0], r.PerEvent)))
	}
	p.line("")
	for _, id := range invariant.All {
		word, _ := verdictWord(r, id)
		p.line(fmt.Sprintf("  %-17s %s", id, word))
	}
	if e := r.FirstError; e != nil {
		p.line("")
		p.line(fmt.Sprintf("schedule %d stopped with an error, so the check stopped: %s\n  %s", e.Index, e.Error, strings.Join(e.Lines(), "\n  ")))
	}
	p.line("")
	// A map of a stopped exploration would show danger where nothing ran,
	// and one where no fault was placed (--faults none with reorders)
	// would call every moment safe from faults that never ran.
	var d *Danger
	if !faultsPlaced(r) && r.FirstError == nil && !r.FaultFreeOnly() {
		p.line("No fault was placed (fault kinds: none), so there is no danger map: the verdicts above judge the fault-free run (and its reorders, if any), not faults.")
		p.line("")
	}
	if len(r.Danger) > 0 && r.FirstError == nil && faultsPlaced(r) {
		d = DangerMap(r)
		p.line("Danger map of " + r.Design + ": what one fault at each moment of its fault-free run breaks")
		if err := p.dangerPicture(d, 0); err != nil {
			return err
		}
	}
	var ways []DangerWay
	for i, br := range r.Breaks {
		if i == show {
			break
		}
		way := dangerWay(i, br)
		if replay != nil {
			way.Replay = replay(i)
		}
		ways = append(ways, way)
	}
	p.dangerWays(ways, len(r.Breaks)-len(ways))
	if d != nil {
		p.dangerPoints(d)
	}
	_, err := io.WriteString(w, strings.TrimSuffix(p.b.String(), "\n"))
	return err
}

// faultsPlaced reports whether any one-fault schedule ran at a point of
// the map: without one the map has nothing to show.
func faultsPlaced(r *engine.ExhaustiveResult) bool {
	for _, p := range r.Danger {
		if p.Schedules > 0 {
			return true
		}
	}
	return false
}

// DangerMap is the danger map of an exhaustive result (for DangerText
// and DangerHTML): the fault-free run with
// each point's worst harm.
func DangerMap(r *engine.ExhaustiveResult) *Danger {
	d := &Danger{Run: r.Baseline, Guarantee: r.Guarantee(), Limits: r.Limits(), Design: r.Design}
	if !faultsPlaced(r) {
		d.Limits += "; no fault was placed, so the map has no points"
	}
	if len(r.Counted) < len(invariant.All) {
		d.Limits += "; the map colours only the counted invariants (" + invariant.Names(r.Counted) + "); the others are tallied above"
	}
	for _, p := range r.Danger {
		if !faultsPlaced(r) {
			break
		}
		text := fmt.Sprintf("%d of %d faults here broke a counted invariant", p.Broken, p.Schedules)
		if p.Worst != "" {
			text += " (between them " + invariant.Names(p.Invariants) + "); the smallest that did the worst harm (" + p.Harm.String() + "): " + p.WorstFault
		}
		switch {
		case p.Chance != nil:
			text += fmt.Sprintf("; under the profile, about %s per acquisition (%s)", prob(*p.Chance), p.ChanceOf)
		case p.ChanceOf != "":
			text += "; under the profile: " + p.ChanceOf
		}
		d.Points = append(d.Points, DangerPoint{At: p.At, Actor: p.Actor, Harm: p.Harm, Label: p.Trigger + " (" + p.Phase + ")", Detail: text})
	}
	for _, id := range invariant.All {
		word, class := verdictWord(r, id)
		d.Verdicts = append(d.Verdicts, DangerVerdict{Invariant: string(id), Verdict: class, Text: word})
	}
	for i, b := range r.Breaks {
		if i == dangerWays {
			d.More = len(r.Breaks) - i
			break
		}
		d.Ways = append(d.Ways, dangerWay(i, b))
	}
	return d
}

// dangerWay is break i of an exhaustive result as the map lists it.
func dangerWay(i int, b *engine.Break) DangerWay {
	return DangerWay{N: i + 1, Mechanism: b.Mechanism, Broken: invariant.Names(b.Broken),
		Classes: strings.Join(b.Classes, ", "), Schedules: b.Schedules, Smallest: b.Smallest.Lines()}
}

// dangerWays is how many ways a danger map's page lists.
const dangerWays = 20

// verdictWord says what the schedules showed of one invariant, and the
// verdict's class for a page: held, broken or unchecked.
func verdictWord(r *engine.ExhaustiveResult, id invariant.ID) (word, class string) {
	counted := false
	for _, c := range r.Counted {
		counted = counted || c == id
	}
	switch {
	case r.FirstError != nil && r.Judged[id] == "":
		return "no verdict (exhaustive mode stopped at an error)", "unchecked"
	case r.NoVerdict() != "" && r.Judged[id] == "":
		return "no verdict", "unchecked"
	case counted && r.Counts[id] > 0 && r.FaultFreeOnly():
		return "broken in the fault-free run", "broken"
	case !counted && r.Uncounted[id] > 0 && r.FaultFreeOnly():
		return "broken (not counted) in the fault-free run", "broken"
	case counted && r.Counts[id] > 0:
		return "broken by " + plural(r.Counts[id], "schedule"), "broken"
	case !counted && r.Uncounted[id] > 0:
		return "broken (not counted) by " + plural(r.Uncounted[id], "schedule"), "broken"
	case r.Judged[id] != "":
		return "not checked (" + r.Judged[id] + ")", "unchecked"
	case !counted:
		return "held (not counted)", "held"
	}
	if r.FaultFreeOnly() {
		if r.Undecided[id] > 0 {
			return "no verdict in the fault-free run (" + engine.UndecidedWhy(id) + "; nothing else ran)", "unchecked"
		}
		return "held in the fault-free run (nothing else ran)", "held"
	}
	judged := r.JudgedSchedules()
	whose := ""
	if r.UnfiredSchedules > 0 {
		whose = " whose faults fired"
	}
	if n := r.Undecided[id]; n >= judged && n > 0 {
		return "no verdict in all " + thousands(judged) + whose + " (" + engine.UndecidedWhy(id) + ")", "unchecked"
	} else if n > 0 {
		return "held in " + thousands(judged-n) + whose + "; no verdict in " + thousands(n) + " (" + engine.UndecidedWhy(id) + ")", "held"
	}
	return "held in all " + thousands(judged) + whose, "held"
}

// pct0 renders n/total as a whole percentage.
func pct0(n, total int) string {
	if total == 0 {
		return "0%"
	}
	return strconv.Itoa(100*n/total) + "%"
}

// thousands renders n with thousands separators: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
