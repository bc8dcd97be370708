package engine

import (
	"testing"

	"locksim/model"
	"locksim/sim"
)

// TestExhaustiveBlackholePlacesForeverPartitions: with Blackhole,
// exhaustive mode adds the partitions of a node that never heal (where a
// blackhole differs from a reset; menuAt.add marks every placed partition
// a blackhole); without it the menu is as before. For a model client a
// forever partition is silent either way (its requests are datagrams).
func TestExhaustiveBlackholePlacesForeverPartitions(t *testing.T) {
	base := model.Spec{Design: model.SetPxLua}
	plain := exhaustive(t, ExhaustiveConfig{Base: base, Kinds: []sim.FaultKind{sim.FaultPartition}})
	black := exhaustive(t, ExhaustiveConfig{Base: base, Kinds: []sim.FaultKind{sim.FaultPartition}, Blackhole: true})
	if black.Schedules[0] <= plain.Schedules[0] {
		t.Fatalf("schedules with Blackhole %d, without %d: want the forever partitions added", black.Schedules[0], plain.Schedules[0])
	}
	t.Logf("partitions placed: %d without, %d with blackholes", plain.Schedules[0], black.Schedules[0])
}
