package realclient

import (
	"slices"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/scenarios"
	"locksim/sim"
)

// startEvent is the event each fault kind records when it takes effect.
var startEvent = map[sim.FaultKind]sim.Kind{
	sim.FaultPause: sim.KindPause, sim.FaultCrash: sim.KindCrash, sim.FaultPartition: sim.KindPartition,
	sim.FaultDelay: sim.KindNetDelay, sim.FaultDrop: sim.KindNetDrop, sim.FaultNodeCrash: sim.KindNodeCrash,
	sim.FaultClockJump: sim.KindClockJump, sim.FaultClockDrift: sim.KindClockDrift, sim.FaultEvict: sim.KindEvict,
}

// fired reports whether the run's history shows fault f taking effect.
func fired(h sim.History, f sim.Fault) bool {
	want, ok := startEvent[f.Kind]
	if !ok {
		return false
	}
	for _, e := range h {
		if e.Kind != want {
			continue
		}
		if f.Target == "" || e.Actor == f.Target || e.Actor == "fault" {
			return true
		}
	}
	return false
}

// Every placement the generator offers, and every fault kind a real
// client takes, fires in some generated run on a real client: a fault
// whose trigger never comes (a pause "inside release" waiting for a
// release-send no real client recorded) tests nothing.
func TestEveryPlacementFiresOnARealClient(t *testing.T) {
	base := model.Spec{Design: DesignPrefix + "twin", Options: model.Options{Extend: true},
		Workload: model.Workload{Cycles: 2, Work: 1500 * time.Millisecond}}
	const tries = 30
	try := func(name string, gen scenarios.Gen) {
		t.Helper()
		gen.MaxFaults, gen.Swarm, gen.NodeClocksOnly, gen.Wire = 1, true, true, true
		ran, hit := 0, 0
		for i := 0; i < tries && hit == 0; i++ {
			s := gen.Run(scenarios.Rand(uint64(i)), base)
			if len(s.Faults) != 1 {
				continue
			}
			r, err := runOnce(t, runConfig{name: "twin", setup: newTwin(twinBugs{}), spec: s.WithDefaults(), seed: uint64(i)})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ran++
			if fired(r.History, s.Faults[0]) {
				hit++
			}
		}
		if hit == 0 {
			t.Errorf("%s: none of %d generated runs fired its fault", name, ran)
		}
	}
	for _, place := range scenarios.Places {
		for _, k := range []sim.FaultKind{sim.FaultPause, sim.FaultCrash} {
			try(string(k)+" at "+string(place), scenarios.Gen{Kinds: []sim.FaultKind{k}, PauseAt: []scenarios.Place{place}})
		}
	}
	for _, k := range slices.Concat(scenarios.DefaultKinds, []sim.FaultKind{sim.FaultEvict}) {
		try("kind "+string(k), scenarios.Gen{Kinds: []sim.FaultKind{k}})
	}
}

// A real client's result says which of its faults never fired: a pause
// waiting for a third extension of a lock that is never extended.
func TestRealClientReportsUnfiredFaults(t *testing.T) {
	r := runSpec(t, "twin", model.Spec{
		Workload: model.Workload{Cycles: 1, Work: 50 * time.Millisecond},
		Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: time.Second,
			After: &sim.Trigger{Actor: "A", Kind: history.KindExtendSend, Nth: 3, Task: "watchdog"}}},
	}, newTwin(twinBugs{}))
	if len(r.Unfired()) != 1 {
		t.Errorf("unfired faults = %v, want the pause", r.Unfired())
	}
}
