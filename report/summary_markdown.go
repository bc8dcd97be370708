package report

import (
	"fmt"
	"io"
	"strings"

	"locksim/engine"
	"locksim/model/invariant"
)

// SummaryMarkdown writes a check's summary for a pull request comment or a
// CI job summary (GitHub's $GITHUB_STEP_SUMMARY): a heading that says what
// broke, one table (the design, the runs, the runs that broke and their
// share, each invariant's tally), the minimal failing schedule as a short
// list and the line that replays it (casePath: where the caller saved the
// case, "" for nowhere). No timeline: the text summary and the HTML report
// have it. Like SummaryText it holds no wall-clock time, so the same check
// writes the same bytes.
func SummaryMarkdown(w io.Writer, r *engine.CheckResult, casePath string) error {
	var b strings.Builder
	design := "`" + mdCode(r.Design) + "`"
	var broke []invariant.ID
	for _, id := range invariant.All {
		if r.Counts[id] > 0 {
			broke = append(broke, id)
		}
	}
	nv := r.NoVerdict()
	switch {
	case r.FirstError != nil:
		fmt.Fprintf(&b, "### locksim check: %s stopped at a run that ended with an error\n\n", design)
	case nv != "":
		fmt.Fprintf(&b, "### locksim check: %s has no verdict: %s\n\n", design, mdCell(nv))
	case len(broke) > 0:
		fmt.Fprintf(&b, "### locksim check: %s broke %s\n\n", design, strings.ReplaceAll(invariant.Names(broke), ",", ", "))
	case len(r.Counted) < len(invariant.All):
		fmt.Fprintf(&b, "### locksim check: %s held in %s (counting %s)\n\n", design, plural(r.Runs, "run"), strings.ReplaceAll(invariant.Names(r.Counted), ",", ", "))
	default:
		fmt.Fprintf(&b, "### locksim check: %s held in %s\n\n", design, plural(r.Runs, "run"))
	}
	runs := fmt.Sprint(r.Runs)
	switch {
	case r.Planned == 0 && r.Runs > 0:
		runs += " (the time budget's)"
	case r.Runs < r.Planned && r.FirstError == nil:
		runs += fmt.Sprintf(" of %d planned (stopped at the time budget)", r.Planned)
	}
	broken := fmt.Sprint(r.BrokenRuns) + pct(r.BrokenRuns, r.Runs)
	if r.BrokenRuns > 0 {
		broken = "**" + broken + "**"
	}
	b.WriteString("| design | " + design + " |\n|:--|:--|\n")
	b.WriteString("| runs | " + runs + " |\n")
	b.WriteString("| broken runs | " + broken + " |\n")
	if r.FailoverRuns > 0 {
		fmt.Fprintf(&b, "| runs with a failover | %d |\n", r.FailoverRuns)
	}
	if r.VacuousRuns > 0 {
		fmt.Fprintf(&b, "| vacuous runs (no client acquired) | %d |\n", r.VacuousRuns)
	}
	for _, id := range invariant.All {
		word := mdCell(tallyWord(r, id))
		if r.Counts[id] > 0 && isCounted(r, id) {
			word = "**" + word + "**"
		}
		b.WriteString("| " + string(id) + " | " + word + " |\n")
	}
	if e := r.FirstError; e != nil {
		fmt.Fprintf(&b, "| stopped | run %d (seed %d): %s |\n", e.Index, e.Seed, mdCell(e.Error))
	}
	if r.Runs > 0 {
		b.WriteString("| faults | " + mdCell(coverageLine(&r.Coverage, r.Runs, r.FailoverRuns)) + " |\n")
		if ws := r.Coverage.Warnings(); len(ws) > 0 {
			b.WriteString("| **warning** | " + mdCell(strings.Join(ws, "; ")) + " |\n")
		}
		if ic := r.Coverage.Interleave; ic.Active() {
			b.WriteString("| interleave | " + mdCell(ic.Bound()) + " |\n")
		}
	}
	if m := r.Minimal; m != nil {
		f := r.FirstFail
		fmt.Fprintf(&b, "\n**Minimal failing schedule** (%s, seed %d), shrunk from run %d:\n\n",
			plural(len(m.Spec.Faults), "fault"), m.Seed, f.Index)
		if len(m.Spec.Faults) == 0 {
			b.WriteString("- (no faults)\n")
		}
		for i, flt := range m.Spec.Faults {
			fmt.Fprintf(&b, "%d. `%s`\n", i+1, mdCode(flt.String()))
		}
		fmt.Fprintf(&b, "\nConfiguration: `%s`\n", mdCode(f.Config))
		switch {
		case casePath == "":
			b.WriteString("\nThe case was not saved.\n")
		case m.Spec.Custom != nil:
			fmt.Fprintf(&b, "\n**Replay** from Go (a Go design does not replay from the command line): `c, _ := locksim.LoadCase(%q); c.Replay(yourDesign)`\n", casePath)
		default:
			fmt.Fprintf(&b, "\n**Replay:** `locksim replay %s` (add `--format html -o report.html` for the timeline)\n", mdCode(casePath))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func isCounted(r *engine.CheckResult, id invariant.ID) bool {
	for _, c := range r.Counted {
		if c == id {
			return true
		}
	}
	return false
}

// mdCell makes text safe inside a table cell: one line, no column breaks.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// mdCode makes text safe inside a code span on one line (and in a table).
func mdCode(s string) string {
	return strings.ReplaceAll(mdCell(s), "`", "'")
}
