package node

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"locksim"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/realclient"
	"locksim/sim"
)

// TestNodeUserCheck is what a Node team writes (docs/node.md): Check on
// a JavaScript lock module. NODE_LOCK names the module; the pair test
// runs it in a child process.
func TestNodeUserCheck(t *testing.T) {
	module := os.Getenv("NODE_LOCK")
	if module == "" {
		t.Skip("run by TestPlainDelFailsAndItsTwinPasses")
	}
	realclient.Check(t, Setup(module), realclient.WithName("node-"+strings.TrimSuffix(module[strings.LastIndex(module, "/")+1:], ".cjs")),
		realclient.WithInvariants(invariant.MutualExclusion, invariant.Liveness),
		realclient.WithFaults(sim.FaultPause),
		realclient.WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}),
		realclient.WithCaseDir(os.Getenv("NODE_CASE_DIR")))
}

// A plain-DEL release written in JavaScript fails with a one-fault
// schedule that names the mechanism; its compare-and-delete twin passes
// under the same fault model.
func TestPlainDelFailsAndItsTwinPasses(t *testing.T) {
	requireNode(t)
	if !*long {
		t.Skip("two checks of 100 runs: make long (-node.long); make test runs TestPlainDelOneFault")
	}
	for _, tc := range []struct {
		module string
		fails  bool
	}{{"js/locks/plain-del.cjs", true}, {"js/locks/cad.cjs", false}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNodeUserCheck$", "-test.count=1", "-rapid.seed=1", "-rapid.shrinktime=5s")
		cmd.Env = append(os.Environ(), "NODE_LOCK="+tc.module, "NODE_CASE_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		text := string(out)
		t.Logf("%s:\n%s", tc.module, text)
		if (err != nil) != tc.fails {
			t.Errorf("%s: failed = %v, want %v", tc.module, err != nil, tc.fails)
		}
	}
}

// TestPlainDelOneFault is the pair's failing case as Check shrank it
// (make long finds it again; testdata/plain-del-one-fault.json is the case
// it saved): B pauses after its first acquisition past its
// lease, A takes the lock, and B's plain DEL deletes A's key, so that B
// acquires again while A holds it. The compare-and-delete twin deletes
// nothing that is not its own and holds under the same fault.
func TestPlainDelOneFault(t *testing.T) {
	requireNode(t)
	c, err := locksim.LoadCase("testdata/plain-del-one-fault.json") // saved by Check (TestNodeUserCheck) on the plain-DEL lock
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Spec.Faults) != 1 {
		t.Fatalf("the saved case has %d faults, want the one Check shrank it to", len(c.Spec.Faults))
	}
	for _, tc := range []struct {
		module string
		broken bool
	}{{"js/locks/plain-del.cjs", true}, {"js/locks/cad.cjs", false}} {
		r, err := realclient.Run(t, c, Setup(tc.module))
		if err != nil || r.Err != nil {
			t.Fatalf("%s: %v %v", tc.module, err, r.Err)
		}
		var me []string
		for _, v := range r.Violations {
			if v.Invariant == invariant.MutualExclusion {
				me = append(me, v.Explanation)
			}
		}
		switch {
		case tc.broken && len(me) == 0:
			t.Errorf("%s: no mutual-exclusion violation under the one pause", tc.module)
		case tc.broken && !strings.Contains(strings.Join(me, " "), "deleted") || tc.broken && !strings.Contains(strings.Join(me, " "), "(DEL)"):
			t.Errorf("%s: the violation does not name the plain DEL that deleted the other's key: %q", tc.module, me)
		case !tc.broken && len(me) > 0:
			t.Errorf("%s: the compare-and-delete twin broke mutual exclusion: %q", tc.module, me)
		}
		t.Logf("%s: %q", tc.module, me)
	}
}
