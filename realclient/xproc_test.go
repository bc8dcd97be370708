package realclient

import (
	"slices"
	"testing"

	"locksim"
	"locksim/model"
)

// crossProcessLibs are the harness's own test locks the cross-process
// determinism test runs (realclient/libs runs the published libraries').
var crossProcessLibs = map[string]struct {
	setup Setup
	spec  func() model.Spec
}{
	"twin":    {setup: newTwin(twinBugs{}), spec: func() model.Spec { return faultySpec("twin", 1) }},
	"keylock": {setup: newKeyLock(keyLock{keys: quorumKeys, need: 2}), spec: func() model.Spec { return faultySpec("keylock", 1) }},
}

// TestDeterminismAcrossProcesses runs each lock's run under faults in
// three fresh processes and wants one history: lock values are renamed in
// order of first use, so a library's own random values do not count.
func TestDeterminismAcrossProcesses(t *testing.T) {
	for _, name := range sortedKeys(crossProcessLibs) {
		lib := crossProcessLibs[name]
		hashes, diff, ok := AcrossProcesses(t, name, 3, func(t *testing.T) *model.Result {
			r, err := Run(t, locksim.Case{Spec: lib.spec(), Seed: 7}, lib.setup)
			if err != nil {
				t.Fatal(err)
			}
			return r
		})
		if !ok {
			continue // a child: it made its run
		}
		if slices.ContainsFunc(hashes, func(h string) bool { return h != hashes[0] }) {
			t.Errorf("%s: 3 processes gave hashes %v, want one; first difference:\n%s", name, hashes, diff)
		}
	}
}
