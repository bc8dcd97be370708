package report

import (
	"slices"

	"locksim/model"
)

// Verdict words.
const (
	verdictHeld       = "held"
	verdictBroken     = "broken"
	verdictNotChecked = "not-checked"
)

// verdict is what a run says about one invariant.
type verdict struct {
	Invariant string `json:"invariant"`
	// Verdict is "held" (no violation found), "broken", or "not-checked"
	// (the checkers do not judge it for this spec).
	Verdict string `json:"verdict"`
	// Violations counts the violations of this invariant.
	Violations int `json:"violations"`
	// Why says why an invariant was not checked.
	Why string `json:"why,omitempty"`
}

// verdicts lists every invariant of model.Invariants, then any other
// invariant a violation names (sorted), each held, broken or not checked
// (per the spec's model.CheckConfig).
func verdicts(r *model.Result) []verdict {
	vs := r.Violations
	cfg := r.Spec.CheckConfigFor()
	skipped := map[string]string{}
	if cfg.LivenessBound <= 0 {
		skipped[model.InvLiveness] = "no liveness bound for this spec"
	}
	if !cfg.Reentrant {
		skipped[model.InvReentrancy] = "the design is not reentrant"
	}
	if len(r.Counted) > 0 {
		for _, id := range model.Invariants {
			if !slices.Contains(r.Counted, id) {
				skipped[id] = "not asked about"
			}
		}
	}
	ids := slices.Clone(model.Invariants)
	var extra []string
	for _, v := range vs {
		if !slices.Contains(ids, v.Invariant) && !slices.Contains(extra, v.Invariant) {
			extra = append(extra, v.Invariant)
		}
	}
	slices.Sort(extra)
	ids = append(ids, extra...)
	out := make([]verdict, 0, len(ids))
	for _, id := range ids {
		n := 0
		for _, v := range vs {
			if v.Invariant == id {
				n++
			}
		}
		vd := verdict{Invariant: id, Verdict: verdictHeld, Violations: n}
		if n > 0 {
			vd.Verdict = verdictBroken
		} else if why, ok := skipped[id]; ok {
			vd.Verdict, vd.Why = verdictNotChecked, why
		}
		out = append(out, vd)
	}
	return out
}
