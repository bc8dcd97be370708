package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"locksim/model"
	"locksim/scenarios"
)

// TestResolvingAResolvedSpecChangesNothing: a spec the generator drew (its
// defaults applied, as every run's is) resolves to itself, with the
// checker configuration CheckConfig gives. Exhaustive mode and the
// matrix's invariant rows read a drawn spec's or a result's spec through
// Resolve or CheckConfig without applying the defaults again; this is
// what makes that the same.
func TestResolvingAResolvedSpecChangesNothing(t *testing.T) {
	gens := []scenarios.Gen{{Swarm: true}, {Kinds: scenarios.DefaultKinds}}
	for _, id := range model.DesignIDs() {
		for gi, g := range gens {
			for seed := range uint64(12) {
				s := g.Run(scenarios.Rand(seed), model.Spec{Design: id})
				rs, err := s.Resolve()
				if err != nil {
					t.Fatalf("%s, seed %d: %v", id, seed, err)
				}
				if diff := cmp.Diff(s, rs.Spec, cmpopts.IgnoreUnexported(model.Spec{}), cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s, gen %d, seed %d: resolving a drawn spec changed it (-drawn +resolved):\n%s", id, gi, seed, diff)
				}
				if diff := cmp.Diff(s.CheckConfig(), rs.Check, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("%s, gen %d, seed %d: the checker configuration differs (-CheckConfig +Resolve):\n%s", id, gi, seed, diff)
				}
			}
		}
	}
}
