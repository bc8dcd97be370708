package locksim

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"locksim/clock"
	"locksim/engine"
	"locksim/model"
	"locksim/network"
	"locksim/scenarios"
	"locksim/sim"
	"locksim/sim/script"
)

var benchTable = flag.Bool("benchtable", false, "print the benchmark table (make bench)")

// standardSpec is the standard run: two clients contending on one node for
// 60s of virtual time, SET NX PX with a 1s TTL and backoff, a 50ms
// read-modify-write, a Lua compare-and-delete release, 1ms latency.
func standardSpec() model.Spec {
	return model.Spec{Design: model.SetPxLua,
		Workload: model.Workload{Duration: 60 * time.Second, Work: 50 * time.Millisecond},
		Network:  network.Config{Default: network.Latency{Min: time.Millisecond, Max: time.Millisecond}}}
}

// TestBenchTable prints, from one run, the ratios issue 7 asks for. It is
// a report, not an assertion: it runs only with -benchtable.
func TestBenchTable(t *testing.T) {
	if !*benchTable {
		t.Skip("run with -benchtable (make bench)")
	}
	const release = "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) else return 0 end"
	eval := func(slow bool) testing.BenchmarkResult {
		return testing.Benchmark(func(b *testing.B) {
			m := miniredis.NewMiniRedis()
			m.SetTime(clock.Epoch)
			e, err := script.NewEngine(m, script.Options{Slow: slow})
			if err != nil {
				b.Fatal(err)
			}
			c := e.NewConn()
			c.Do("SET", "lock", "v")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Do("EVAL", release, "1", "lock", "other")
			}
		})
	}
	fast, slow := eval(false), eval(true)

	var events int
	std := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r, err := model.Run(standardSpec(), uint64(i))
			if err != nil || r.Err != nil {
				b.Fatal(err, r.Err)
			}
			events = len(r.History)
		}
	})
	verdict := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if o, err := model.Verdict(standardSpec(), uint64(i)); err != nil || o.Err != nil {
				b.Fatal(err, o.Err)
			}
		}
	})
	// The simulation alone: no checkers, the history memory reused.
	simOnly := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		s := standardSpec().WithDefaults()
		var buf sim.History
		for i := 0; i < b.N; i++ {
			cfg, err := s.Config()
			if err != nil {
				b.Fatal(err)
			}
			cfg.HistoryBuf = buf
			w, err := sim.New(cfg, uint64(i))
			if err != nil {
				b.Fatal(err)
			}
			h, err := w.Run()
			if err != nil {
				b.Fatal(err)
			}
			clear(h)
			buf = h[:0]
		}
	})
	// The floor: the same command stream straight into dispatch.
	r, _ := model.Run(standardSpec(), 0)
	type cmd struct {
		local time.Duration
		args  []string
	}
	var stream []cmd
	for _, e := range r.History {
		if e.Actor == "r1" && e.Kind == sim.KindExec {
			stream = append(stream, cmd{e.Local, e.Args})
		}
	}
	floor := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			m := miniredis.NewMiniRedis()
			m.SetTime(clock.Epoch)
			m.ClockTTL(true)
			e, _ := script.NewEngine(m, script.Options{})
			c := e.NewConn()
			for _, x := range stream {
				m.SetTime(clock.Epoch.Add(x.local))
				c.Do(x.args...)
			}
		}
	})
	// What `check` and property tests run: the design's default workload
	// under a random fault schedule, history reused.
	checkRun := func(design string) testing.BenchmarkResult {
		return testing.Benchmark(func(b *testing.B) { benchCheckRun(b, design) })
	}
	checkSetPx, checkRedlock := checkRun(model.SetPxLua), checkRun(model.Redlock)
	perRun := func(r testing.BenchmarkResult) float64 { return float64(r.T.Nanoseconds()) / float64(r.N) / 1e6 }

	fmt.Printf("locksim benchmarks (GOMAXPROCS=%d)\n\n", runtime.GOMAXPROCS(0))
	fmt.Printf("%-44s %12s %12s %10s\n", "", "time/op", "allocs/op", "B/op")
	row := func(name string, r testing.BenchmarkResult) {
		fmt.Printf("%-44s %12s %12d %10d\n", name, time.Duration(r.NsPerOp()), r.AllocsPerOp(), r.AllocedBytesPerOp())
	}
	row("EVAL release script, fast path", fast)
	row("EVAL release script, miniredis's own EVAL", slow)
	row("standard run (60s virtual), history kept", std)
	row("standard run, history reused (model.Verdict)", verdict)
	row("standard run, simulation only (no checkers)", simOnly)
	row("same command stream into dispatch (floor)", floor)
	row("check run: set-px-lua, random faults", checkSetPx)
	row("check run: redlock (5 nodes), random faults", checkRedlock)
	fmt.Printf("\nEVAL speed-up, fast vs miniredis:          %.0fx (target >= 20x)\n", float64(slow.NsPerOp())/float64(fast.NsPerOp()))
	fmt.Printf("standard run:                               %.2f ms/run, %.0f runs/s, %.0fx faster than real time (target >= 20000x)\n",
		perRun(std), 1000/perRun(std), 60_000/perRun(std))
	fmt.Printf("events per standard run:                    %d (%d commands)\n", events, len(stream))
	fmt.Printf("with history reused (sweeps, check):        %.2f ms/run, %.0fx faster than real time\n", perRun(verdict), 60_000/perRun(verdict))
	fmt.Printf("simulator overhead over raw dispatch:       %.1fx simulation only (target <= 3x); %.1fx with the checkers, %.1fx keeping the history\n",
		perRun(simOnly)/perRun(floor), perRun(verdict)/perRun(floor), perRun(std)/perRun(floor))
	fmt.Printf("check runs per second, one core:            set-px-lua %.0f, redlock %.0f\n", 1000/perRun(checkSetPx), 1000/perRun(checkRedlock))

	// Sweep scaling: the same 4*cores standard runs on 1 worker and on all.
	runs := 4 * runtime.NumCPU()
	scale := func(workers int) time.Duration {
		start := time.Now() // wall-clock ok: a benchmark report, outside any run
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					model.Run(standardSpec(), uint64(i))
				}
			}()
		}
		for i := 0; i < runs; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
		return time.Since(start)
	}
	one := scale(1)
	fmt.Printf("\nsweep scaling (%d standard runs):\n", runs)
	fmt.Printf("  1 worker:  %v (%.1f runs/s)\n", one.Round(time.Millisecond), float64(runs)/one.Seconds())
	for w := 2; w <= runtime.NumCPU(); w *= 2 {
		d := scale(w)
		fmt.Printf("  %d workers: %v (%.1f runs/s, %.2fx)\n", w, d.Round(time.Millisecond), float64(runs)/d.Seconds(), one.Seconds()/d.Seconds())
	}
	benchZoo(t)
	benchExhaustive(t)
}

