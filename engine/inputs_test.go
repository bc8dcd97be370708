package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
	"locksim/verdict"
)

// canned is a Run seam that returns, for seed i, runs[i] with spec s.
func canned(runs []*model.Result) RunFunc {
	return func(s model.Spec, seed uint64) (*model.Result, []int, error) {
		r := *runs[seed]
		r.Spec, r.Seed = s, seed
		return &r, nil, nil
	}
}

// Runs given from outside (rapid's draws, the fuzzer's bytes) earn their
// held as a campaign's do: no run, no acquisition in any run, no drawn
// fault that took effect, or no verdict on any counted invariant is no
// verdict, in the engine's words; runs that judged are tallied (vacuous,
// coverage) into the same CheckResult, whose summary says what they
// rest on. Progress sees each run.
func TestInputsEarnTheirHeld(t *testing.T) {
	acquired := sim.History{{Actor: "A", Kind: history.KindAcquired, Key: "lock", Value: "A:1"}}
	pause := []sim.Fault{{Kind: sim.FaultPause, Target: "A", At: time.Second, Dur: time.Second}}
	run := func(h sim.History, outcomes ...sim.FaultOutcome) *model.Result {
		return &model.Result{History: h, FaultOutcomes: outcomes}
	}
	for _, tc := range []struct {
		name   string
		runs   []*model.Result
		faults [][]sim.Fault
		noVerd string // the verdict's reason, "" for held
	}{
		{"no run", nil, nil, "no run was made"},
		{"nothing acquired", []*model.Result{run(nil), run(nil)}, [][]sim.Fault{nil, nil}, "no client acquired the lock"},
		{"no fault fired", []*model.Result{run(acquired, sim.FaultNoTarget)}, [][]sim.Fault{pause}, "no fault took effect in any run (1 fault drawn, of kinds pause)"},
		{"judged", []*model.Result{run(acquired, sim.FaultFired), run(nil)}, [][]sim.Fault{pause, nil}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var progress []int
			c := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause}}},
				Run: canned(tc.runs), Progress: func(done, planned int) { progress = append(progress, done, planned) }}
			in, err := c.Inputs(len(tc.runs))
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.runs {
				s := c.Base
				s.Faults = tc.faults[i]
				if o, r, ok := in.Run(s, uint64(i)); !ok || r != nil || o.Error != "" {
					t.Fatalf("run %d: %+v, %v, %v", i, o, r, ok)
				}
			}
			res := in.Result()
			v := res.Verdict()
			if tc.noVerd == "" && v.Kind != verdict.Held || !strings.Contains(v.Why, tc.noVerd) {
				t.Errorf("verdict %v (%q), want %q", v.Kind, v.Why, tc.noVerd)
			}
			if len(progress) != 2*len(tc.runs) || len(progress) > 0 && progress[len(progress)-2] != len(tc.runs) {
				t.Errorf("progress saw %v", progress)
			}
			if tc.noVerd == "" && (res.VacuousRuns != 1 || res.Coverage.Drawn != 1 || res.Coverage.Fired != 1) {
				t.Errorf("tally: vacuous %d, faults %d of %d fired; want 1, 1 of 1", res.VacuousRuns, res.Coverage.Fired, res.Coverage.Drawn)
			}
		})
	}
}

// A broken input comes back with the seam's result, counting the check's
// invariants, shrinks as Check's first failure does, and a done context
// stops the runs (no run is made; the result is interrupted).
func TestInputsBrokenAndStopped(t *testing.T) {
	broken := &model.Result{History: sim.History{{Actor: "A", Kind: history.KindAcquired, Key: "lock"}},
		Violations: []invariant.Violation{{Invariant: invariant.MutualExclusion}}}
	ctx, cancel := context.WithCancel(context.Background())
	c := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause}},
		Invariants: []invariant.ID{invariant.MutualExclusion}}, Run: canned([]*model.Result{broken}), Context: ctx}
	in, err := c.Inputs(0)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Base
	s.Faults = []sim.Fault{{Kind: sim.FaultPause, Target: "A", At: time.Second, Dur: time.Second}, {Kind: sim.FaultPause, Target: "B", At: 2 * time.Second, Dur: time.Second}}
	o, r, ok := in.Run(s, 0)
	if !ok || r == nil || len(r.Failures()) != 1 || len(o.Broken) != 1 {
		t.Fatalf("broken input: %+v, %v, %v", o, r, ok)
	}
	if m := in.Shrink(s, 0, o); m == nil || len(m.Spec.Faults) != 0 {
		t.Errorf("shrunk: %+v; want no fault left (the canned run breaks whatever its faults)", m)
	}
	if v := in.Result().Verdict(); v.Kind != verdict.Broken {
		t.Errorf("verdict %v, want broken", v)
	}
	cancel()
	if _, _, ok := in.Run(s, 0); ok {
		t.Error("a run was made after the context was done")
	}
	if res := in.Result(); !res.Interrupted || res.Runs != 1 {
		t.Errorf("interrupted %v after %d runs; want interrupted after 1", res.Interrupted, res.Runs)
	}
}
