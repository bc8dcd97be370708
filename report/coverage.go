package report

import (
	"fmt"
	"slices"
	"strings"

	"locksim/engine"
	"locksim/scenarios"
	"locksim/sim"
)

// kindCounts renders "pause 120, crash 80" over the asked kinds (and any
// other that fired).
func kindCounts(cv *engine.Coverage) string {
	var parts []string
	for _, k := range sim.FaultKinds {
		if cv.Kinds[k] > 0 || slices.Contains(cv.AskedKinds, k) {
			parts = append(parts, fmt.Sprintf("%s %d", k, cv.Kinds[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// placeCounts renders "acquire 12, critical 30" over the asked places.
func placeCounts(cv *engine.Coverage) string {
	var parts []string
	for _, p := range scenarios.Places {
		if cv.Places[p] > 0 || slices.Contains(cv.AskedPlaces, p) {
			parts = append(parts, fmt.Sprintf("%s %d", p, cv.Places[p]))
		}
	}
	return strings.Join(parts, ", ")
}

// coverageLine is the coverage on one line (a Markdown table cell): the totals,
// the kinds and the placements.
func coverageLine(cv *engine.Coverage, runs, failoverRuns int) string {
	if len(cv.AskedKinds) == 0 && cv.Drawn == 0 {
		return "none drawn (--faults none)"
	}
	s := fmt.Sprintf("%d of %d fired; runs with a failover %d, with a clock step %d, with a crash %d", cv.Fired, cv.Drawn, failoverRuns, cv.ClockStepRuns, cv.CrashRuns)
	if k := kindCounts(cv); k != "" {
		s += "; per kind: " + k
	}
	if p := placeCounts(cv); p != "" {
		s += "; pauses and crashes per placement: " + p
	}
	return s
}

// coverageText is the coverage block of SummaryText (and, in a code block, of
// SummaryMarkdown): one line of totals, the kinds, the placements, the
// warnings.
func coverageText(cv *engine.Coverage, runs, failoverRuns int, indent string) string {
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
	if s := kindCounts(cv); s != "" {
		b.WriteString(indent + "  fired per kind: " + s + "\n")
	}
	if s := placeCounts(cv); s != "" {
		b.WriteString(indent + "  pauses and crashes fired per placement: " + s + "\n")
	}
	for _, w := range cv.Warnings() {
		b.WriteString(indent + "warning: " + w + "\n")
	}
	return b.String()
}