// benchExhaustive prints exhaustive mode's speed per catalogue design at
// its defaults (depth 1): schedules, what the state dedup saved, wall time
// and schedules per second on all cores; then how many of the zoo's pairs
// it tells apart: a mutant is told apart when it breaks by a mechanism
// (or an invariant) its twin does not.
func benchExhaustive(t *testing.T) {
	fmt.Printf("\nexhaustive mode, depth 1, each design's defaults (all cores):\n")
	for _, d := range model.DesignIDs() {
		if d == model.LuaDesignID {
			continue
		}
		start := time.Now() // wall-clock ok: a benchmark report
		r, err := engine.Exhaustive(engine.ExhaustiveConfig{Base: model.Spec{Design: d}})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("  %-15s %6d schedules (%3d points of %3d events; %5d one per event: dedup saved %2.0f%%) in %6v, %6.0f schedules/s; %d ways it breaks\n",
			d, r.Total(), r.Points, r.Events, r.PerEvent, 100*float64(r.PerEvent-r.Total())/float64(r.PerEvent),
			took.Round(time.Millisecond), float64(r.Total())/took.Seconds(), len(r.Breaks))
	}
	apart := 0
	fmt.Printf("\nexhaustive mode on the mutant zoo (depth 1, each pair's fault kinds):\n")
	for _, m := range zoo() {
		mut := zooExhaustive(t, m.design, slices.Concat(m.opts, m.exOpts, m.mutOpts))
		twin := zooExhaustive(t, m.twin, slices.Concat(m.opts, m.exOpts, m.twinOpts))
		only := onlyIn(mut, twin)
		if len(only) > 0 {
			apart++
		}
		ex := ""
		if len(only) > 0 {
			ex = only[0]
		}
		fmt.Printf("  %-62s told apart=%-5v (%d mechanisms the twin lacks) %s\n", m.name, len(only) > 0, len(only), ex)
	}
	fmt.Printf("  score: %d of %d pairs told apart\n", apart, len(zoo()))
}

