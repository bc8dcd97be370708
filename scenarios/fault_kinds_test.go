package scenarios

import (
	"math/rand/v2"
	"slices"
	"testing"

	"locksim/model"
	"locksim/sim"
)

// TestEveryFaultKindIsDrawn: every kind of sim.FaultKindTable has a draw in
// the generator, a generator asked for that kind alone draws it, and each
// drawn fault formats to a line that parses back to it and that the
// simulator accepts. A kind added to sim but not to faultDraws fails here.
func TestEveryFaultKindIsDrawn(t *testing.T) {
	base := model.Spec{Design: model.Watchdog}
	base.Topology.Masters, base.Topology.Replicas = 1, 1
	base.Topology.Sentinel.Enabled = true
	cluster := model.Spec{Design: model.Watchdog}
	cluster.Topology.Cluster, cluster.Topology.Replicas = true, 1
	for _, k := range sim.FaultKinds {
		base := base
		if k == sim.FaultSlotMigrate || k == sim.FaultClusterFailover {
			base = cluster // drawn on clusters only
		}
		if _, ok := faultDraws[k]; !ok {
			t.Errorf("fault kind %s has no draw in faultDraws (scenarios/generate_faults.go)", k)
			continue
		}
		drawn := false
		for seed := range uint64(20) {
			s := Gen{Kinds: []sim.FaultKind{k}, MaxFaults: 2}.Run(rand.New(rand.NewPCG(seed, 7)), base)
			for _, f := range s.Faults {
				drawn = drawn || f.Kind == k
				back, err := ParseFault(f.String())
				if err != nil {
					t.Fatalf("%s: drawn fault %q does not parse: %v", k, f, err)
				}
				if back.String() != f.String() {
					t.Errorf("%s: %q reads back as %q", k, f, back)
				}
			}
			if _, err := s.Config(); err != nil {
				t.Fatalf("%s (seed %d): the simulator refuses the drawn faults %v: %v", k, seed, s.Faults, err)
			}
		}
		if !drawn {
			t.Errorf("a generator asked for %s alone never drew one", k)
		}
	}
	for k := range faultDraws {
		if !slices.Contains(sim.FaultKinds, k) {
			t.Errorf("faultDraws has an entry for %s, which sim.FaultKindTable lacks", k)
		}
	}
	for _, k := range DefaultKinds {
		if !slices.Contains(sim.FaultKinds, k) {
			t.Errorf("DefaultKinds names %s, which sim.FaultKindTable lacks", k)
		}
	}
}
