package report

import (
	"slices"
	"strings"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
)

// Verdict words.
const (
	verdictHeld       = "held"
	verdictBroken     = "broken"
	verdictNotChecked = "not-checked"
	verdictNone       = "no-verdict"
)

// VacuousWhy is the reason a run in which no client acquired has no
// verdicts (model.Result.Vacuous).
const VacuousWhy = "vacuous: no client acquired"

// NoFaultFiredWhy is the reason a run none of whose faults took effect
// has no verdicts (model.Result.NoFaultFired).
const NoFaultFiredWhy = "none of the run's faults took effect"

// verdict is what a run says about one invariant.
type verdict struct {
	Invariant string `json:"invariant"`
	// Verdict is "held" (no violation found), "broken", "not-checked" (the
	// checkers do not judge it for this run) or "no-verdict" (the run
	// stopped with an error, so nothing was judged).
	Verdict string `json:"verdict"`
	// Counted is false for an invariant the caller did not ask about
	// (--invariants): its violations are shown but do not fail the run.
	Counted bool `json:"counted"`
	// Violations counts the violations of this invariant.
	Violations int `json:"violations"`
	// Why says why an invariant was not checked or has no verdict, or,
	// for a held premature-loss, which holds it did not judge.
	Why string `json:"why,omitempty"`
}

// verdicts lists every invariant of invariant.All, then any other a
// violation names, each held, broken, not checked or without a verdict.
func verdicts(r *model.Result, ix *history.Index) []verdict {
	ids := slices.Clone(invariant.All)
	for _, v := range r.Violations {
		if !slices.Contains(ids, v.Invariant) {
			ids = append(ids, v.Invariant)
		}
	}
	slices.Sort(ids[len(invariant.All):])
	cfg := r.Spec.CheckConfig()
	livenessWhy, undecided := "", false
	if r.Err == nil {
		livenessWhy, undecided = invariant.LivenessUndecided(ix, cfg)
	}
	vacuous, unfired := r.Vacuous(), r.NoFaultFired()
	out := make([]verdict, 0, len(ids))
	for _, id := range ids {
		vd := verdict{Invariant: string(id), Verdict: verdictHeld, Counted: r.IsCounted(id)}
		for _, v := range r.Violations {
			if v.Invariant == id {
				vd.Violations++
			}
		}
		judged, why := cfg.Judged(id)
		switch {
		case r.Err != nil:
			vd.Verdict, vd.Why = verdictNone, "the run stopped with an error"
		case vd.Violations > 0:
			vd.Verdict = verdictBroken
		case !judged:
			vd.Verdict, vd.Why = verdictNotChecked, why
		case id == invariant.Liveness && undecided:
			vd.Verdict, vd.Why = verdictNone, livenessWhy
		case vacuous:
			vd.Verdict, vd.Why = verdictNone, VacuousWhy
		case unfired:
			vd.Verdict, vd.Why = verdictNone, NoFaultFiredWhy
		case id == invariant.PrematureLoss:
			// Held for the holds it judged; say which it did not.
			if ex := invariant.PrematureExcused(ix, cfg); len(ex) > 0 {
				vd.Why = "not judged where a fault ends a lease by itself: " + strings.Join(ex, "; ")
			}
		}
		out = append(out, vd)
	}
	return out
}
