package scenarios

import (
	"slices"
	"strings"
	"testing"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// TestMemoryPressureDecidesTheBreak: memory-pressure-burst on fenced
// breaks what the node's policy allows once the burst takes it past its
// maxmemory. allkeys-lru evicts the idle counter (token 1 twice) and
// keeps the polled lock key; volatile-lru evicts the lock key, never the
// counter (two holders, no token twice); noeviction evicts nothing: the
// fault fires (OOM), no safety invariant breaks. With room for the burst
// (maxmemory 600) nothing is evicted and the fault is reported as never
// fired, not as tested. The token-unique explanation names the burst.
func TestMemoryPressureDecidesTheBreak(t *testing.T) {
	sc, err := Lookup("memory-pressure-burst")
	if err != nil {
		t.Fatal(err)
	}
	safety := []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate, invariant.TokenUnique}
	for _, tc := range []struct {
		pol       sim.EvictionPolicy
		maxmemory int64
		broken    []invariant.ID // among safety
		fired     bool
	}{
		{sim.AllKeysLRU, 450, []invariant.ID{invariant.TokenUnique}, true},
		{sim.VolatileLRU, 450, []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate}, true},
		{sim.NoEviction, 450, nil, true},
		{sim.AllKeysLRU, 600, nil, false},
	} {
		spec, err := sc.SpecFor(model.Fenced)
		if err != nil {
			t.Fatal(err)
		}
		spec.Topology.Policy, spec.Topology.MaxMemory = tc.pol, tc.maxmemory
		r, err := model.Run(spec, 1)
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		var got []invariant.ID
		for _, b := range invariant.Broken(r.Violations) {
			if slices.Contains(safety, b) && !slices.Contains(got, b) {
				got = append(got, b)
			}
		}
		slices.Sort(got)
		want := slices.Clone(tc.broken)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s, maxmemory %d: broke %v, want %v", tc.pol, tc.maxmemory, got, want)
		}
		if fired := r.FaultOutcomes[0].Fired(); fired != tc.fired {
			t.Errorf("%s, maxmemory %d: the burst fired %v (%s), want %v", tc.pol, tc.maxmemory, fired, r.FaultOutcomes[0], tc.fired)
		}
		for _, v := range r.Violations {
			if v.Invariant == invariant.TokenUnique && !strings.Contains(v.Explanation, "evicted lock:token at 0.579373s under memory pressure (allkeys-lru): another application wrote 340 bytes to r1 at 0.500000s") {
				t.Errorf("the token-unique explanation does not name the burst: %s", v.Explanation)
			}
		}
	}
}

// TestGeneratorDrawsMemoryPressure: named in Kinds, memory-pressure is
// drawn on Redis primaries: with a policy on nodes without maxmemory,
// without one on nodes that have their own (10%-150% of it); never for a
// design that deploys its own nodes. Every drawn run is valid.
func TestGeneratorDrawsMemoryPressure(t *testing.T) {
	g := Gen{Kinds: []sim.FaultKind{sim.FaultMemoryPressure}}
	for _, tc := range []struct {
		topo   model.Topology
		policy bool
	}{{model.Topology{}, true}, {model.Topology{MaxMemory: 2000, Policy: sim.AllKeysLFU}, false}} {
		drawn := 0
		for seed := range uint64(40) {
			s := g.Run(Rand(seed), model.Spec{Design: model.Fenced, Topology: tc.topo})
			for _, f := range s.Faults {
				drawn++
				if f.Kind != sim.FaultMemoryPressure || (f.Policy != "") != tc.policy || f.Size <= 0 {
					t.Errorf("seed %d: drew %v on %+v", seed, f, tc.topo)
				}
				if tc.topo.MaxMemory > 0 && (f.Size < 200 || f.Size > 3000) {
					t.Errorf("seed %d: size %d, want 10%%-150%% of 2000", seed, f.Size)
				}
			}
			if _, err := model.Run(s, seed); err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, Describe(s))
			}
		}
		if drawn == 0 {
			t.Errorf("%+v: nothing drawn", tc.topo)
		}
	}
}
