package model

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/sim"
)

// TestRoster: the names of two groups of a primary and a replica, and the
// simulation configuration built from the same roster.
func TestRoster(t *testing.T) {
	s := Spec{Design: WaitReplica, Clients: []string{"A", "B"}}
	s.Topology.Masters, s.Topology.Replicas = 2, 1
	r := s.Roster()
	want := Roster{
		Clients:   []string{"A", "B"},
		Groups:    []sim.GroupConfig{{Name: "m1", Primary: "r1", Replicas: []string{"r2"}}, {Name: "m2", Primary: "r3", Replicas: []string{"r4"}}},
		Nodes:     []string{"r1", "r2", "r3", "r4"},
		Primaries: []string{"r1", "r3"},
		Replicas:  []string{"r2", "r4"},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("roster (-want +got):\n%s", diff)
	}
	if got := r.ReplicasOf("r3"); !slices.Equal(got, []string{"r4"}) {
		t.Errorf("ReplicasOf(r3) = %v", got)
	}
	cfg, err := s.WithDefaults().Config()
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, n := range cfg.Nodes {
		nodes = append(nodes, n.Name)
	}
	if !slices.Equal(nodes, r.Nodes) || !cmp.Equal(cfg.Groups, r.Groups) {
		t.Errorf("Config's nodes %v and groups %v differ from the roster's", nodes, cfg.Groups)
	}
}
