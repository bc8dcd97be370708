package history_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"locksim/engine"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/scenarios"
)

// TestReuseIndexesAsNew rebuilds one index over the histories of every
// design under random faults (Index.Reuse, what model.Verdict does) and
// compares each with a new index of the same history: nothing of an
// earlier history may leak into a later one.
func TestReuseIndexesAsNew(t *testing.T) {
	ignore := cmp.Options{cmpopts.IgnoreUnexported(history.Index{}, history.Section{}), cmpopts.EquateEmpty()}
	ix := history.New(nil)
	for _, d := range model.DesignIDs() {
		c := engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: d}, Gen: scenarios.Gen{Swarm: true}}}
		for i := range 6 {
			s, seed := c.RunSpec(i)
			r, err := model.Run(s, seed)
			if err != nil {
				t.Fatal(err)
			}
			want := history.New(r.History)
			got := ix.Reuse(r.History)
			if diff := cmp.Diff(want, got, ignore); diff != "" {
				t.Fatalf("%s run %d: Reuse differs from New (-want +got):\n%s", d, i, diff)
			}
			// The verdicts too: the checkers' derived views (the liveness
			// points) are built in the last history's memory.
			cc := s.CheckConfig()
			if diff := cmp.Diff(invariant.CheckIndex(want, cc), invariant.CheckIndex(got, cc)); diff != "" {
				t.Fatalf("%s run %d: verdicts (-want +got):\n%s", d, i, diff)
			}
			if diff := cmp.Diff(model.UndecidedOf(want, cc, nil), model.UndecidedOf(got, cc, nil)); diff != "" {
				t.Fatalf("%s run %d: UndecidedOf (-want +got):\n%s", d, i, diff)
			}
			if diff := cmp.Diff(want.Clients(), got.Clients()); diff != "" {
				t.Fatalf("%s run %d: Clients (-want +got):\n%s", d, i, diff)
			}
			for _, a := range want.Acquisitions {
				if w, g := want.Owner(a.Value), got.Owner(a.Value); w != g {
					t.Fatalf("%s run %d: Owner(%q) = %q, want %q", d, i, a.Value, g, w)
				}
			}
			for _, s := range want.Sections {
				for _, p := range want.Marked {
					if w, g := want.TrueAt(s.Client, r.History[p].Local), got.TrueAt(s.Client, r.History[p].Local); w != g {
						t.Fatalf("%s run %d: TrueAt(%s) = %v, want %v", d, i, s.Client, g, w)
					}
				}
			}
		}
	}
}
