package model

import "locksim/sim"

// Roster is a deployment's names, computed once from a spec (Spec.Roster)
// and passed down: the spec's simulation configuration, the scenario
// parser's name checks, the generator's shape and exhaustive mode's roles
// all read it, so that no package derives node names on its own.
//
// Invariants: Nodes lists every node group by group, primary first (r1,
// r2, ... as NodeName numbers them); Primaries and Replicas partition
// Nodes, in the same order; Groups[g] is GroupName(g).
type Roster struct {
	Clients             []string
	Groups              []sim.GroupConfig
	Nodes               []string
	Primaries, Replicas []string
}

// Roster returns the spec's roster: its clients and the nodes of its
// topology (Masters groups of a primary and Replicas replicas; at least
// one group).
func (s Spec) Roster() Roster {
	r := LayoutRoster(max(1, s.Topology.Masters), s.Topology.Replicas)
	r.Clients = s.Clients
	return r
}

// LayoutRoster returns the nodes and groups of masters groups of a
// primary and replicas replicas each, without clients.
func LayoutRoster(masters, replicas int) Roster {
	var r Roster
	for g := range masters {
		gc := sim.GroupConfig{Name: GroupName(g), Primary: NodeName(g, 0, replicas)}
		r.Nodes = append(r.Nodes, gc.Primary)
		r.Primaries = append(r.Primaries, gc.Primary)
		for j := 1; j <= replicas; j++ {
			n := NodeName(g, j, replicas)
			gc.Replicas = append(gc.Replicas, n)
			r.Nodes = append(r.Nodes, n)
			r.Replicas = append(r.Replicas, n)
		}
		r.Groups = append(r.Groups, gc)
	}
	return r
}

// ReplicasOf returns the replicas of primary, none for a node that is not
// a group's first primary.
func (r Roster) ReplicasOf(primary string) []string {
	for _, g := range r.Groups {
		if g.Primary == primary {
			return g.Replicas
		}
	}
	return nil
}
