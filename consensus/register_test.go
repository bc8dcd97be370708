package consensus

import (
	"slices"
	"testing"

	"locksim/model"
	"locksim/scenarios"
)

// TestRegisteredByLinking: linking the package registers its designs in
// model's catalogue (its init; no test here calls Register), scenario
// files may name them (scenarios.Designs reads the catalogue), and no
// other package's list is patched (scenarios.KnownDesigns is the
// catalogue's own).
func TestRegisteredByLinking(t *testing.T) {
	for _, id := range []string{EtcdLease, EtcdLeaseUnfenced} {
		if _, err := model.LookupDesign(id); err != nil {
			t.Errorf("%s is not in the catalogue without a Register call: %v", id, err)
		}
		if !slices.Contains(scenarios.Designs(), id) {
			t.Errorf("scenario files may not name %s", id)
		}
		if slices.Contains(scenarios.KnownDesigns, id) {
			t.Errorf("scenarios.KnownDesigns was patched with %s", id)
		}
	}
	sc, err := scenarios.Parse("t.scenario", []byte("name t\ntitle t\ndesign "+EtcdLease+"\nclients A B\nttl 2s\nwork 50ms\n----\nA test.\n"))
	if err != nil {
		t.Fatalf("a scenario naming %s: %v", EtcdLease, err)
	}
	if sc.Design != EtcdLease {
		t.Errorf("the scenario's design is %q", sc.Design)
	}
}
