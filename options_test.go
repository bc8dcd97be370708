package locksim

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/network"
	"locksim/sim"
)

// Each test below names one option and fails if Check (or Sweep) ignored
// it: it reads what the option changes in the runs, not the option.

// mustCheckConfig is Check's configuration for the options.
func mustCheckConfig(t *testing.T, design any, opts ...Option) config {
	t.Helper()
	c, err := checkConfig(design, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWithTTLReachesTheRuns: every drawn run under WithTTL(3s) asks Redis
// for a 3000 ms lease (SET ... PX 3000), which the swarm would otherwise
// draw.
func TestWithTTLReachesTheRuns(t *testing.T) {
	c := mustCheckConfig(t, model.SetPxLua, WithTTL(3*time.Second), WithFaults())
	for i := range 5 {
		spec, seed := c.check.RunSpec(i)
		r, err := model.Run(spec, seed)
		if err != nil {
			t.Fatal(err)
		}
		sets := 0
		for _, e := range r.History {
			if e.Kind != sim.KindCall || len(e.Args) == 0 || e.Args[0] != "SET" {
				continue
			}
			sets++
			if i := slices.Index(e.Args, "PX"); i < 0 || i+1 >= len(e.Args) || e.Args[i+1] != "3000" {
				t.Errorf("run %d: %s asks for a lease other than 3000 ms", i, e.Line())
			}
		}
		if sets == 0 {
			t.Fatalf("run %d: no SET call: the test reads nothing", i)
		}
	}
}

// shape is what the swarm draws for a run: everything but the faults.
func shape(s model.Spec) string {
	s.Faults = nil
	return fmt.Sprintf("%v %+v %+v %+v", s.Clients, s.Topology, s.Workload, s.Options)
}

// TestWithSwarmOffKeepsOneShape: without the swarm every run has the same
// configuration; with it (Check's default) twenty runs draw several.
func TestWithSwarmOffKeepsOneShape(t *testing.T) {
	shapes := func(opts ...Option) map[string]bool {
		c := mustCheckConfig(t, model.SetPxLua, opts...)
		seen := map[string]bool{}
		for i := range 20 {
			s, _ := c.check.RunSpec(i)
			seen[shape(s)] = true
		}
		return seen
	}
	if n := len(shapes(WithSwarm(false))); n != 1 {
		t.Errorf("WithSwarm(false): %d configurations in 20 runs, want 1", n)
	}
	if n := len(shapes(WithSwarm(true))); n < 2 {
		t.Errorf("WithSwarm(true): %d configuration in 20 runs, want several", n)
	}
}

// TestWithBudgetStopsStartingRuns: under WithBudget(50ms), on a clock that
// advances 1 ms at each reading, Check makes fewer runs than its default
// count, and some.
func TestWithBudgetStopsStartingRuns(t *testing.T) {
	c := mustCheckConfig(t, model.SetPxLua, WithBudget(50*time.Millisecond), WithFaults(), WithWorkers(1))
	now := time.Unix(0, 0)
	c.check.Now = func() time.Time { now = now.Add(time.Millisecond); return now }
	res, err := engine.Check(c.check)
	if err != nil {
		t.Fatal(err)
	}
	if res.Runs == 0 || res.Runs >= engine.DefaultRuns {
		t.Errorf("a 50 ms budget made %d runs, want between 1 and %d (the default count)", res.Runs, engine.DefaultRuns-1)
	}
}

// TestWithWorkersReachesTheEngine: WithWorkers sets how many runs go at
// once (default GOMAXPROCS), and the verdicts do not depend on it.
func TestWithWorkersReachesTheEngine(t *testing.T) {
	if got := mustCheckConfig(t, model.SetPxLua).check.Workers; got != runtime.GOMAXPROCS(0) {
		t.Errorf("default workers %d, want GOMAXPROCS %d", got, runtime.GOMAXPROCS(0))
	}
	verdict := func(workers int) string {
		c := mustCheckConfig(t, model.SetPxLua, WithWorkers(workers), WithRuns(12))
		if c.check.Workers != workers {
			t.Fatalf("WithWorkers(%d): the engine gets %d workers", workers, c.check.Workers)
		}
		res, err := engine.Check(c.check)
		if err != nil {
			t.Fatal(err)
		}
		first := -1
		if res.FirstFail != nil {
			first = res.FirstFail.Index
		}
		return fmt.Sprintf("runs %d broken %d first %d counts %v", res.Runs, res.BrokenRuns, first, res.Counts)
	}
	if one, three := verdict(1), verdict(3); one != three {
		t.Errorf("the verdicts depend on the workers:\n1: %s\n3: %s", one, three)
	}
}

// TestWithStopAtFirstStopsAtTheFirstBreak: exhaustive mode on a design
// that breaks under many single faults stops after the first broken
// schedule with the option, and explores them all without it.
func TestWithStopAtFirstStopsAtTheFirstBreak(t *testing.T) {
	explore := func(opts ...Option) *engine.ExhaustiveResult {
		c := mustCheckConfig(t, setIncr{}, append([]Option{WithFencing(model.FenceStrict), WithClients("A", "B"), WithExhaustive(1),
			WithInvariants(invariant.LostUpdate)}, opts...)...)
		x, err := c.exhaustiveConfig()
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Exhaustive(x)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	all := explore()
	if all.Stopped || all.BrokenSchedules < 2 {
		t.Fatalf("without the option: stopped %v, %d broken schedules; want every schedule explored and several broken", all.Stopped, all.BrokenSchedules)
	}
	first := explore(WithStopAtFirst())
	if !first.Stopped || first.BrokenSchedules != 1 || first.Total() >= all.Total() {
		t.Errorf("WithStopAtFirst: stopped %v, %d broken of %d schedules (all: %d); want a stop at the first break",
			first.Stopped, first.BrokenSchedules, first.Total(), all.Total())
	}
}

// TestWithAxesSetsTheSweepValues: a sweep under WithAxes runs exactly the
// given values on both axes, not the parameter's default twenty.
func TestWithAxesSetsTheSweepValues(t *testing.T) {
	x, err := engine.ParseAxis("ttl", engine.UnitDuration, "500ms,2s")
	if err != nil {
		t.Fatal(err)
	}
	y, err := engine.ParseAxis("pause", engine.UnitDuration, "100ms,1s,3s")
	if err != nil {
		t.Fatal(err)
	}
	sw, err := Sweep(model.SetPxLua, "pause", WithAxes(x, y), WithSeeds(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Xs) != 2 || len(sw.Ys) != 3 || len(sw.Cells) != 3 || len(sw.Cells[0]) != 2 {
		t.Errorf("sweep axes %v x %v (%d rows), want the 2 ttl and 3 pause values given", sw.Xs, sw.Ys, len(sw.Cells))
	}
}

// WithProgress sees each run and WithContext stops Check between runs:
// the test fails as interrupted after the runs made, with no verdict.
func TestWithProgressAndContextStopCheck(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var seen []int
	f := &fakeTB{TB: t, Test: "TestStopped"}
	Check(f, model.SetPxLua, WithRuns(50), WithWorkers(1), WithFaults(), WithCaseDir(t.TempDir()), WithContext(ctx),
		WithProgress(func(done, planned int) {
			seen = append(seen, done, planned)
			if done == 3 {
				cancel()
			}
		}))
	logs := strings.Join(f.Logs, "\n")
	if !f.Broke || !strings.Contains(logs, "no verdict: interrupted after 3 runs: a partial tally") {
		t.Errorf("want Check stopped after 3 runs as interrupted:\n%s", logs)
	}
	if len(seen) != 6 || seen[0] != 1 || seen[1] != 50 || seen[4] != 3 {
		t.Errorf("progress saw %v, want 1..3 of 50", seen)
	}
}

// TestWithLatencyReachesTheRuns: under WithLatency every drawn run has
// the given latency on every link, which the swarm otherwise draws per
// run (several latencies in twenty runs).
func TestWithLatencyReachesTheRuns(t *testing.T) {
	l := network.Latency{Min: 3 * time.Millisecond, Max: 3 * time.Millisecond}
	fixed := mustCheckConfig(t, model.SetPxLua, WithLatency(l), WithFaults())
	drawn := mustCheckConfig(t, model.SetPxLua, WithFaults())
	seen := map[network.Latency]bool{}
	for i := range 20 {
		spec, _ := fixed.check.RunSpec(i)
		if spec.Network.Default != l {
			t.Errorf("run %d: latency %v, want %v", i, spec.Network.Default, l)
		}
		spec, _ = drawn.check.RunSpec(i)
		seen[spec.Network.Default] = true
	}
	if len(seen) < 2 {
		t.Fatalf("without WithLatency twenty runs drew %d latency: the test reads nothing", len(seen))
	}
}

// TestCheckPlanIsWhatCheckRuns: CheckPlan gives the campaign Check runs
// for the same design and options: its runs, seed, invariants and every
// drawn run.
func TestCheckPlanIsWhatCheckRuns(t *testing.T) {
	opts := []Option{WithRuns(7), WithSeed(3), WithInvariants(invariant.TokenUnique), WithFaults(sim.FaultPause)}
	want := mustCheckConfig(t, model.Fenced, opts...).check
	got, err := CheckPlan(model.Fenced, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if got.Runs != 7 || got.Seed != 3 || !slices.Equal(got.Invariants, want.Invariants) || got.Workers != want.Workers {
		t.Errorf("CheckPlan: runs %d, seed %d, invariants %v, workers %d; Check's: %d, %d, %v, %d",
			got.Runs, got.Seed, got.Invariants, got.Workers, want.Runs, want.Seed, want.Invariants, want.Workers)
	}
	for i := range 5 {
		a, sa := got.RunSpec(i)
		b, sb := want.RunSpec(i)
		if sa != sb || shape(a) != shape(b) || fmt.Sprint(a.Faults) != fmt.Sprint(b.Faults) {
			t.Errorf("run %d: CheckPlan draws %s %v (seed %d), Check %s %v (seed %d)", i, shape(a), a.Faults, sa, shape(b), b.Faults, sb)
		}
	}
	if _, err := CheckPlan(struct{}{}); err == nil {
		t.Error("CheckPlan took a design that is neither an ID, a model.Design nor Lua scripts")
	}
}
