package node

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/realclient"
	"locksim/sim"
)

// modules are the JavaScript locks the tests run: the hand-written pair
// and the pinned libraries (package.json).
var modules = []struct {
	name, path string
	masters    int
	opts       []realclient.Option
}{
	{"plain-del", "js/locks/plain-del.cjs", 1, nil},
	{"cad", "js/locks/cad.cjs", 1, nil},
	{"redlock-4.2.0", "js/libs/redlock-4.2.0.cjs", 3, nil},
	{"redlock-5.0.0-beta.2", "js/libs/redlock-5.0.0-beta.2.cjs", 3, nil},
	// Its scripts take the database number first, the value second.
	{"sesamecare-redlock-1.4.0", "js/libs/sesamecare-redlock-1.4.0.cjs", 3, []realclient.Option{realclient.WithValueArg(2)}},
	{"redis-semaphore-5.8.0", "js/libs/redis-semaphore-5.8.0.cjs", 1, nil},
	// The published pair of issue #175 (TestPublishedPairs).
	{"redis-semaphore-5.3.0", "js/libs/redis-semaphore-5.3.0.cjs", 1, nil},
	{"redis-semaphore-5.3.1", "js/libs/redis-semaphore-5.3.1.cjs", 1, nil},
}

// probes are modules the determinism test runs besides the locks: every
// replaced input, through CommonJS and ESM, in the lock value.
var probes = []struct {
	name, path string
	masters    int
	opts       []realclient.Option
}{{"inputs", "js/test/inputs.cjs", 1, []realclient.Option{realclient.WithLockKeys("lock")}}}

// faultyCase is a run under a pause, a partition and a delay, three
// cycles per client.
func faultyCase(name string, masters int) locksim.Case {
	s := model.Spec{
		Design:   realclient.DesignPrefix + name,
		Topology: model.Topology{Masters: masters},
		Workload: model.Workload{Cycles: 3, Work: 50 * time.Millisecond, Start: 5 * time.Millisecond},
		Faults: []sim.Fault{
			{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}},
			{Kind: sim.FaultPartition, A: []string{"B"}, B: []string{"r1"}, At: 100 * time.Millisecond, Dur: 2 * time.Second},
			{Kind: sim.FaultDelay, From: "A", To: "r1", Extra: 300 * time.Millisecond, At: 0, Dur: time.Second},
		},
	}.WithDefaults()
	return locksim.Case{Spec: s, Seed: 42}
}

func run(t *testing.T, name, path string, masters int, ropts []realclient.Option, opts ...Option) *model.Result {
	t.Helper()
	r, err := realclient.Run(t, faultyCase(name, masters), Setup(path, opts...), ropts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r.Err != nil {
		t.Fatalf("%s: the run stopped: %v", name, r.Err)
	}
	return r
}

// TestDeterminismAcrossProcesses runs each JavaScript lock under faults
// in fresh Go processes (each with fresh Node processes) and wants one
// history, byte for byte; in the first process it also runs it a second
// time on the warm Node processes (loaded modules reused, new clients and
// locks) and wants the same history.
func TestDeterminismAcrossProcesses(t *testing.T) {
	requireNode(t)
	procs, names := 2, map[string]bool{"plain-del": true, "redlock-4.2.0": true, "inputs": true}
	if *long {
		procs = 3
	}
	for _, m := range append(slices.Clone(modules), probes...) {
		if !*long && !names[m.name] && os.Getenv("REALCLIENT_XPROC_RUN") == "" {
			continue // make test: one hand-written lock and one library; make long: all
		}
		hashes, diff, ok := realclient.AcrossProcesses(t, m.name, procs, func(t *testing.T) *model.Result {
			first := run(t, m.name, m.path, m.masters, m.opts)
			warm := run(t, m.name, m.path, m.masters, m.opts)
			if a, b := first.History.Hash(), warm.History.Hash(); a != b {
				t.Errorf("%s: a run on warm Node processes differs from the first: %s vs %s", m.name, a, b)
			}
			return first
		})
		if !ok {
			continue
		}
		if slices.Compact(slices.Clone(hashes)) == nil || len(slices.Compact(slices.Clone(hashes))) != 1 {
			t.Errorf("%s: %d processes gave %d histories %v; first difference: %s", m.name, procs, len(slices.Compact(slices.Clone(hashes))), hashes, diff)
		} else {
			t.Logf("%s: one history in %d processes (%s)", m.name, procs, hashes[0])
		}
	}
}

// TestOnlyTheBridgeIsActive: after every step of every library's run,
// process.getActiveResourcesInfo() lists nothing the bridge does not own
// (the bridge's pipe is read and written synchronously, so nothing at
// all): no real timer, socket or DNS request escaped the simulation.
func TestOnlyTheBridgeIsActive(t *testing.T) {
	requireNode(t)
	for _, m := range modules {
		steps := 0
		var bad []string
		r := run(t, m.name, m.path, m.masters, m.opts, WithStepHook(func(s Step) {
			steps++
			for _, r := range s.Resources {
				bad = append(bad, s.Client+" after "+s.Event+": "+r)
			}
		}))
		if steps < 10 {
			t.Errorf("%s: %d steps seen", m.name, steps)
		}
		acquired := map[string]int{}
		for _, e := range r.History {
			if e.Kind == history.KindAcquired {
				acquired[e.Actor]++
			}
		}
		if acquired["A"] == 0 || acquired["B"] == 0 {
			t.Errorf("%s: acquisitions by client %v: each client should acquire at least once", m.name, acquired)
		}
		t.Logf("%s: %d steps, acquisitions %v, violations %d", m.name, steps, acquired, len(r.Violations))
		if len(bad) > 0 {
			t.Errorf("%s: active resources besides the bridge: %s", m.name, strings.Join(bad[:min(len(bad), 5)], "; "))
		}
	}
}
