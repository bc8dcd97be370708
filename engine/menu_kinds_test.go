package engine

import (
	"slices"
	"testing"
	"time"

	"locksim/model"
	"locksim/sim"
)

// TestEveryFaultKindHasAMenuEntry: every kind of sim.FaultKindTable has an
// entry in menuKinds that places it somewhere or says why it does not, and
// every default kind of exhaustive mode is placed. A kind added to sim but
// not to the menu fails here.
func TestEveryFaultKindHasAMenuEntry(t *testing.T) {
	entry := map[sim.FaultKind]menuKind{}
	for _, k := range menuKinds {
		if _, dup := entry[k.kind]; dup {
			t.Errorf("menuKinds has two entries for %s", k.kind)
		}
		entry[k.kind] = k
		if !slices.Contains(sim.FaultKinds, k.kind) {
			t.Errorf("menuKinds has an entry for %s, which sim.FaultKindTable lacks", k.kind)
		}
	}
	for _, k := range sim.FaultKinds {
		e, ok := entry[k]
		places := e.client != nil || e.call != nil || e.perClass != nil || e.peer != nil
		switch {
		case !ok:
			t.Errorf("fault kind %s has no entry in menuKinds (engine/menu.go)", k)
		case places && e.Skip != "":
			t.Errorf("fault kind %s is placed and skipped (%q)", k, e.Skip)
		case !places && e.Skip == "":
			t.Errorf("fault kind %s is never placed and its entry does not say why (Skip)", k)
		case !places && slices.Contains(ExhaustiveKinds, k):
			t.Errorf("ExhaustiveKinds names %s, which its menu entry never places", k)
		}
	}
}

// TestExhaustivePlacesNodeStall: asked for node-stall, exhaustive mode
// stalls the lock's node at every point for every duration class. With a
// section longer than the TTL, a stall past the call timeout starves the
// watchdog's renewal (it times out, the watchdog stops) while the holder
// trusts its lock until release: the key expires under a live holder,
// whose write is stale. With the default short section the holder has
// written before any stall can outlast its key, and nothing breaks.
func TestExhaustivePlacesNodeStall(t *testing.T) {
	for _, tc := range []struct {
		work   time.Duration
		broken bool
	}{{1500 * time.Millisecond, true}, {0, false}} {
		r := exhaustive(t, ExhaustiveConfig{Base: model.Spec{Design: model.Watchdog, Workload: model.Workload{Work: tc.work}},
			Kinds: []sim.FaultKind{sim.FaultNodeStall}})
		if r.Total() == 0 {
			t.Fatalf("work %v: no schedule placed a node-stall", tc.work)
		}
		if r.Failed() != tc.broken {
			t.Errorf("work %v: failed %v, want %v: %s", tc.work, r.Failed(), tc.broken, r.Guarantee())
		}
	}
}

// TestExhaustivePlacesMemoryPressure: asked for memory-pressure,
// exhaustive mode writes a burst on every node a point involves. On nodes
// without maxmemory (the fault caps them) under a policy that takes any
// key and one that takes keys with a TTL: the holder's lock key is
// evicted and set-px-lua breaks. On nodes with maxmemory under
// noeviction, a burst of maxmemory bytes: writes get OOM, the lock is
// unobtainable but never unsafe.
func TestExhaustivePlacesMemoryPressure(t *testing.T) {
	for _, tc := range []struct {
		topo   model.Topology
		broken bool
	}{{model.Topology{}, true}, {model.Topology{MaxMemory: 2000, Policy: sim.NoEviction}, false}} {
		r := exhaustive(t, ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua, Topology: tc.topo, Workload: model.Workload{Work: 500 * time.Millisecond}},
			Kinds: []sim.FaultKind{sim.FaultMemoryPressure}})
		if r.Total() == 0 {
			t.Fatalf("%+v: no schedule placed a memory-pressure", tc.topo)
		}
		if r.Failed() != tc.broken {
			t.Errorf("%+v: failed %v, want %v: %s", tc.topo, r.Failed(), tc.broken, r.Guarantee())
		}
	}
}
