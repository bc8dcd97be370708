package realclient

import (
	"fmt"
	"slices"
	"strings"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
	vd "locksim/verdict"
)

// tally is what a Check's runs that broke nothing judged, kept in an
// engine.CheckResult so that a real client's check says "no verdict" for
// the same reasons and in the same words as locksim.Check and `locksim
// check` (engine.CheckResult.NoVerdict), and its "held" says what it
// rests on.
type tally struct {
	res engine.CheckResult
	// unseedable is a note on a library whose randomness changes timing
	// and cannot be seeded (unseedable), "" for none.
	unseedable string
}

// newTally starts the tally of a check that counts the invariants counted
// (all when empty) under cfg, draws faults of the kinds asked, and plans
// planned runs (0: a time budget decides).
func newTally(counted []invariant.ID, cfg invariant.Config, asked []sim.FaultKind, planned int) *tally {
	if len(counted) == 0 {
		counted = invariant.All
	}
	t := &tally{res: engine.CheckResult{Planned: planned, Counted: counted, Judged: map[invariant.ID]string{},
		Undecided: map[invariant.ID]int{}, Coverage: engine.Coverage{AskedKinds: asked}}}
	for _, id := range invariant.All {
		if ok, why := cfg.Judged(id); !ok {
			t.res.Judged[id] = why
		}
	}
	return t
}

// add tallies one finished run that broke no counted invariant.
func (t *tally) add(r *model.Result) {
	t.res.Runs++
	if r.Vacuous() {
		t.res.VacuousRuns++
	}
	for _, id := range undecided(r) {
		if slices.Contains(t.res.Counted, id) {
			t.res.Undecided[id]++
		}
	}
	if t.unseedable == "" {
		t.unseedable = unseedable(r.History)
	}
	t.res.Coverage.Drawn += len(r.Spec.Faults)
	t.res.Coverage.Fired += len(r.Spec.Faults) - len(r.Unfired())
}

// verdict is what the runs that broke nothing decided: held, or no
// verdict with the reason (engine.CheckResult.Verdict).
func (t *tally) verdict() vd.Verdict { return t.res.Verdict() }

// String is what the runs judged, for the log line after "held in".
func (t *tally) String() string {
	var parts []string
	for _, id := range invariant.All {
		if n := t.res.Undecided[id]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s: no verdict in %d of them", id, n))
		}
	}
	if n := t.res.VacuousRuns; n > 0 {
		parts = append(parts, fmt.Sprintf("%d acquired nothing", n))
	}
	if c := t.res.Coverage; c.Drawn > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d drawn faults took effect", c.Fired, c.Drawn))
	}
	if t.unseedable != "" {
		parts = append(parts, "note: "+t.unseedable)
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}
