package locksim

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"locksim/consensus"
	"locksim/internal/faketb"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// The rapid properties run at rapid's default of 100 checks in `make
// test`; `make long` runs them with -rapid.checks=10000. They draw runs
// from the same generator as locksim check and locksim.Check
// (scenarios.Gen), through rapid so failures shrink.

// catalogueDesigns is every design ID, the consensus designs included
// (package locksim imports package consensus, whose init registers them
// before this variable is set).
var catalogueDesigns = model.DesignIDs()

// swarm is the default generator: every default fault kind, configuration
// drawn per run.
var swarm = scenarios.Gen{Swarm: true}

// TestPropDeterminism: any generated case run twice gives the same
// history, under every same-instant scheduler.
func TestPropDeterminism(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		d := rapid.SampledFrom(catalogueDesigns).Draw(rt, "design")
		s := scenarios.Gen{Kinds: sim.FaultKinds, Swarm: true}.RunRapid(rt, model.Spec{Design: d})
		// Every same-instant scheduler: the seeded ones draw from a stream
		// of the run's seed, so they too give one history per seed.
		s.Interleave = rapid.SampledFrom([]string{"", "random", "pct:1", "pct:3", "preempt:1.1"}).Draw(rt, "interleave")
		seed := rapid.Uint64().Draw(rt, "seed")
		a, err := model.Run(s, seed)
		if err != nil {
			rt.Fatal(err)
		}
		b, _ := model.Run(s, seed)
		if a.History.Hash() != b.History.Hash() {
			rt.Fatalf("design %s: the same case gave two histories", d)
		}
	})
}

// TestPropNoFaultsIsSafe: every catalogue design holds every invariant with
// no faults, over the swarm of configurations the generator draws (2-4
// clients, short or long work within the design's assumptions, latency,
// call timeouts): a false alarm here would be a checker's or the swarm's.
//
// FIFO is left out for fair designs: the simulation found that Redisson's
// fair lock drops live waiters from a queue that stays busy longer than
// its bookkeeping assumes, with no fault (scenario busy-fair-queue,
// TestFairLockShedsWaitersOfABusyQueue).
func TestPropNoFaultsIsSafe(t *testing.T) {
	for _, d := range catalogueDesigns {
		t.Run(d, func(t *testing.T) {
			opts := []Option{WithFaults(), WithRuns(300), WithCaseDir(t.TempDir())}
			if model.TraitsOf(mustDesign(t, d)).Fair {
				// Every invariant the design judges, but FIFO.
				spec := model.Spec{Design: d}
				opts = append(opts, WithInvariants(slices.DeleteFunc(slices.Clone(invariant.All), func(id invariant.ID) bool {
					judged, _ := spec.WithDefaults().CheckConfig().Judged(id)
					return id == invariant.FIFO || !judged
				})...))
			}
			Check(t, d, opts...)
		})
	}
}

func mustDesign(t *testing.T, id string) model.Design {
	d, err := model.LookupDesign(id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPropFencedResourceKeepsItsRule: under any pauses and delays the
// strict fenced resource never accepts a token at or below one it accepted.
func TestPropFencedResourceKeepsItsRule(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause, sim.FaultDelay}, Swarm: true}.RunRapid(rt, model.Spec{Design: model.Fenced})
		r, err := model.Run(s, rapid.Uint64().Draw(rt, "seed"))
		if err != nil || r.Err != nil {
			rt.Fatalf("run: %v %v", err, r.Err)
		}
		// The fencing invariant is not judged on a strict resource (the
		// resource enforces it): this property is the resource's own test.
		// Writes are indexed in the order they were sent; judge them in
		// the order the resource applied them.
		ws := slices.Clone(history.New(r.History).Writes)
		slices.SortFunc(ws, func(a, b history.Write) int { return a.Applied - b.Applied })
		var last int64
		for _, w := range ws {
			if !w.Accepted || w.Token == 0 {
				continue
			}
			if w.Token <= last {
				rt.Fatalf("the strict resource accepted %s's token %d after token %d", w.Client, w.Token, last)
			}
			last = w.Token
		}
	})
}

// TestPropRedlockSafeUnderItsAssumptions: redlock holds mutual exclusion
// when clock drift stays within its drift factor and no process pauses:
// under partitions and lost messages, with three clients.
func TestPropRedlockSafeUnderItsAssumptions(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		base := model.Spec{Design: model.Redlock, Clients: []string{"A", "B", "C"}}
		s := scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPartition, sim.FaultDrop}, Swarm: true}.RunRapid(rt, base)
		var nodes []string
		for g := range s.Topology.Masters {
			nodes = append(nodes, model.NodeName(g, 0, 0))
		}
		s.Faults = append(s.Faults, scenarios.SafeDrift(rt, nodes, s.Options.DriftFactor)...)
		o, err := model.Verdict(s, rapid.Uint64().Draw(rt, "seed"))
		if err != nil || o.Err != nil {
			rt.Fatalf("run: %v %v", err, o.Err)
		}
		for _, v := range o.Violations {
			if v.Invariant == invariant.MutualExclusion || v.Invariant == invariant.StaleWrite {
				rt.Fatalf("redlock broke %s: %s", v.Invariant, v.Explanation)
			}
		}
	})
}

