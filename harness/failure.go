package harness

import (
	"fmt"
	"regexp"
	"strings"

	"locksim/model"
	"locksim/report"
	"locksim/scenarios"
)

// FailureReport is what a check logs for a failing run: the configuration,
// the schedule, the violations explained (report.ViolationsText: those
// that share a cause as one block), the timeline lanes and key events
// (report.TimelineText), and how to replay it.
func FailureReport(r *model.Result, casePath, testName string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "design %s, seed %d\nconfiguration: %s\nfault schedule:\n%s", DesignName(r.Spec), r.Seed, scenarios.Describe(r.Spec), report.FaultList(r.Spec.Faults))
	if len(r.Violations) > 0 {
		// Violations that share a cause (a paused A overlapped by each
		// of B's holds) are one block, not one paragraph each.
		b.WriteString("violations:\n")
		if err := report.ViolationsText(&b, r, 0); err != nil {
			b.WriteString("  (no explanations: " + err.Error() + ")\n")
		}
		if err := report.TimelineText(&b, r, 64); err != nil {
			b.WriteString("  (no timeline: " + err.Error() + ")\n")
		}
	}
	if NotSaved(casePath) {
		// No replay line names a file that is not a case.
		fmt.Fprintf(&b, "replay: no case file %s; go test -run '^%s$' runs the same seeds again\n", casePath, regexp.QuoteMeta(testName))
	} else if r.Spec.Custom != nil {
		fmt.Fprintf(&b, "replay: go test -run '^%s$' (it replays the saved case first),\n   or from Go: c, _ := locksim.LoadCase(%q); c.Replay(yourDesign)\n", regexp.QuoteMeta(testName), casePath)
	} else {
		fmt.Fprintf(&b, "replay: locksim replay %s\n   or: go test -run '^%s$' (it replays the saved case first)\n", casePath, regexp.QuoteMeta(testName))
	}
	return b.String()
}

// NotSaved reports whether Save's answer is the reason a case was not
// saved rather than its path.
func NotSaved(saved string) bool { return strings.HasPrefix(saved, "(not saved") }

// ReplayLine replaces a failure report's replay line with line (the
// adapter's own: a real client replays from Go with its setup).
func ReplayLine(text, line string) string {
	if i := strings.LastIndex(text, "replay: "); i >= 0 {
		text = text[:i]
	}
	return text + line
}

// DesignName is a spec's design as messages name it: a Go design's own
// name, else the catalogue ID.
func DesignName(s model.Spec) string {
	if s.Custom != nil {
		return s.Custom.Name()
	}
	return s.Design
}
