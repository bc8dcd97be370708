package report

import (
	"strings"
	"testing"
	"time"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// TestSummarySaysWhatOnlyTheShrunkRunBroke: the shrunk run is not one of
// the counted runs, so when it breaks an invariant every counted run held,
// the summary says so instead of leaving "held" next to a report that
// shows it broken.
func TestSummarySaysWhatOnlyTheShrunkRunBroke(t *testing.T) {
	min, err := model.Run(model.Spec{Design: model.SetPxLua}, 1)
	if err != nil {
		t.Fatal(err)
	}
	min.Violations = []invariant.Violation{{Invariant: invariant.MutualExclusion}, {Invariant: invariant.StaleWrite}}
	r := &engine.CheckResult{Design: model.SetPxLua, Runs: 10, BrokenRuns: 1, Counted: invariant.All,
		Counts:    map[invariant.ID]int{invariant.StaleWrite: 1},
		Uncounted: map[invariant.ID]int{}, Judged: map[invariant.ID]string{},
		FirstFail: &engine.RunOutcome{}, Minimal: min}
	var b strings.Builder
	if err := SummaryText(&b, r, ""); err != nil {
		t.Fatal(err)
	}
	want := "(the minimal schedule's run also breaks mutual-exclusion, which none of the 10 runs did: shrinking moved the faults)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("the summary does not say %q:\n%s", want, b.String())
	}
	if strings.Contains(b.String(), "also breaks stale-write") {
		t.Errorf("stale-write was broken by a counted run:\n%s", b.String())
	}
}

// A check made only of vacuous runs (no client acquired) says it has no
// verdict and claims no invariant held (issue 27).
func TestSummaryOfVacuousRunsHasNoVerdict(t *testing.T) {
	c := engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: model.SetPxLua, Until: time.Nanosecond}, Gen: scenarios.Gen{Kinds: []sim.FaultKind{}}, Runs: 3, Seed: 1}, Workers: 1}
	res, err := engine.Check(c)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := SummaryText(&b, res, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no verdict: in every run") || strings.Contains(b.String(), "  mutual-exclusion  held") {
		t.Errorf("summary of vacuous runs:\n%s", b.String())
	}
}
