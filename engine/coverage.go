package engine

import (
	"fmt"
	"slices"
	"strings"

	"locksim/scenarios"
	"locksim/sim"
)

// Coverage is what a check's faults did: how many took effect, per kind
// and per placement, and how many runs saw a failover, a clock step or a
// crash. A fault that never fired (its trigger never happened, it was due
// after the run ended, its target was gone) tested nothing; a kind or
// placement the check draws from that never fired in any run is a warning
// (Warnings).
type Coverage struct {
	// Drawn and Fired count the faults of every run, and those of them
	// that took effect.
	Drawn, Fired int
	// Kinds counts fired faults per kind; Places fired pauses and client
	// crashes per placement (scenarios.PlaceOf).
	Kinds  map[sim.FaultKind]int
	Places map[scenarios.Place]int
	// ClockStepRuns counts runs where a clock jump fired; CrashRuns runs
	// where a client or node crash fired. (Failovers: CheckResult.FailoverRuns.)
	ClockStepRuns, CrashRuns int
	// AskedKinds and AskedPlaces are what the check draws from: each one
	// that never fired is a warning.
	AskedKinds  []sim.FaultKind
	AskedPlaces []scenarios.Place
	// Interleave is what the same-instant scheduler saw (interleave.go).
	Interleave InterleaveCoverage
}

func newCoverage(c CheckConfig) Coverage {
	base := c.Base.WithDefaults()
	return Coverage{Kinds: map[sim.FaultKind]int{}, Places: map[scenarios.Place]int{},
		AskedKinds: c.Gen.KindsDrawn(), AskedPlaces: c.Gen.PlacesFor(base), Interleave: newInterleaveCoverage(c.Base.Interleave)}
}

// add counts one run's faults; fired[i] tells whether faults[i] took
// effect.
func (cv *Coverage) add(faults []sim.Fault, unfired []int) {
	step, crash := false, false
	for i, f := range faults {
		cv.Drawn++
		if slices.Contains(unfired, i) {
			continue
		}
		cv.Fired++
		cv.Kinds[f.Kind]++
		if f.Kind == sim.FaultPause || f.Kind == sim.FaultCrash {
			if p := scenarios.PlaceOf(f); p != "" {
				cv.Places[p]++
			}
		}
		step = step || f.Kind == sim.FaultClockJump
		crash = crash || f.Kind == sim.FaultCrash || f.Kind == sim.FaultNodeCrash
	}
	if step {
		cv.ClockStepRuns++
	}
	if crash {
		cv.CrashRuns++
	}
}

// Warnings names each kind and placement the check draws from that never
// fired, in the order they are asked for.
func (cv *Coverage) Warnings() []string {
	var out []string
	for _, k := range cv.AskedKinds {
		if cv.Kinds[k] == 0 {
			out = append(out, "fault kind "+string(k)+" never fired")
		}
	}
	for _, p := range cv.AskedPlaces {
		if cv.Places[p] == 0 {
			out = append(out, "placement "+string(p)+" (pauses and client crashes) never fired")
		}
	}
	return out
}

// kindCounts renders "pause 120, crash 80" over the asked kinds (and any
// other that fired).
func (cv *Coverage) kindCounts() string {
	var parts []string
	for _, k := range sim.FaultKinds {
		if cv.Kinds[k] > 0 || slices.Contains(cv.AskedKinds, k) {
			parts = append(parts, fmt.Sprintf("%s %d", k, cv.Kinds[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// placeCounts renders "acquire 12, critical 30" over the asked places.
func (cv *Coverage) placeCounts() string {
	var parts []string
	for _, p := range scenarios.Places {
		if cv.Places[p] > 0 || slices.Contains(cv.AskedPlaces, p) {
			parts = append(parts, fmt.Sprintf("%s %d", p, cv.Places[p]))
		}
	}
	return strings.Join(parts, ", ")
}

// line is the coverage on one line (a Markdown table cell): the totals,
// the kinds and the placements.
func (cv *Coverage) line(runs, failoverRuns int) string {
	if len(cv.AskedKinds) == 0 && cv.Drawn == 0 {
		return "none drawn (--faults none)"
	}
	s := fmt.Sprintf("%d of %d fired; runs with a failover %d, with a clock step %d, with a crash %d", cv.Fired, cv.Drawn, failoverRuns, cv.ClockStepRuns, cv.CrashRuns)
	if k := cv.kindCounts(); k != "" {
		s += "; per kind: " + k
	}
	if p := cv.placeCounts(); p != "" {
		s += "; pauses and crashes per placement: " + p
	}
	return s
}

// text is the coverage block of SummaryText (and, in a code block, of
// SummaryMarkdown): one line of totals, the kinds, the placements, the
// warnings.
func (cv *Coverage) text(runs, failoverRuns int, indent string) string {
	var b strings.Builder
	if len(cv.AskedKinds) == 0 && cv.Drawn == 0 {
		b.WriteString(indent + "faults: none drawn (--faults none): the runs show whether the design works at all, without faults\n")
		return b.String()
	}
	never := ""
	if n := cv.Drawn - cv.Fired; n > 0 {
		never = fmt.Sprintf(" (%d never fired%s)", n, pct(n, cv.Drawn))
	}
	fmt.Fprintf(&b, "%sfaults: %d of %d fired%s; runs with a failover %d, with a clock step %d, with a crash %d (of %d)\n",
		indent, cv.Fired, cv.Drawn, never, failoverRuns, cv.ClockStepRuns, cv.CrashRuns, runs)
	if s := cv.kindCounts(); s != "" {
		b.WriteString(indent + "  fired per kind: " + s + "\n")
	}
	if s := cv.placeCounts(); s != "" {
		b.WriteString(indent + "  pauses and crashes fired per placement: " + s + "\n")
	}
	for _, w := range cv.Warnings() {
		b.WriteString(indent + "warning: " + w + "\n")
	}
	return b.String()
}