// zooExhaustive runs exhaustive mode on a zoo design with the pair's
// options (their fault kinds, topology, workload, fencing, invariants).
func zooExhaustive(t *testing.T, design any, opts []Option) *engine.ExhaustiveResult {
	var c config
	if err := setDesign(&c.check.Base, design); err != nil {
		t.Fatal(err)
	}
	for _, o := range opts {
		o(&c)
	}
	x := engine.ExhaustiveConfig{Base: c.check.Base, Invariants: c.check.Invariants}
	if len(c.check.Gen.Kinds) > 0 { // a pair without faults compares the fault-free runs, then every kind
		x.Kinds = c.check.Gen.Kinds
	}
	r, err := engine.Exhaustive(x)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// onlyIn lists the mutant's breaks (mechanism: invariants) its twin has
// no break of.
func onlyIn(mut, twin *engine.ExhaustiveResult) []string {
	has := map[string]bool{}
	for _, b := range twin.Breaks {
		for _, id := range b.Broken {
			has[b.Mechanism+": "+string(id)] = true
		}
	}
	var out []string
	for _, b := range mut.Breaks {
		for _, id := range b.Broken {
			if k := b.Mechanism + ": " + string(id); !has[k] {
				out = append(out, k)
			}
		}
	}
	return out
}

// BenchmarkCheckRun is one `check` run per op (a design's default workload
// under a random fault schedule, history reused), for benchstat.
func BenchmarkCheckRun(b *testing.B) {
	for _, design := range []string{model.SetPxLua, model.Fenced, model.Redlock} {
		b.Run(design, func(b *testing.B) { benchCheckRun(b, design) })
	}
}

// benchCheckRun runs b.N check runs of design (the engine's default
// generator, swarm on), run i with seed i.
func benchCheckRun(b *testing.B, design string) {
	c := engine.CheckConfig{Base: model.Spec{Design: design}, Gen: scenarios.Gen{Swarm: true}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, seed := c.RunSpec(i)
		if _, err := model.Verdict(s, seed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStandardRunVerdict is the standard 60s run through
// model.Verdict (what sweeps use), for benchstat.
func BenchmarkStandardRunVerdict(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if o, err := model.Verdict(standardSpec(), uint64(i)); err != nil || o.Err != nil {
			b.Fatal(err, o.Err)
		}
	}
}

// benchZoo prints the mutation score: for each mutant of the zoo, whether
// Check's defaults caught it, the share of runs that broke, the first run
// that did and about how long that took, and whether the twin held.
func benchZoo(t *testing.T) {
	fmt.Printf("\nmutation score (Check's defaults: %d runs, all cores):\n", engine.DefaultRuns)
	caught, twins, total := 0, 0, 0
	for _, m := range zoo() {
		r := runZoo(t, m)
		total++
		if r.caught {
			caught++
		}
		if !r.twinFlagged {
			twins++
		}
		first := time.Duration(0)
		if r.runs > 0 {
			first = r.mutantTime * time.Duration(r.firstRun+1) / time.Duration(r.runs)
		}
		fmt.Printf("  %-62s caught=%-5v broke %5.1f%% of runs, first at run %4d (~%v), %d fault(s); twin held=%v\n",
			m.name, r.caught, 100*r.fraction, r.firstRun, first.Round(time.Millisecond), r.faults, !r.twinFlagged)
	}
	fmt.Printf("  score: %d of %d mutants caught (%.0f%%), %d of %d twins held\n", caught, total, 100*float64(caught)/float64(total), twins, total)
}