// TestPropWatchdogSafeWithoutPauses: renewal keeps a section longer than
// the TTL safe when nothing pauses the process.
func TestPropWatchdogSafeWithoutPauses(t *testing.T) {
	Check(t, model.Watchdog, WithWorkload(model.Workload{Cycles: 2, Work: 1500 * time.Millisecond}),
		WithFaults(), WithRuns(100), WithCaseDir(t.TempDir()))
}

// fakeTB captures a failure instead of failing the test (internal/faketb).
type fakeTB = faketb.TB

// TestPropFindsKnownBreaks: for each design (a long enough pause breaks
// every lease), Check finds a violation under generated pauses within its
// default budget and shrinks it to a schedule of at most two faults; the
// saved case replays to the same history. Under -short (make test) each
// check makes findsShortRuns runs; make long, the default budget.
func TestPropFindsKnownBreaks(t *testing.T) {
	opts := []Option{WithFaults(sim.FaultPause)}
	if testing.Short() {
		opts = append(opts, WithRuns(findsShortRuns))
	}
	for _, d := range catalogueDesigns {
		t.Run(d, func(t *testing.T) {
			dir := t.TempDir()
			f := &fakeTB{TB: t, Test: "TestFinds/" + d}
			start := time.Now() // wall-clock ok: measures the check for the log
			Check(f, d, append(slices.Clone(opts), WithCaseDir(dir))...)
			elapsed := time.Since(start)
			if !f.Broke {
				t.Fatalf("no violation of %s under generated pauses", d)
			}
			out := strings.Join(f.Logs, "\n")
			c, err := LoadCase(filepath.Join(dir, CaseName("TestFinds/"+d)+".json"))
			if err != nil {
				t.Fatalf("no saved case: %v\n%s", err, out)
			}
			if n := len(c.Spec.Faults); n > 2 {
				t.Errorf("minimal schedule has %d faults, want at most 2:\n%s", n, out)
			}
			r, err := c.Replay(nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.History.Hash() != c.HistoryHash {
				t.Errorf("replaying the saved case gave a different history")
			}
			t.Logf("found and shrank in %v:\n%s", elapsed, firstLines(out, 8))
		})
	}
}

// findsShortRuns is TestPropFindsKnownBreaks's run count per design
// under -short: every design's first break under generated pauses comes
// well inside it, so each is still found, shrunk and replayed.
const findsShortRuns = 300

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// TestDeterminismEveryFaultKind is the self-check: for every fault kind and
// 200 seeds, a run repeated gives a byte-identical history (its hash), and
// different seeds give different histories.
func TestDeterminismEveryFaultKind(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 20
	}
	for _, k := range sim.FaultKinds {
		t.Run(string(k), func(t *testing.T) {
			base := model.Spec{Design: model.SetPxLua, Topology: model.Topology{Replicas: 1}}
			if k == sim.FaultClockJump || k == sim.FaultClockDrift {
				base = model.Spec{Design: model.Redlock} // faults on several nodes
			}
			if k == sim.FaultSlotMigrate || k == sim.FaultClusterFailover {
				base.Topology = model.Topology{Cluster: true, Masters: 3, Replicas: 1} // drawn on clusters only
			}
			determinismSelfCheck(t, k, base, seeds)
			// The consensus lease: raft's elections and the leader's lease
			// clock must be as deterministic as the Redis nodes.
			determinismSelfCheck(t, k, model.Spec{Design: consensus.EtcdLease}, seeds/4)
		})
	}
}

// determinismSelfCheck runs seeds generated cases of base with faults of
// kind k twice each: the same history each time, a different one per seed.
func determinismSelfCheck(t *testing.T, k sim.FaultKind, base model.Spec, seeds int) {
	t.Helper()
	g := scenarios.Gen{Kinds: []sim.FaultKind{k}, Swarm: true}
	seen := map[string]uint64{}
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		s := g.Run(scenarios.Rand(seed), base)
		a, err := model.Run(s, seed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := model.Run(s, seed)
		ha := a.History.Hash()
		if ha != b.History.Hash() {
			t.Fatalf("%s, seed %d: the same run gave two histories\n%s", base.Design, seed, scenarios.Describe(s))
		}
		if prev, dup := seen[ha]; dup {
			t.Fatalf("%s: seeds %d and %d gave the same history", base.Design, prev, seed)
		}
		seen[ha] = seed
	}
}

// TestPropFencedReadsKeepTheData: with reads fenced too (strict-reads),
// fenced keeps the resource consistent under any pauses and delays: no
// lost update and no token its rule forbids, although mutual exclusion and
// the lease may still break. (With write-only fencing a stale write that
// lands after the new holder's read but before its write loses an update;
// TestFindsWriteOnlyFencingGap shows Check finding that.)
func TestPropFencedReadsKeepTheData(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		base := model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads}
		s := scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause, sim.FaultDelay}, Swarm: true}.RunRapid(rt, base)
		o, err := model.Verdict(s, rapid.Uint64().Draw(rt, "seed"))
		if err != nil || o.Err != nil {
			rt.Fatalf("run: %v %v", err, o.Err)
		}
		for _, v := range o.Violations {
			if v.Invariant == invariant.LostUpdate {
				rt.Fatalf("fenced with strict-reads broke %s: %s", v.Invariant, v.Explanation)
			}
		}
	})
}
