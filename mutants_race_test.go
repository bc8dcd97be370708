package locksim

import (
	"strings"
	"testing"
	"time"

	"locksim/engine"
	"locksim/model"
	"locksim/network"
)

// Same-instant races: mutants whose flaw shows only when two events due
// at the same virtual instant run in an order other than the one they
// were scheduled in. The fixed order never takes that order; the random
// and PCT schedulers do (sim/interleave.go).

// raceZoo is the part of the zoo that needs a same-instant scheduler:
// its pairs check under WithInterleave, the rest of the zoo under the
// fixed order.
func raceZoo() []mutant {
	return []mutant{
		// A writer A and a reader B on a LAN of constant latency, one
		// cycle each, no faults: their first acquires reach the node in
		// the same millisecond. Scheduled in config order, the writer's
		// always runs first and the reader waits; only when the reader's
		// runs first does the writer's missing check for readers matter.
		{name: "the writer's check for readers (same-instant acquires)", design: writerIgnoresReaders{}, twin: model.ReadWriteLock,
			opts:      raceOpts("random"),
			mechanism: "(reading)",
		},
	}
}

// raceOpts fixes a configuration where two acquires arrive together: two
// clients (a writer and a reader), one cycle, a constant 1ms latency, no
// faults; interleave is the same-instant scheduler.
func raceOpts(interleave string) []Option {
	return []Option{WithFaults(), WithClients("A", "B"), WithWorkload(model.Workload{Cycles: 1}),
		withLatency(network.Latency{Min: time.Millisecond, Max: time.Millisecond}), WithInterleave(interleave)}
}

// withLatency sets the network's default latency (not drawn per run).
func withLatency(l network.Latency) Option {
	return func(c *config) { c.Base.Network.Default = l }
}

// writerIgnoresReaders takes the write hold when the lock is free or
// held only by readers: the check for readers is gone.
type writerIgnoresReaders struct{}

const writeIgnoringReaders = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
	"if not mode or mode == 'read' then " +
	"redis.call('hset', KEYS[1], 'mode', 'write'); redis.call('hset', KEYS[1], ARGV[2], 1); " +
	"redis.call('pexpire', KEYS[1], ARGV[1]); return nil; " +
	"end; " +
	"return redis.call('pttl', KEYS[1]);"

func (writerIgnoresReaders) Name() string         { return "writer-ignores-readers" }
func (writerIgnoresReaders) Traits() model.Traits { return model.TraitsOf(rwLock()) }
func (writerIgnoresReaders) Reentrant()           {}
func (writerIgnoresReaders) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	if c.Reader() {
		return rwLock().TryAcquire(c, v)
	}
	g := c.Masters()[0]
	node := c.Primary(g)
	r, err := c.Call(g, "EVAL", writeIgnoringReaders, "1", c.Key, c.TTLms(), v)
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{node}, Count: 1}, r.IsNil(), nil
}
func (writerIgnoresReaders) Release(c *model.Client, l *model.Lease) error {
	return rwLock().Release(c, l)
}
func (writerIgnoresReaders) Renew(c *model.Client, l *model.Lease) (bool, error) {
	return rwLock().(model.Renewer).Renew(c, l)
}
func (writerIgnoresReaders) WaitRelease(c *model.Client, max time.Duration) {
	rwLock().(model.Waiter).WaitRelease(c, max)
}

