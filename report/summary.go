package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"locksim/engine"
	"locksim/model/invariant"
	"locksim/sim"
)

// SummaryText writes a check's summary for people: the runs, each
// invariant's tally (held, broken in N runs, not counted, not checked), and
// for a failure the first failing run, its configuration, its minimal
// schedule, its report and how to replay it (casePath: where the caller
// saved it, "" for nowhere).
func SummaryText(w io.Writer, r *engine.CheckResult, casePath string) error {
	var b strings.Builder
	runs := plural(r.Runs, "run")
	if r.Planned == 0 && r.Runs > 0 {
		runs += " in the time budget" // as many as it allowed: the same runs as that many --runs
	}
	fmt.Fprintf(&b, "design %s: %s, %d broke a counted invariant%s", r.Design, runs, r.BrokenRuns, pct(r.BrokenRuns, r.Runs))
	if r.FailoverRuns > 0 {
		fmt.Fprintf(&b, ", %d with a failover", r.FailoverRuns)
	}
	if r.Planned > 0 && r.Runs < r.Planned && r.FirstError == nil {
		fmt.Fprintf(&b, " (stopped at the time budget, %d planned)", r.Planned)
	}
	b.WriteString("\n")
	if nv := r.NoVerdict(); nv != "" {
		b.WriteString("no verdict: " + nv + "\n")
	} else if r.VacuousRuns > 0 {
		fmt.Fprintf(&b, "%s vacuous (no client acquired, so they judged nothing)\n", plural(r.VacuousRuns, "run"))
	}
	for _, id := range invariant.All {
		b.WriteString("  " + fmt.Sprintf("%-17s", id) + " " + tallyWord(r, id) + "\n")
	}
	if r.Runs > 0 {
		b.WriteString(coverageText(&r.Coverage, r.Runs, r.FailoverRuns, ""))
		if ic := r.Coverage.Interleave; ic.Active() {
			b.WriteString(ic.Bound() + "\n")
		}
	}
	if r.FirstError != nil {
		fmt.Fprintf(&b, "\nrun %d (seed %d) stopped with an error, so the check stopped: %s\n", r.FirstError.Index, r.FirstError.Seed, r.FirstError.Error)
	}
	if m := r.Minimal; m != nil {
		f := r.FirstFail
		fmt.Fprintf(&b, "\nfirst failure: run %d (seed %d); configuration: %s\n", f.Index, f.Seed, f.Config)
		fmt.Fprintf(&b, "minimal failing schedule (%s, seed %d):\n%s\n", plural(len(m.Spec.Faults), "fault"), m.Seed, FaultList(m.Spec.Faults))
		// The shrunk run is not one of the counted runs: it can break an
		// invariant the tallies above say held.
		var more []string
		for _, id := range invariant.Broken(m.Violations) {
			if r.Counts[id] == 0 && r.Uncounted[id] == 0 {
				more = append(more, string(id))
			}
		}
		if len(more) > 0 {
			fmt.Fprintf(&b, "(the minimal schedule's run also breaks %s, which none of the %s did: shrinking moved the faults)\n",
				strings.Join(more, ", "), plural(r.Runs, "run"))
		}
		if err := Text(&b, m, TextOptions{Meta: Meta{Design: r.Design, Seed: m.Seed}}); err != nil {
			return err
		}
		if casePath != "" {
			fmt.Fprintf(&b, "\nsaved to %s; replay with: locksim replay %s\n", casePath, casePath)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tallyWord says what the runs showed of one invariant, in the words of
// its verdict (engine.CheckResult.VerdictOf, which the JSON lists too).
func tallyWord(r *engine.CheckResult, id invariant.ID) string {
	v := r.VerdictOf(id)
	switch v.Verdict {
	case engine.VerdictNone:
		switch {
		case r.FirstError != nil:
			return "no verdict (the check stopped at run " + strconv.Itoa(r.FirstError.Index) + ")"
		case r.Interrupted:
			return "no verdict (" + v.Why + ")"
		case r.NoVerdict() != "":
			return "no verdict"
		}
		return "no verdict in all " + plural(r.Runs, "run") + " (" + engine.UndecidedWhy(v.Invariant) + ")"
	case engine.VerdictBroken:
		if v.Counted {
			return "broken in " + plural(v.BrokenRuns, "run") + pct(v.BrokenRuns, r.Runs)
		}
		return "broken (not counted) in " + plural(v.BrokenRuns, "run")
	case engine.VerdictNotChecked:
		return "not checked (" + v.Why + ")"
	}
	switch {
	case !v.Counted:
		return "held (not counted)"
	case v.UndecidedRuns > 0:
		return "held in " + plural(r.Runs-v.UndecidedRuns, "run") + "; no verdict in " + plural(v.UndecidedRuns, "run") + " (" + engine.UndecidedWhy(v.Invariant) + ")"
	}
	return "held"
}

// FaultList renders a schedule one fault per line, numbered.
func FaultList(fs []sim.Fault) string {
	if len(fs) == 0 {
		return "  (no faults)\n"
	}
	var b strings.Builder
	for i, f := range fs {
		b.WriteString("  " + strconv.Itoa(i+1) + ". " + f.String() + "\n")
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// pct renders " (12.5%)" of n out of total, "" when total is 0 or n is.
func pct(n, total int) string {
	if total == 0 || n == 0 {
		return ""
	}
	return " (" + strconv.FormatFloat(100*float64(n)/float64(total), 'f', 1, 64) + "%)"
}
