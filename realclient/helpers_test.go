package realclient

import (
	"slices"
	"testing"

	"locksim"
	"locksim/model"
	"locksim/model/invariant"
)

// runSpec runs one hand-built spec with a real client.
func runSpec(t *testing.T, name string, s model.Spec, setup Setup) *model.Result {
	t.Helper()
	s.Design = DesignPrefix + name
	r, err := Run(t, locksim.Case{Spec: s, Seed: 1}, setup)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("%s: run failed: %v", name, r.Err)
	}
	return r
}

func broke(r *model.Result, inv invariant.ID) bool {
	return slices.Contains(invariant.Broken(r.Violations), inv)
}

// explain logs the violations, for a reader of -v output.
func explain(t *testing.T, name string, r *model.Result) {
	t.Helper()
	t.Logf("%s: broken %v", name, invariant.Broken(r.Violations))
	for _, v := range r.Violations {
		t.Logf("  %s: %s", v.Invariant, v.Explanation)
	}
}
