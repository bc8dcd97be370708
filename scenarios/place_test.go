package scenarios

import (
	"math/rand/v2"
	"testing"

	"locksim/model"
	"locksim/sim"
)

// TestPlaceOfReadsBackEveryPlacement: each pause Gen places, on a model's
// calls or a real client's wire (Gen.Wire), reads back as the place it was
// put at, so coverage counts the placements that fired.
func TestPlaceOfReadsBackEveryPlacement(t *testing.T) {
	for _, wire := range []bool{false, true} {
		for _, p := range Places {
			g := Gen{Kinds: []sim.FaultKind{sim.FaultPause}, PauseAt: []Place{p}, Wire: wire, MaxFaults: 1}
			s := g.Run(rand.New(rand.NewPCG(1, 2)), model.Spec{Design: model.Watchdog})
			if len(s.Faults) != 1 {
				t.Fatalf("%s: %d faults", p, len(s.Faults))
			}
			if got := PlaceOf(s.Faults[0]); got != p {
				t.Errorf("wire %v: a pause placed at %s (%s) reads back as %q", wire, p, s.Faults[0], got)
			}
		}
	}
}
