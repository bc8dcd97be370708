package libs

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	. "locksim/realclient"
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

// TestDeterminism runs each lock library 50 times with the same seed under
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
	}{{"redislock", newRedislock, 1, InterleaveFixed, 0}, {"redsync", newRedsync(), 1, InterleaveFixed, 0}, {"redsync", newRedsync(), 5, InterleaveFixed, 0},
		{"redislock-sentinel", redislockSentinel, 1, InterleaveFixed, 0},
		// The seeded interleaving.
		{"redsync", newRedsync(), 5, InterleaveRandom, 0},
		// Generated runs in which Lock's context deadline falls on the
		// instant of a retry's command: before the governor's turns, which
		// came first was the Go scheduler's choice (two histories under
		// -race for the first).
		{"redislock", newRedislock, 1, InterleaveFixed, 15}, {"redsync", newRedsync(), 1, InterleaveFixed, 23}} {
		s := faultySpec(tc.name, tc.masters)
		if tc.gen != 0 {
			// Check's generator and starting spec (WithOptions
			// Extend, WithTopology).
			gen := scenarios.Gen{Kinds: slices.Clone(scenarios.DefaultKinds), Swarm: true, NodeClocksOnly: true, Wire: true}
			s = gen.Run(scenarios.Rand(tc.gen), model.Spec{Design: DesignPrefix + tc.name, Workload: model.Workload{Cycles: 2},
				Options: model.Options{Extend: true}, Topology: model.Topology{Masters: tc.masters}})
		}
		if tc.name == "redislock-sentinel" {
			// m1 has a replica; r1 crashes after A acquired, the sentinel
			// fails over to r2 and go-redis's FailoverClient follows.
			s.Topology = model.Topology{Masters: 1, Replicas: 1, Sentinel: sim.SentinelConfig{Enabled: true, DownAfter: time.Second}}
			s.Faults = append(s.Faults, sim.Fault{Kind: sim.FaultNodeCrash, Target: "r1", Dur: 3 * time.Second, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}})
			s = s.WithDefaults()
		}
		seed := uint64(42)
		if tc.gen != 0 {
			seed = tc.gen // the run the generator drew it with
		}
		hashes := map[string]int{}
		var first *model.Result
		for i := 0; i < runs; i++ {
			r, err := Run(t, locksim.Case{Spec: s, Seed: seed}, tc.setup, WithInterleave(tc.il))
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
		other, err := Run(t, locksim.Case{Spec: s, Seed: seed + 1}, tc.setup, WithInterleave(tc.il))
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

// TestLibraryVersionsPinned fails when a dependency the findings and the
// determinism test were established with changes version: re-run them
// (and look at the determinism test under -race and GOMAXPROCS=1) before
// updating the pins here.
func TestLibraryVersionsPinned(t *testing.T) {
	want := map[string]string{
		"github.com/redis/go-redis/v9":     "v9.23.0",
		"github.com/go-redsync/redsync/v4": "v4.18.1",
		"github.com/bsm/redislock":         "v0.9.4",
	}
	// Test binaries carry no module versions in their build info: read
	// the module's own requirements.
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && want[f[0]] != "" {
			got[f[0]] = f[1]
		}
	}
	for _, path := range slices.Sorted(maps.Keys(want)) {
		if got[path] != want[path] {
			t.Errorf("%s is %q, want %q: re-check the findings and determinism before moving the pin", path, got[path], want[path])
		}
	}
}
