package scenarios

import (
	"slices"
	"testing"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// TestEvictionPolicyDecidesTheBreak: evict-token-counter on fenced breaks
// what each policy's candidates allow. allkeys-lru evicts the idle
// counter (token 1 twice) and keeps the polled lock key; volatile-lru
// never evicts the counter (no TTL) but the lock key, its only candidate
// (two holders, no token twice); noeviction evicts nothing and refuses the
// writes with OOM: no safety invariant breaks. Without maxmemory the
// filler changes nothing.
func TestEvictionPolicyDecidesTheBreak(t *testing.T) {
	sc, err := Lookup("evict-token-counter")
	if err != nil {
		t.Fatal(err)
	}
	safety := []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate, invariant.TokenUnique}
	for _, tc := range []struct {
		pol       sim.EvictionPolicy
		maxmemory int64
		broken    []invariant.ID // among safety
	}{
		{sim.AllKeysLRU, 2000, []invariant.ID{invariant.TokenUnique}},
		{sim.VolatileLRU, 2000, []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate}},
		{sim.NoEviction, 2000, nil},
		{sim.AllKeysLRU, 0, nil},
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
	}
}
