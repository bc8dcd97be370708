package realclient

import (
	"strings"
	"testing"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// A check whose runs judged nothing fails instead of passing "held":
// no run, no acquisition in any run, no drawn fault that took effect, or
// no verdict on any counted invariant. What held says what it rests on.
func TestTallyEarnsItsHeld(t *testing.T) {
	acquired := sim.History{{Actor: "A", Kind: history.KindAcquired, Key: "lock", Value: "A:1"}}
	pause := []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1}}
	run := func(h sim.History, faults []sim.Fault, outcomes ...sim.FaultOutcome) *model.Result {
		return &model.Result{Spec: model.Spec{Faults: faults}, History: h, FaultOutcomes: outcomes}
	}
	cfg := invariant.Config{LivenessBound: 1}
	for _, tc := range []struct {
		name   string
		runs   []*model.Result
		noVerd string // what noVerdict says, "" for a verdict
		held   string // what String adds
	}{
		{"no run", nil, "no run was made", ""},
		{"nothing acquired", []*model.Result{run(nil, nil), run(nil, nil)}, "no client acquired the lock", ""},
		{"no fault fired", []*model.Result{run(acquired, pause, sim.FaultNoTarget)}, "no fault took effect in any run (1 fault drawn, of kinds pause)", ""},
		// The run that acquired wrote nothing: the write invariants had
		// no verdict in it, and are tallied apart.
		{"judged", []*model.Result{run(acquired, pause, sim.FaultFired), run(nil, nil)}, "",
			"; stale-write: no verdict in 1 of them; lost-update: no verdict in 1 of them; 1 acquired nothing; 1 of 1 drawn faults took effect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ta := newTally(nil, cfg, []sim.FaultKind{sim.FaultPause}, 0)
			for _, r := range tc.runs {
				ta.add(r)
			}
			if got := ta.verdict().Why; tc.noVerd == "" && got != "" || !strings.Contains(got, tc.noVerd) {
				t.Errorf("noVerdict = %q, want %q", got, tc.noVerd)
			}
			if tc.noVerd == "" && ta.String() != tc.held {
				t.Errorf("String = %q, want %q", ta.String(), tc.held)
			}
		})
	}
	// Every run without a liveness verdict, liveness the one counted: no
	// verdict; one run with one: held, and the other tallied apart.
	ta := newTally([]invariant.ID{invariant.Liveness}, cfg, nil, 2)
	ta.res.Runs, ta.res.Undecided[invariant.Liveness] = 2, 2
	if got := ta.verdict().Why; !strings.Contains(got, "each counted invariant (liveness) had no verdict") {
		t.Errorf("all undecided: noVerdict = %q", got)
	}
	ta.res.Undecided[invariant.Liveness] = 1
	if got := ta.verdict().Why; got != "" || !strings.Contains(ta.String(), "liveness: no verdict in 1 of them") {
		t.Errorf("one undecided: noVerdict = %q, String = %q", got, ta.String())
	}
}

// An invariant that cannot apply to a real client is refused, as
// locksim.Check refuses one: counting it would pass without judging.
func TestRefusesAnInvariantThatCannotApply(t *testing.T) {
	if _, err := newConfig([]Option{WithName("x"), WithInvariants(invariant.FIFO)}); err == nil || !strings.Contains(err.Error(), "cannot apply") {
		t.Errorf("fifo on a lock that promises no order: %v", err)
	}
	if _, err := newConfig([]Option{WithName("x"), WithInvariants(invariant.MutualExclusion, invariant.Liveness)}); err != nil {
		t.Errorf("mutual-exclusion and liveness: %v", err)
	}
}
