package node

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"locksim"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/realclient"
	"locksim/sim"
)

// TestNodeUserCheck is what a Node team runs on a lock module of its own
// (docs/node.md): realclient.Check on the JavaScript module NODE_LOCK
// names, with the fault kinds of NODE_FAULTS (default pause), NODE_MASTERS
// masters (default 1), NODE_RUNS runs (default 100; generated runs only:
// exhaustive mode refuses WithRuns), NODE_EXHAUSTIVE (1
// or 2: every placement instead), NODE_SEED (the first seed, default 1),
// NODE_VALUE_ARG (realclient.WithValueArg). cmd/locksim-node runs it.
// go test exits 1 when it finds a violation, with the report and the case
// to replay.
func TestNodeUserCheck(t *testing.T) {
	module := os.Getenv("NODE_LOCK")
	if module == "" {
		t.Skip("set NODE_LOCK to a lock module (docs/node.md); TestPlainDelFailsAndItsTwinPasses runs it")
	}
	requireNode(t)
	var kinds []sim.FaultKind
	for _, k := range strings.Split(cmp.Or(os.Getenv("NODE_FAULTS"), "pause"), ",") {
		kinds = append(kinds, sim.FaultKind(strings.TrimSpace(k)))
	}
	masters := envInt(t, "NODE_MASTERS", 1)
	name := strings.TrimSuffix(filepath.Base(module), filepath.Ext(module))
	opts := []realclient.Option{realclient.WithName("node-" + name),
		realclient.WithInvariants(invariant.MutualExclusion, invariant.Liveness),
		realclient.WithFaults(kinds...),
		realclient.WithTopology(model.Topology{Masters: masters, Persistence: sim.PersistAlways}),
		realclient.WithSeed(uint64(envInt(t, "NODE_SEED", 1))),
		// A case directory per module: Check replays the saved case first.
		realclient.WithCaseDir(cmp.Or(os.Getenv("NODE_CASE_DIR"), filepath.Join("testdata", "locksim", name)))}
	if n := envInt(t, "NODE_EXHAUSTIVE", 0); n > 0 {
		// Exhaustive mode refuses WithRuns (random runs only).
		opts = append(opts, realclient.WithExhaustive(n), realclient.WithWorkload(model.Workload{Cycles: 2, Work: 50 * time.Millisecond, Start: 5 * time.Millisecond}))
	} else {
		opts = append(opts, realclient.WithRuns(envInt(t, "NODE_RUNS", 100)))
	}
	if n := envInt(t, "NODE_VALUE_ARG", 0); n > 0 {
		opts = append(opts, realclient.WithValueArg(n))
	}
	realclient.Check(t, Setup(module), opts...)
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a number", name, v)
	}
	return n
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

// Exhaustive mode (every one-fault placement, with the danger map) on the
// JavaScript pair: the plain-DEL lock breaks mutual exclusion at some
// placements, its compare-and-delete twin at none.
func TestExhaustivePair(t *testing.T) {
	requireNode(t)
	if !*long {
		t.Skip("two exhaustive checks of 450 runs: make long (-node.long)")
	}
	for _, tc := range []struct {
		module string
		fails  bool
	}{{"js/locks/plain-del.cjs", true}, {"js/locks/cad.cjs", false}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNodeUserCheck$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "NODE_LOCK="+tc.module, "NODE_EXHAUSTIVE=1", "NODE_CASE_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		text := string(out)
		if (err != nil) != tc.fails {
			t.Errorf("%s: failed = %v, want %v:\n%s", tc.module, err != nil, tc.fails, text)
		}
		if !strings.Contains(text, "explored all") || !strings.Contains(text, "Danger map") && tc.fails {
			t.Errorf("%s: no exhaustive summary or danger map:\n%s", tc.module, text)
		}
	}
}
