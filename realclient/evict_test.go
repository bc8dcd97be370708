package realclient

import (
	"slices"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// maxmemory eviction acts on a real go-redis lock as on a model design
// (docs/evict.md): on a node of 2,000 bytes that another application
// fills with a 100-byte key every 20ms, allkeys-lru evicts the lock key
// of the holder, idle while it works without renewing (B's, at 2.28s),
// and the holder writes without a lease (stale-write), as the model
// designs do in scenario evict-token-counter; under noeviction the
// filler's and then the lock's writes are refused with OOM: the lock may
// become unobtainable, never unsafe.
func TestEvictionOnARealClient(t *testing.T) {
	cfg, err := newConfig([]Option{WithName("twin"), WithCaller(CallerTrusting)})
	if err != nil {
		t.Fatal(err)
	}
	run := func(p sim.EvictionPolicy) *model.Result {
		s := model.Spec{
			Design:   DesignPrefix + "twin",
			Options:  model.Options{TTL: 5 * time.Second},
			Workload: model.Workload{Cycles: 1, Work: 2 * time.Second, Start: 10 * time.Millisecond},
			Topology: model.Topology{MaxMemory: 2000, Policy: p, Fill: sim.FillConfig{Every: 20 * time.Millisecond, Size: 100}},
		}
		r, err := cfg.run(t, s.WithDefaults(), 1, newTwin(twinBugs{}))
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		return r
	}
	r := run(sim.AllKeysLRU)
	evicted := slices.ContainsFunc(r.History, func(e sim.Event) bool { return e.Kind == sim.KindEvict && e.Key == "lock" })
	if !evicted || !slices.Contains(invariant.Broken(r.Violations), invariant.StaleWrite) {
		t.Errorf("allkeys-lru: lock key evicted %v, broken %v: want the key evicted and stale-write broken\n%s",
			evicted, invariant.Broken(r.Violations), r.History.Text())
	}
	r = run(sim.NoEviction)
	for _, id := range []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite} {
		if slices.Contains(invariant.Broken(r.Violations), id) {
			t.Errorf("noeviction broke %s: a refused write must never make the lock unsafe\n%s", id, r.History.Text())
		}
	}
}

// The memory-pressure fault on a real client's node: a node without
// maxmemory takes another application's burst of one key 100ms after A
// acquired, capped at what it holds then. Under allkeys-lru A's idle lock
// key goes (it is older than the burst), B acquires while A works, and
// A writes without a lease; under noeviction nothing is evicted, the
// writes past the cap get OOM, and the lock stays safe (the burst fired:
// the node was over its limit).
func TestMemoryPressureOnARealClient(t *testing.T) {
	cfg, err := newConfig([]Option{WithName("twin"), WithCaller(CallerTrusting)})
	if err != nil {
		t.Fatal(err)
	}
	run := func(p sim.EvictionPolicy) *model.Result {
		s := model.Spec{
			Design:   DesignPrefix + "twin",
			Options:  model.Options{TTL: 5 * time.Second},
			Workload: model.Workload{Cycles: 1, Work: 2 * time.Second, Start: 10 * time.Millisecond},
			Faults: []sim.Fault{{Kind: sim.FaultMemoryPressure, Target: "r1", Size: 170, Policy: p,
				At: 100 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}},
		}
		r, err := cfg.run(t, s.WithDefaults(), 1, newTwin(twinBugs{}))
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		if !r.FaultOutcomes[0].Fired() {
			t.Fatalf("%s: the burst never fired (%s)\n%s", p, r.FaultOutcomes[0], r.History.Text())
		}
		return r
	}
	r := run(sim.AllKeysLRU)
	evicted := slices.ContainsFunc(r.History, func(e sim.Event) bool { return e.Kind == sim.KindEvict && e.Key == "lock" })
	broken := invariant.Broken(r.Violations)
	if !evicted || !slices.Contains(broken, invariant.MutualExclusion) || !slices.Contains(broken, invariant.StaleWrite) {
		t.Errorf("allkeys-lru: lock key evicted %v, broken %v: want the key evicted, mutual-exclusion and stale-write broken\n%s",
			evicted, broken, r.History.Text())
	}
	r = run(sim.NoEviction)
	for _, id := range []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite} {
		if slices.Contains(invariant.Broken(r.Violations), id) {
			t.Errorf("noeviction broke %s: a refused write must never make the lock unsafe\n%s", id, r.History.Text())
		}
	}
}
