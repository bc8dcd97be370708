package engine

import (
	"testing"

	"locksim/sim"
)

// TestShrinkHalvesAMemoryPressureBurst: a failing schedule's burst is
// halved while the run still fails (here: while it is at least 200
// bytes), as durations are.
func TestShrinkHalvesAMemoryPressureBurst(t *testing.T) {
	f := sim.Fault{Kind: sim.FaultMemoryPressure, Target: "r1", Size: 6800, Policy: sim.AllKeysLRU}
	got := Shrink([]sim.Fault{f}, func(fs []sim.Fault) bool { return len(fs) == 1 && fs[0].Size >= 200 }, 100)
	if len(got) != 1 || got[0].Size != 212 {
		t.Errorf("shrunk to %v, want one burst of 212 bytes", got)
	}
}
