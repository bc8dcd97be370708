package zoo

import (
	"strings"
	"testing"

	"locksim"
	"locksim/engine"
	"locksim/model"
)

// TestSameInstantRaceNeedsAReorder: each race mutant holds under the
// fixed order over many seeds, breaks under the random and PCT
// schedulers, and its twin holds under all three; the case a scheduler
// found carries its interleaving and replays to the saved history.
func TestSameInstantRaceNeedsAReorder(t *testing.T) {
	for _, m := range raceZoo() {
		t.Run(m.name, func(t *testing.T) {
			for _, il := range []string{"fixed", "random", "pct:2"} {
				dir := t.TempDir()
				mut := &fakeTB{TB: t, Test: "mutant"}
				locksim.Check(mut, m.design, append(raceOpts(il), locksim.WithRuns(300), locksim.WithCaseDir(dir))...)
				twin := &fakeTB{TB: t, Test: "twin"}
				locksim.Check(twin, m.twin, append(raceOpts(il), locksim.WithRuns(300), locksim.WithCaseDir(t.TempDir()))...)
				if twin.Broke {
					t.Errorf("%s: the twin broke:\n%s", il, strings.Join(twin.Logs, "\n"))
				}
				if il == "fixed" {
					if mut.Broke {
						t.Errorf("the fixed order broke the mutant: the flaw needs no same-instant reorder:\n%s", strings.Join(mut.Logs, "\n"))
					}
					continue
				}
				if !mut.Broke {
					t.Errorf("%s: the mutant held in 300 runs", il)
					continue
				}
				c, err := locksim.LoadCase(dir + "/mutant.json")
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
				t.Logf("%s: %s", il, mut.Logs[0])
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
				// Exhaustive mode on the configuration the options fix, as
				// Check under WithExhaustive(1) builds it, with p reorders.
				cc, err := locksim.CheckPlan(design, raceOpts("fixed")...)
				if err != nil {
					t.Fatal(err)
				}
				x := engine.ExhaustiveConfig{Base: cc.Base, Depth: 1, Preemptions: p, Invariants: cc.Invariants, Kinds: cc.Gen.Kinds}
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
