package locksim

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// The properties run at rapid's default of 100 checks in `make test`;
// `make long` runs them with -rapid.checks=10000.

var catalogueDesigns = model.DesignIDs()

// specFor is the property tests' standard shape: two clients, two cycles.
func specFor(design string) model.Spec {
	return model.Spec{Design: design, Workload: model.Workload{Cycles: 2, Work: 50 * time.Millisecond}}
}

// TestPropDeterminism: any generated case run twice gives the same history.
func TestPropDeterminism(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		d := rapid.SampledFrom(catalogueDesigns).Draw(rt, "design")
		s := specFor(d)
		s.Faults = GenSchedule(rt, TopoOf(s), AllKinds())
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
// no faults (three contending clients).
func TestPropNoFaultsIsSafe(t *testing.T) {
	for _, d := range catalogueDesigns {
		t.Run(d, func(t *testing.T) {
			Check(t, d, WithClients("A", "B", "C"), WithSchedule(func(*rapid.T, Topo) []sim.Fault { return nil }))
		})
	}
}

// TestPropFencedResourceKeepsItsRule: under any pauses and delays the
// strict fenced resource never accepts a token at or below one it accepted.
func TestPropFencedResourceKeepsItsRule(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := specFor(model.Fenced)
		s.Faults = GenSchedule(rt, TopoOf(s), []sim.FaultKind{sim.FaultPause, sim.FaultDelay})
		r, err := model.Run(s, rapid.Uint64().Draw(rt, "seed"))
		if err != nil || r.Err != nil {
			rt.Fatalf("run: %v %v", err, r.Err)
		}
		for _, v := range r.Violations {
			if v.Invariant == invariant.Fencing {
				rt.Fatalf("the fenced resource broke its rule: %s", v.Explanation)
			}
		}
	})
}

// TestPropRedlockSafeUnderItsAssumptions: redlock holds mutual exclusion
// when clock drift stays within its drift factor and no process pauses.
func TestPropRedlockSafeUnderItsAssumptions(t *testing.T) {
	Check(t, model.Redlock, WithClients("A", "B", "C"),
		WithSchedule(func(rt *rapid.T, topo Topo) []sim.Fault {
			return append(SafeDrift(rt, topo, 0.01), GenSchedule(rt, topo, []sim.FaultKind{sim.FaultPartition, sim.FaultDrop})...)
		}))
}

// TestPropWatchdogSafeWithoutPauses: renewal keeps a slow critical section
// safe when nothing pauses the process.
func TestPropWatchdogSafeWithoutPauses(t *testing.T) {
	Check(t, model.Watchdog, WithWorkload(model.Workload{Cycles: 2, Work: 1500 * time.Millisecond}),
		WithSchedule(func(*rapid.T, Topo) []sim.Fault { return nil }))
}

