package realclient

import (
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/scenarios"
	"locksim/sim"
)

// faultySpec is a run with pause, partition and delay faults for lib on
// masters nodes, three cycles per client.
func faultySpec(name string, masters int) model.Spec {
	return model.Spec{
		Design:   DesignPrefix + name,
		Topology: model.Topology{Masters: masters},
		Workload: model.Workload{Cycles: 3, Work: 50 * time.Millisecond, Start: 5 * time.Millisecond},
		Faults: []sim.Fault{
			{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}},
			{Kind: sim.FaultPartition, A: []string{"B"}, B: []string{"r1"}, At: 100 * time.Millisecond, Dur: 2 * time.Second},
			{Kind: sim.FaultDelay, From: "A", To: "r1", Extra: 300 * time.Millisecond, At: 0, Dur: time.Second},
		},
	}.WithDefaults()
}

// TestDeterminism runs the harness's own locks 50 times with the same seed under
// pause, partition and delay faults and wants one history hash; it fails
// when a library or go-redis upgrade (or a change here) lets the Go
// scheduler, the wall clock or unseeded randomness into a run. Run it with
// -race and with GOMAXPROCS=1 too (make check does).
func TestDeterminism(t *testing.T) {
	runs := 50
	if testing.Short() {
		runs = 10
	}
	for _, tc := range []struct {
		name    string
		setup   Setup
		masters int
		il      Interleave
		gen     uint64 // a generated configuration and faults (Check's, WithRuns seed gen) instead of faultySpec
	}{
		// A library whose renewal goroutine and Unlock race for
		// go-redis's pool (the governor's turns), in both orders; the
		// lock libraries' rows are in realclient/libs.
		{"renew", newRenewLock(true), 1, InterleaveFixed, 0}, {"renew", newRenewLock(true), 1, InterleaveRandom, 0},
		{"twin", newTwin(twinBugs{}), 1, InterleaveFixed, 0}, {"twin", newTwin(twinBugs{}), 1, InterleaveRandom, 0}} {
		s := faultySpec(tc.name, tc.masters)
		if tc.gen != 0 {
			c, err := newConfig([]Option{WithName(tc.name), WithOptions(model.Options{Extend: true}), WithTopology(model.Topology{Masters: tc.masters})})
			if err != nil {
				t.Fatal(err)
			}
			s = c.Gen.Run(scenarios.Rand(tc.gen), c.Base)
		}
		seed := uint64(42)
		if tc.gen != 0 {
			seed = tc.gen // the run the generator drew it with
		}
		var section CriticalSection
		if tc.name == "renew" {
			section = noSection // Unlock at once: it races the renewal goroutine
		}
		hashes := map[string]int{}
		var first *model.Result
		for i := 0; i < runs; i++ {
			r, err := runOnce(t, runConfig{name: tc.name, setup: tc.setup, spec: s, seed: seed, interleave: tc.il, section: section})
			if err != nil {
				t.Fatal(err)
			}
			if r.Err != nil {
				t.Fatalf("%s on %d (%s order): %v", tc.name, tc.masters, tc.il, r.Err)
			}
			if first == nil {
				first = r
			} else if h := r.History.Hash(); h != first.History.Hash() && hashes[h] == 0 {
				t.Logf("%s on %d: run %d differs from run 0 first at:\n%s", tc.name, tc.masters, i, firstDiff(first.History, r.History))
			}
			hashes[r.History.Hash()]++
		}
		if len(hashes) != 1 {
			t.Errorf("%s on %d master(s), %s order: %d runs with seed %d gave %d distinct history hashes, want 1", tc.name, tc.masters, tc.il, runs, seed, len(hashes))
		}
		// The same test must tell seeds apart, or it would pass on a
		// run that ignores its seed. A generated run's seeds may differ
		// only in lock values, which are renamed (v1, v2, ...): only the
		// faulty spec's, whose network draws from the seed, must differ.
		if tc.gen != 0 {
			continue
		}
		other, err := runOnce(t, runConfig{name: tc.name, setup: tc.setup, spec: s, seed: seed + 1, interleave: tc.il, section: section})
		if err != nil {
			t.Fatal(err)
		}
		if other.History.Hash() == first.History.Hash() {
			t.Errorf("%s on %d master(s): seeds %d and %d gave the same history: the seed does not reach the run", tc.name, tc.masters, seed, seed+1)
		}
	}
}

// firstDiff renders the first differing event of two histories.
func firstDiff(a, b sim.History) string {
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i].Line() != b[i].Line() {
			return "  " + a[i].Line() + "\n  " + b[i].Line()
		}
	}
	return "  (one history is a prefix of the other)"
}
