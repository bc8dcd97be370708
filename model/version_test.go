package model_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
)

// The version resource (optimistic locking) keeps a read-modify-write from
// overwriting a write it did not read, and nothing more. Under gc-pause A's
// write carries the version it read before B wrote, so it is refused: no
// update is lost, mutual exclusion still broke. Under version-check A reads
// after B wrote, so its stale write builds on the current version and is
// accepted: a stale write, mutual exclusion broken, no update lost. The
// same stories without the check (fencing off) lose B's update in gc-pause.
func TestVersionCheckKeepsTheDataNotTheLock(t *testing.T) {
	me, sw, lu := invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate
	for _, tc := range []struct {
		scenario string
		fencing  model.Fencing
		want     []invariant.ID
	}{
		{"gc-pause", model.FenceOff, []invariant.ID{me, sw, lu}},
		{"gc-pause", model.FenceVersion, []invariant.ID{me}},
		{"version-check", model.FenceOff, []invariant.ID{me, sw}},
		{"version-check", model.FenceVersion, []invariant.ID{me, sw}},
	} {
		t.Run(tc.scenario+"/"+string(tc.fencing), func(t *testing.T) {
			sc, err := scenarios.Lookup(tc.scenario)
			if err != nil {
				t.Fatal(err)
			}
			spec, err := sc.SpecFor(model.SetPxLua)
			if err != nil {
				t.Fatal(err)
			}
			spec.Fencing = tc.fencing
			r, err := model.Run(spec, 1)
			if err != nil || r.Err != nil {
				t.Fatalf("run: %v %v", err, r.Err)
			}
			if diff := cmp.Diff(tc.want, brokenOf(r)); diff != "" {
				t.Errorf("broken (-want +got):\n%s\n%v", diff, r.Violations)
			}
			if j, why := spec.WithDefaults().CheckConfig().Judged(invariant.Fencing); tc.fencing == model.FenceVersion && (j || why != "the resource checks row versions, not tokens") {
				t.Errorf("fencing judged %v (%q) under the version check", j, why)
			}
		})
	}
}