// fakeTB captures a rapid failure instead of failing the test, so a test
// can assert that rapid finds and shrinks a violation.
type fakeTB struct {
	testing.TB
	name   string
	failed bool
	logs   []string
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Name() string                      { return f.name }
func (f *fakeTB) Logf(format string, args ...any)   { f.logs = append(f.logs, sprintf(format, args...)) }
func (f *fakeTB) Log(args ...any)                   { f.logs = append(f.logs, sprint(args...)) }
func (f *fakeTB) Errorf(format string, args ...any) { f.failed = true; f.Logf(format, args...) }
func (f *fakeTB) Error(args ...any)                 { f.failed = true; f.Log(args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.Errorf(format, args...) }
func (f *fakeTB) Fatal(args ...any)                 { f.Error(args...) }
func (f *fakeTB) FailNow()                          { f.failed = true }
func (f *fakeTB) Fail()                             { f.failed = true }
func (f *fakeTB) Failed() bool                      { return f.failed }
func (f *fakeTB) Skipf(string, ...any)              {}
func (f *fakeTB) Skip(...any)                       {}
func (f *fakeTB) SkipNow()                          {}

// TestPropFindsKnownBreaks: for each design known to break under pauses,
// rapid finds a violation within its default number of checks and shrinks
// it to a schedule of at most two faults.
func TestPropFindsKnownBreaks(t *testing.T) {
	for _, d := range catalogueDesigns { // a long enough pause breaks every design (gc-pause)
		t.Run(d, func(t *testing.T) {
			dir := t.TempDir()
			f := &fakeTB{TB: t, name: "TestFinds/" + d}
			start := time.Now() // wall-clock ok: measures shrinking time for the log
			Check(f, d, WithFaults(sim.FaultPause), WithCaseDir(dir))
			elapsed := time.Since(start)
			if !f.failed {
				t.Fatalf("rapid found no violation of %s under generated pauses", d)
			}
			out := strings.Join(f.logs, "\n")
			c, err := LoadCase(dir + "/TestFinds_" + d + ".json")
			if err != nil {
				t.Fatalf("no saved case: %v\n%s", err, out)
			}
			if n := len(c.Spec.Faults); n > 2 {
				t.Errorf("minimal schedule has %d faults, want at most 2:\n%s", n, Describe(c.Spec.Faults))
			}
			r, err := c.Replay(nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.History.Hash() != c.HistoryHash {
				t.Errorf("replaying the saved case gave a different history")
			}
			t.Logf("found and shrank in %v to:\n%s%s", elapsed, Describe(c.Spec.Faults), firstLines(out, 12))
		})
	}
}

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
	for _, k := range AllKinds() {
		t.Run(string(k), func(t *testing.T) {
			design := model.SetPxLua
			if k == sim.FaultNodeCrash || k == sim.FaultClockJump || k == sim.FaultClockDrift {
				design = model.Redlock // faults on several nodes
			}
			s := specFor(design)
			s.Workload.Cycles = 1
			topo := TopoOf(s)
			seen := map[string]uint64{}
			for seed := uint64(0); seed < uint64(seeds); seed++ {
				s.Faults = RandomSchedule(rand.New(rand.NewPCG(seed, 7)), topo, []sim.FaultKind{k})
				a, err := model.Run(s, seed)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := model.Run(s, seed)
				ha := a.History.Hash()
				if ha != b.History.Hash() {
					t.Fatalf("seed %d: the same run gave two histories\n%s", seed, Describe(s.Faults))
				}
				if prev, dup := seen[ha]; dup {
					t.Fatalf("seeds %d and %d gave the same history", prev, seed)
				}
				seen[ha] = seed
			}
		})
	}
}

// TestPropFencedReadsKeepTheData: with reads fenced too (strict-reads),
// fenced keeps the resource consistent under any pauses and delays: no
// lost update and no out-of-order token, although mutual exclusion and
// the lease may still break. (With write-only fencing a stale write that
// lands after the new holder's read but before its write loses an update;
// TestPropFindsWriteOnlyFencingGap shows rapid finding that.)
func TestPropFencedReadsKeepTheData(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := specFor(model.Fenced)
		s.Fencing = model.FenceStrictReads
		s.Faults = GenSchedule(rt, TopoOf(s), []sim.FaultKind{sim.FaultPause, sim.FaultDelay})
		vs, runErr, err := model.Verdict(s, rapid.Uint64().Draw(rt, "seed"))
		if err != nil || runErr != nil {
			rt.Fatalf("run: %v %v", err, runErr)
		}
		for _, v := range vs {
			if v.Invariant == invariant.LostUpdate || v.Invariant == invariant.Fencing {
				rt.Fatalf("fenced with strict-reads broke %s: %s", v.Invariant, v.Explanation)
			}
		}
	})
}

// TestPropFindsWriteOnlyFencingGap: with write-only fencing (strict), rapid
// finds a lost update for fenced under pauses and delays.
func TestPropFindsWriteOnlyFencingGap(t *testing.T) {
	f := &fakeTB{TB: t, name: "TestFindsWriteOnlyGap"}
	rapid.Check(f, func(rt *rapid.T) {
		s := specFor(model.Fenced)
		s.Faults = GenSchedule(rt, TopoOf(s), []sim.FaultKind{sim.FaultPause, sim.FaultDelay})
		vs, _, _ := model.Verdict(s, rapid.Uint64().Draw(rt, "seed"))
		for _, v := range vs {
			if v.Invariant == invariant.LostUpdate {
				rt.Fatalf("fenced (strict) lost an update")
			}
		}
	})
	if !f.failed {
		t.Skip("rapid did not hit the write-only fencing gap in this many checks")
	}
	t.Logf("%s", firstLines(strings.Join(f.logs, "\n"), 14))
}
