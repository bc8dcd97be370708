package report

import (
	"slices"

	"locksim/model"
)

// Verdict words.
const (
	verdictHeld   = "held"
	verdictBroken = "broken"
)

// verdict is what a run says about one invariant.
type verdict struct {
	Invariant string `json:"invariant"`
	// Verdict is "held" (no violation found) or "broken".
	Verdict string `json:"verdict"`
	// Violations counts the violations of this invariant.
	Violations int `json:"violations"`
}

// verdicts lists every invariant of model.Invariants, then any other
// invariant a violation names (sorted), each held or broken.
func verdicts(vs []model.Violation) []verdict {
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
		}
		out = append(out, vd)
	}
	return out
}
