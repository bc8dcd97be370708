package node

import (
	"os"
	"os/exec"
	"strings"
	"testing"

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
