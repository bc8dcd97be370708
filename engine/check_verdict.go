package engine

import (
	"slices"
	"strconv"

	"locksim/model/invariant"
	"locksim/verdict"
)

// The verdict classes of an invariant over a check's runs, as the
// locksim.check/v1 summary's verdicts list and every report name them.
const (
	VerdictHeld       = "held"
	VerdictBroken     = "broken"
	VerdictNotChecked = "not-checked"
	VerdictNone       = "no-verdict"
)

// InvariantVerdict is what a check's runs showed of one invariant.
type InvariantVerdict struct {
	Invariant invariant.ID `json:"invariant"`
	// Verdict is VerdictHeld, VerdictBroken, VerdictNotChecked or
	// VerdictNone.
	Verdict string `json:"verdict"`
	// Counted: a break of it fails the check.
	Counted bool `json:"counted"`
	// BrokenRuns counts the runs that broke it; UndecidedRuns those that
	// judged it without a verdict (liveness: a fault never healed, or the
	// run ended before the bound). A "held" with undecided runs held in
	// the others only.
	BrokenRuns    int    `json:"broken_runs"`
	UndecidedRuns int    `json:"undecided_runs,omitempty"`
	Why           string `json:"why,omitempty"`
}

// Verdicts returns the verdict of every invariant, in report order.
func (r *CheckResult) Verdicts() []InvariantVerdict {
	var out []InvariantVerdict
	for _, id := range invariant.All {
		out = append(out, r.VerdictOf(id))
	}
	return out
}

// VerdictOf says what the runs showed of one invariant: broken when a run
// broke it; not checked when the design's runs cannot judge it; no
// verdict when the check stopped or judged nothing, or every run judged
// it without a verdict, or the check was interrupted before it broke;
// else held.
func (r *CheckResult) VerdictOf(id invariant.ID) InvariantVerdict {
	counted := slices.Contains(r.Counted, id)
	v := InvariantVerdict{Invariant: id, Counted: counted, UndecidedRuns: r.Undecided[id]}
	if counted {
		v.BrokenRuns = r.Counts[id]
	} else {
		v.BrokenRuns = r.Uncounted[id]
	}
	judged := r.Judged[id] == ""
	switch {
	case r.FirstError != nil && v.BrokenRuns == 0 && judged:
		v.Verdict, v.Why = VerdictNone, "the check stopped at run "+strconv.Itoa(r.FirstError.Index)
	case r.Interrupted && v.BrokenRuns == 0 && judged:
		// A break in the runs made is evidence; a hold in part of the
		// runs asked for is not.
		v.Verdict, v.Why = VerdictNone, "interrupted after "+plural(r.Runs, "run")
	case r.NoVerdict() != "" && judged:
		v.Verdict, v.Why = VerdictNone, r.NoVerdict()
	case v.BrokenRuns > 0:
		v.Verdict = VerdictBroken
	case !judged:
		v.Verdict, v.Why = VerdictNotChecked, r.Judged[id]
	case v.UndecidedRuns > 0 && v.UndecidedRuns >= r.Runs:
		v.Verdict, v.Why = VerdictNone, UndecidedWhy(id)+", in every run"
	default:
		v.Verdict = VerdictHeld
	}
	return v
}

// UndecidedWhy says why a run judged invariant id without a verdict
// (RunOutcome.Undecided).
func UndecidedWhy(id invariant.ID) string {
	switch id {
	case invariant.StaleWrite, invariant.LostUpdate:
		return "the run wrote nothing"
	case invariant.PrematureLoss:
		return "no holder was promised a validity"
	}
	return "a fault never healed, or the run ended before the liveness bound"
}

// Verdict is what the check decided (verdict.Decide over the facts it
// states of itself): interrupted, a run that stopped, nothing judged
// (NoVerdict), broken, or held. Callers switch on its Kind; its exit code
// is the CLI's.
func (r *CheckResult) Verdict() verdict.Verdict {
	var f verdict.Facts
	if r.Interrupted {
		f.Interrupted = "interrupted after " + plural(r.Runs, "run") + ": a partial tally"
	}
	if e := r.FirstError; e != nil {
		f.Stopped = "run " + strconv.Itoa(e.Index) + " (seed " + strconv.FormatUint(e.Seed, 10) + ") stopped: " + e.Error
	}
	f.Broken = r.Failed()
	f.Nothing = r.NoVerdict()
	return verdict.Decide(f)
}

// Verdict is what the exhaustive check decided (verdict.Decide):
// interrupted, a schedule that stopped, nothing judged (NoVerdict),
// broken, or held (the bounded guarantee).
func (r *ExhaustiveResult) Verdict() verdict.Verdict {
	var f verdict.Facts
	if r.Interrupted {
		f.Interrupted = "interrupted after " + plural(r.Total(), "schedule") + ": a partial tally"
	}
	if e := r.FirstError; e != nil {
		f.Stopped = "schedule " + strconv.Itoa(e.Index) + " stopped: " + e.Error
	}
	f.Broken = r.Failed()
	f.Nothing = r.NoVerdict()
	return verdict.Decide(f)
}