// TestSameInstantRaceNeedsAReorder: each race mutant holds under the
// fixed order over many seeds, breaks under the random and PCT
// schedulers, and its twin holds under all three; the case a scheduler
// found carries its interleaving and replays to the saved history.
func TestSameInstantRaceNeedsAReorder(t *testing.T) {
	for _, m := range raceZoo() {
		t.Run(m.name, func(t *testing.T) {
			for _, il := range []string{"fixed", "random", "pct:2"} {
				dir := t.TempDir()
				mut := &fakeTB{TB: t, name: "mutant"}
				Check(mut, m.design, append(raceOpts(il), WithRuns(300), WithCaseDir(dir))...)
				twin := &fakeTB{TB: t, name: "twin"}
				Check(twin, m.twin, append(raceOpts(il), WithRuns(300), WithCaseDir(t.TempDir()))...)
				if twin.failed {
					t.Errorf("%s: the twin broke:\n%s", il, strings.Join(twin.logs, "\n"))
				}
				if il == "fixed" {
					if mut.failed {
						t.Errorf("the fixed order broke the mutant: the flaw needs no same-instant reorder:\n%s", strings.Join(mut.logs, "\n"))
					}
					continue
				}
				if !mut.failed {
					t.Errorf("%s: the mutant held in 300 runs", il)
					continue
				}
				c, err := LoadCase(dir + "/mutant.json")
				if err != nil {
					t.Fatal(err)
				}
				if c.Spec.Interleave != il {
					t.Errorf("%s: the saved case has interleave %q", il, c.Spec.Interleave)
				}
				r, err := c.Replay(m.design.(model.Design))
				if err != nil || r.History.Hash() != c.HistoryHash || len(r.Failures()) == 0 {
					t.Errorf("%s: the case did not replay its failure (err %v, hash match %v)", il, err, r != nil && r.History.Hash() == c.HistoryHash)
				}
				t.Logf("%s: %s", il, mut.logs[0])
			}
		})
	}
}

// TestExhaustivePreemptionsFindTheRace: exhaustive mode with one reorder
// on the fault-free run finds each race mutant's break, named by the
// reorder, where the fault-free run alone (no reorder) holds; the twin
// holds with up to two reorders; the break's case replays its failure.
func TestExhaustivePreemptionsFindTheRace(t *testing.T) {
	for _, m := range raceZoo() {
		t.Run(m.name, func(t *testing.T) {
			ex := func(design any, p int) *engine.ExhaustiveResult {
				var c config
				if err := setDesign(&c.Base, design); err != nil {
					t.Fatal(err)
				}
				for _, o := range append(raceOpts("fixed"), WithPreemptions(p)) {
					o(&c)
				}
				x, err := c.exhaustiveConfig()
				if err != nil {
					t.Fatal(err)
				}
				r, err := engine.Exhaustive(x)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			mut := ex(m.design, 1)
			if len(mut.Baseline.Failures()) > 0 {
				t.Fatalf("the fault-free run already breaks: %s", mut.Guarantee())
			}
			if !mut.Failed() || !strings.HasPrefix(mut.Breaks[0].Mechanism, "reorder at ") {
				t.Fatalf("one reorder did not break the mutant: %s", mut.Guarantee())
			}
			if !strings.Contains(mut.Guarantee(), "with at most 1 reorder") {
				t.Errorf("the guarantee does not state the bound: %s", mut.Guarantee())
			}
			r, err := mut.Rerun(mut.Breaks[0].Smallest)
			if err != nil || len(r.Failures()) == 0 || !strings.HasPrefix(r.Spec.Interleave, "preempt:") {
				t.Fatalf("the smallest schedule did not rerun its break: %v, interleave %q", err, r.Spec.Interleave)
			}
			c := engine.NewCase(r)
			again, err := c.Replay(m.design.(model.Design))
			if err != nil || again.History.Hash() != c.HistoryHash {
				t.Fatalf("the case did not replay: %v", err)
			}
			twin := ex(m.twin, 2)
			if twin.Failed() || twin.NoVerdict() != "" || len(twin.Preempted) != 2 || twin.Preempted[0] == 0 {
				t.Fatalf("twin: %s", twin.Guarantee())
			}
			t.Logf("mutant: %s; first way: %s", mut.Guarantee(), mut.Breaks[0].Mechanism)
			t.Logf("twin: %s", twin.Guarantee())
		})
	}
}
