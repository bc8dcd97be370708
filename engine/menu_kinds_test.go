package engine

import (
	"slices"
	"testing"

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
