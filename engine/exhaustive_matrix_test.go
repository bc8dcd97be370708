package engine

import (
	"flag"
	"slices"
	"testing"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

var allPairs = flag.Bool("exhaustive.all", false, "TestExhaustiveAgreesWithTheMatrix: every design in every one-fault scenario (make long), not only each scenario's own design")

// quickBound is the largest exhaustive run make test compares.
const quickBound = 5000

// Exhaustive mode agrees with the matrix: for each catalogue scenario with
// one fault of a kind exhaustive mode places, every invariant the scenario
// breaks (over the matrix's seeds 1..3) is broken by some one-fault
// schedule of a depth-1 exhaustive run on the scenario's configuration
// (its faults removed). The scenarios it cannot be compared on say why:
// two faults need depth 2, clock drift is not placed. make long runs every
// design in every such scenario (-exhaustive.all); make test each
// scenario's own design, up to quickBound schedules.
func TestExhaustiveAgreesWithTheMatrix(t *testing.T) {
	shortKinds := map[sim.FaultKind]bool{} // -short: the kinds already compared
	for _, sc := range scenarios.All() {
		why := ""
		switch {
		case len(sc.Spec.Faults) == 0:
			why = "no faults"
		case len(sc.Spec.Faults) > 1:
			why = "two faults: a depth-2 break (TestDepthTwoFindsRedlockBreaks)"
		case !slices.Contains(ExhaustiveKinds, sc.Spec.Faults[0].Kind):
			why = string(sc.Spec.Faults[0].Kind) + " is not placed exhaustively"
		}
		if why == "" && testing.Short() && !*allPairs {
			if shortKinds[sc.Spec.Faults[0].Kind] {
				why = "-short compares one scenario per fault kind; make long compares every one"
			}
			shortKinds[sc.Spec.Faults[0].Kind] = true
		}
		if why != "" {
			t.Logf("%s: not compared: %s", sc.Name, why)
			continue
		}
		designs := []string{sc.Design}
		if *allPairs {
			designs = model.DesignIDs()
		}
		for _, d := range designs {
			spec, na, err := InScenario(sc, model.Spec{Design: d})
			if err != nil {
				t.Fatal(err)
			}
			if na != "" {
				continue
			}
			var want []invariant.ID
			for seed := uint64(1); seed <= 3; seed++ {
				r, err := model.Run(spec, seed)
				if err != nil {
					t.Fatal(err)
				}
				want = invariant.Sorted(append(want, invariant.Broken(r.Violations)...))
			}
			base := spec
			base.Faults = nil
			c := ExhaustiveConfig{Base: base}
			x, pre, err := newExplorer(c)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(x.depthOne()); n > quickBound && !*allPairs && !pre.Failed() {
				t.Logf("%s x %s: %d schedules: make long compares it", sc.Name, d, n)
				continue
			}
			res := exhaustive(t, c)
			var got []invariant.ID
			for id, n := range res.Counts {
				if n > 0 {
					got = append(got, id)
				}
			}
			got = invariant.Sorted(got)
			for _, id := range want {
				if !slices.Contains(got, id) {
					t.Errorf("%s x %s: the scenario (%s) breaks %s, no one-fault schedule of %d does (exhaustive broke %v)",
						sc.Name, d, sc.Spec.Faults[0], id, res.Total(), got)
				}
			}
			t.Logf("%s x %s: scenario %v, exhaustive %v in %d schedules", sc.Name, d, want, got, res.Total())
		}
	}
}

// The whole depth-2 space of Redlock on three masters under partitions
// and clock jumps (make long): besides the two jumps the quick test stops
// at, it holds the scenario's own counterexample, a partition that leaves
// A a bare majority and one jump of a node in it.
func TestDepthTwoWholeSpace(t *testing.T) {
	if !*allPairs {
		t.Skip("make long (-exhaustive.all)")
	}
	r := exhaustive(t, ExhaustiveConfig{Base: redlock3(), Depth: 2, Kinds: []sim.FaultKind{sim.FaultPartition, sim.FaultClockJump},
		Durations: []string{"ttl+"}, Invariants: []invariant.ID{invariant.MutualExclusion}})
	t.Log(r.Guarantee())
	found := false
	for _, b := range r.Breaks {
		kinds := map[sim.FaultKind]int{}
		for _, f := range b.Smallest.Faults {
			kinds[f.Kind]++
		}
		if kinds[sim.FaultPartition] == 1 && kinds[sim.FaultClockJump] == 1 {
			found = true
			t.Logf("%s (%d schedules): %s", b.Mechanism, b.Schedules, b.Smallest.Lines())
		}
	}
	if !found {
		t.Errorf("no break of one partition and one clock jump among %d", len(r.Breaks))
	}
}
