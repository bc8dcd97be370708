package realclient

import (
	"fmt"
	"slices"
	"strings"

	"locksim/model"
	"locksim/model/invariant"
)

// tally is what a Check's runs that broke nothing judged: so that "held"
// says what it rests on, and a check whose runs judged nothing fails
// instead of passing (as locksim.Check and `locksim check` refuse one).
type tally struct {
	counted []invariant.ID // the invariants that count; all when empty
	runs    int
	// vacuous counts runs in which no client acquired and nothing broke.
	vacuous int
	// undecided counts, per counted invariant, the runs that judged it
	// without a verdict (liveness whose faults never healed, or a run that
	// ended before the bound).
	undecided map[invariant.ID]int
	// drawn and fired count the faults the runs placed and those that
	// took effect.
	drawn, fired int
}

func newTally(counted []invariant.ID) *tally {
	return &tally{counted: counted, undecided: map[invariant.ID]int{}}
}

// add tallies one finished run that broke no counted invariant.
func (t *tally) add(r *model.Result) {
	t.runs++
	if r.Vacuous() {
		t.vacuous++
	}
	for _, id := range undecided(r) {
		if len(t.counted) == 0 || slices.Contains(t.counted, id) {
			t.undecided[id]++
		}
	}
	t.drawn += len(r.Spec.Faults)
	t.fired += len(r.Spec.Faults) - len(r.Unfired())
}

// noVerdict says why the runs judged nothing, or "" when they did.
func (t *tally) noVerdict(cfg invariant.Config) string {
	switch {
	case t.runs == 0:
		return "no run was made (the time budget ran out before the first, or -rapid.checks is 0)"
	case t.vacuous == t.runs:
		return fmt.Sprintf("in every run (%d) no client acquired the lock, so nothing was judged", t.runs)
	case t.drawn > 0 && t.fired == 0:
		return fmt.Sprintf("no fault took effect in any run (%d drawn), so the runs judged the lock without faults", t.drawn)
	}
	ids := t.counted
	if len(ids) == 0 {
		ids = invariant.All
	}
	for _, id := range ids {
		if ok, _ := cfg.Judged(id); ok && t.undecided[id] < t.runs {
			return ""
		}
	}
	return fmt.Sprintf("in every run (%d) each counted invariant (%s) had no verdict: a fault never healed, or the run ended before the liveness bound",
		t.runs, invariant.Names(ids))
}

// String is what the runs judged, for the log line after "held in".
func (t *tally) String() string {
	var parts []string
	for _, id := range invariant.All {
		if n := t.undecided[id]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s: no verdict in %d of them", id, n))
		}
	}
	if t.vacuous > 0 {
		parts = append(parts, fmt.Sprintf("%d acquired nothing", t.vacuous))
	}
	if t.drawn > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d drawn faults took effect", t.fired, t.drawn))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}
