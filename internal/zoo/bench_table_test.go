package zoo

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"locksim"
	"locksim/clock"
	"locksim/engine"
	"locksim/internal/cputime"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/network"
	"locksim/scenarios"
	"locksim/sim"
	"locksim/sim/script"
)

// cliGCPercent is cmd/locksim's gcPercent, the CLI's GC pacing.
const cliGCPercent = 400

var (
	benchTable  = flag.Bool("benchtable", false, "print the benchmark table (make bench)")
	benchRounds = flag.Int("benchtable.rounds", 3, "rounds of the four rows the ratios compare (standard run kept, Verdict, simulation only, floor), interleaved; each row keeps its least CPU")
	benchQuick  = flag.Bool("benchtable.quick", false, "print only the speed rows, the worker scaling and the targets (no zoo, exhaustive or first-catch parts): for before/after pairs")
	benchBudget = flag.Duration("benchtable.budget", 4*time.Minute, "wall time for the bench table's zoo and exhaustive parts together; rows past it are skipped and say so (make long runs the whole zoo under exhaustive mode)")
)

// budgetLeft reports whether the zoo and exhaustive parts may start
// another row before deadline, and prints the skip once when not.
func budgetLeft(deadline time.Time, skipped *bool) bool {
	if time.Now().Before(deadline) { // wall-clock ok: a benchmark report's bound
		return true
	}
	if !*skipped {
		fmt.Printf("  (the rest skipped: past -benchtable.budget=%v)\n", *benchBudget)
		*skipped = true
	}
	return false
}

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
	eval := func(slow bool) func(b *testing.B) {
		return func(b *testing.B) {
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
		}
	}
	// The speed rows are one-core figures, as issue 29's targets are: at
	// GOMAXPROCS=1 the collector's background workers share the one core
	// instead of adding a second core's CPU time to each op. The worker
	// scaling below runs at the machine's own GOMAXPROCS again.
	procs := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(procs)
	fmt.Printf("locksim benchmarks (speed rows at GOMAXPROCS=1, worker scaling at %d; %d CPUs); cpu/op is getrusage's user+system time of the\n", procs, runtime.NumCPU())
	fmt.Printf("whole process per op (the garbage collector's threads too), which a loaded machine inflates far less\n")
	fmt.Printf("than wall time (contention for caches and cores still adds to it: compare rows of one run);\n")
	fmt.Printf("every ratio and runs/s below is of CPU time, measured in this one run; the four standard-run rows\n")
	fmt.Printf("are each the least CPU of %d interleaved rounds (-benchtable.rounds). Every figure is of this tree alone:\n", max(*benchRounds, 1))
	fmt.Printf("absolute, load-dependent (load average at the start: %s); make bench's A/B comparison (tools/benchab)\n", loadAverage())
	fmt.Printf("compares commits in one run\n\n")
	defer func() { fmt.Printf("\nload average at the end of the table: %s\n", loadAverage()) }()
	fmt.Printf("%-46s %11s %11s %10s %10s\n", "absolute (load-dependent)", "wall/op", "cpu/op", "allocs/op", "B/op")
	fast, slow := measure("EVAL release script, fast path", eval(false)), measure("EVAL release script, miniredis's own EVAL", eval(true))

	// The four rows the ratios compare, measured in interleaved rounds:
	// the standard run keeping its history, through model.Verdict, the
	// simulation alone (no checkers, the history memory reused), and the
	// floor (the same command stream straight into dispatch).
	var events int
	stream := floorStream()
	rows := measureRounds(*benchRounds,
		row{"standard run (60s virtual), history kept", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r, err := model.Run(standardSpec(), uint64(i))
				if err != nil || r.Err != nil {
					b.Fatal(err, r.Err)
				}
				events = len(r.History)
			}
		}},
		row{"standard run, history reused (model.Verdict)", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if o, err := model.Verdict(standardSpec(), uint64(i)); err != nil || o.Err != nil {
					b.Fatal(err, o.Err)
				}
			}
		}},
		row{"standard run, simulation only (no checkers)", BenchmarkStandardRunSimOnly},
		row{"same command stream into dispatch (floor)", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				runFloor(stream)
			}
		}})
	std, verdict, simOnly, floor := rows[0], rows[1], rows[2], rows[3]
	// What `check` and property tests run: the design's default workload
	// under a random fault schedule, history reused; at the Go runtime's
	// default GC pacing (GOGC=100, what a library user's test runs with)
	// and at the CLI's (GOGC=400: see cmd/locksim's main).
	checkRun := func(name, design string) measured {
		return measure(name, func(b *testing.B) { benchCheckRun(b, design) })
	}
	checkSetPx := checkRun("check run: set-px-lua, random faults", model.SetPxLua)
	checkRedlock := checkRun("check run: redlock (5 nodes), random faults", model.Redlock)
	old := debug.SetGCPercent(cliGCPercent)
	checkSetPxCLI := checkRun("  the same, GOGC=400 (the CLI's pacing)", model.SetPxLua)
	checkRedlockCLI := checkRun("  redlock, GOGC=400", model.Redlock)
	debug.SetGCPercent(old)

	ratio := func(a, b measured) float64 { return a.cpu.Seconds() / b.cpu.Seconds() }
	fmt.Printf("\nEVAL speed-up, fast vs miniredis:          %.0fx (target >= 20x)\n", ratio(slow, fast))
	fmt.Printf("standard run:                               %.2f ms CPU/run, %.0f runs/s, %.0fx faster than real time (target >= 20000x)\n",
		ms(std.cpu), 1/std.cpu.Seconds(), 60/std.cpu.Seconds())
	fmt.Printf("events per standard run:                    %d (%d commands)\n", events, len(stream))
	fmt.Printf("with history reused (sweeps, check):        %.2f ms CPU/run, %.0fx faster than real time\n", ms(verdict.cpu), 60/verdict.cpu.Seconds())
	fmt.Printf("simulator overhead over raw dispatch (CPU): %.2fx simulation only; %.2fx with the checkers, %.2fx keeping the history\n",
		ratio(simOnly, floor), ratio(verdict, floor), ratio(std, floor))
	fmt.Printf("check runs per CPU second (one core):       set-px-lua %.0f (%.0f at GOGC=400), redlock %.0f (%.0f at GOGC=400)\n",
		1/checkSetPx.cpu.Seconds(), 1/checkSetPxCLI.cpu.Seconds(), 1/checkRedlock.cpu.Seconds(), 1/checkRedlockCLI.cpu.Seconds())

	// Sweep scaling: the same runs on 1 worker and on 2 (and more, up to
	// the CPUs), wall and CPU time per run for each.
	runtime.GOMAXPROCS(procs)
	runs := 64 * runtime.NumCPU()
	// The workers take their next run from a shared counter, as
	// engine's fan-out (engine/fanout.go) does: no channel handoff per
	// run to wake the other core.
	scale := func(workers int) (wall, cpu time.Duration) {
		c0 := cputime.Process()
		start := time.Now() // wall-clock ok: a benchmark report, outside any run
		var wg sync.WaitGroup
		var next atomic.Int64
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1) - 1); i < runs; i = int(next.Add(1) - 1) {
					model.Verdict(standardSpec(), uint64(i))
				}
			}()
		}
		wg.Wait()
		return time.Since(start), cputime.Process() - c0
	}
	// sweep measures 1 worker against 2 (and more) at one GC pacing and
	// prints it; it returns the 2-worker speed-up and CPU-per-run growth.
	// At the runtime's default pacing one worker's collector runs on the
	// idle second core, which flatters the one-worker wall time; the CLI's
	// pacing (GOGC=400) is what `locksim check` runs its workers with.
	sweep := func(pacing string, gcPercent int) (speedup, cpuGrowth float64) {
		old := debug.SetGCPercent(gcPercent)
		defer debug.SetGCPercent(old)
		oneWall, oneCPU := scale(1)
		fmt.Printf("  %s:\n", pacing)
		fmt.Printf("    1 worker:  %8v wall (%6.1f runs/s), %.2f ms CPU per run\n", oneWall.Round(time.Millisecond), float64(runs)/oneWall.Seconds(), ms(oneCPU/time.Duration(runs)))
		for w := 2; w <= max(2, runtime.GOMAXPROCS(0)); w *= 2 {
			d, c := scale(w)
			if w == 2 {
				speedup, cpuGrowth = oneWall.Seconds()/d.Seconds(), c.Seconds()/oneCPU.Seconds()
			}
			fmt.Printf("    %d workers: %8v wall (%6.1f runs/s, %.2fx), %.2f ms CPU per run (%+.0f%%)\n", w, d.Round(time.Millisecond),
				float64(runs)/d.Seconds(), oneWall.Seconds()/d.Seconds(), ms(c/time.Duration(runs)), 100*(c.Seconds()/oneCPU.Seconds()-1))
		}
		return speedup, cpuGrowth
	}
	fmt.Printf("\nworker scaling (%d standard runs, model.Verdict; wall time depends on what else the machine runs):\n", runs)
	speedup, cpuGrowth := sweep("GOGC=400 (the CLI's pacing)", cliGCPercent)
	sweep("GOGC=100 (the runtime's default, a library user's go test)", 100)

	// The targets of issues 29 and 41, each met or not, from the figures above.
	fmt.Printf("\ntargets (issues 29 and 41; from the rows above, absolute and load-dependent where runs/s):\n")
	target := func(name string, met bool, got string) {
		verdict := "NOT MET"
		if met {
			verdict = "met"
		}
		fmt.Printf("  %-62s %-7s %s\n", name, verdict, got)
	}
	target("standard run with checkers / dispatch floor <= 2.0x", ratio(verdict, floor) <= 2.0, fmt.Sprintf("%.2fx", ratio(verdict, floor)))
	target("simulation alone / dispatch floor <= 1.6x", ratio(simOnly, floor) <= 1.6, fmt.Sprintf("%.2fx", ratio(simOnly, floor)))
	target("check run, set-px-lua >= 4,200 runs/s on one core", 1/checkSetPx.cpu.Seconds() >= 4200, fmt.Sprintf("%.0f runs/s", 1/checkSetPx.cpu.Seconds()))
	target("check run, redlock on 5 masters >= 1,050 runs/s on one core", 1/checkRedlock.cpu.Seconds() >= 1050, fmt.Sprintf("%.0f runs/s", 1/checkRedlock.cpu.Seconds()))
	if runtime.GOMAXPROCS(0) >= 2 {
		target("1 -> 2 workers >= 1.85x wall, CPU per run within 5% (GOGC=400)", speedup >= 1.85 && cpuGrowth <= 1.05,
			fmt.Sprintf("%.2fx wall, CPU per run %+.0f%% (wall needs 2 idle cores)", speedup, 100*(cpuGrowth-1)))
	}
	fmt.Printf("  %-62s %-7s %s\n", "real clients >= 500x on 1 node, >= 200x on 5", "", "see realclient's table at the end of make bench")
	if *benchQuick {
		return
	}
	deadline := time.Now().Add(*benchBudget) // wall-clock ok: a benchmark report's bound
	benchZoo(t, deadline)
	benchExhaustive(t, deadline)
	benchFirstCatch(t) // bench_catch_test.go: its own 60s bound
}

// loadAverage is the machine's 1, 5 and 15 minute load averages from
// /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown (no /proc/loadavg)"
}

// measured is one row of the table: per op, wall and CPU time.
type measured struct {
	testing.BenchmarkResult
	cpu time.Duration // CPU time per op (getrusage, every thread)
}

// measure runs f as a benchmark, prints its row and returns it. The CPU
// time is that of the last round testing.Benchmark ran (the one it
// reports), setup included, over its b.N ops.
func measure(name string, f func(b *testing.B)) measured {
	m := measureQuiet(f)
	m.print(name)
	return m
}

// measureQuiet is measure without the row printed.
func measureQuiet(f func(b *testing.B)) measured {
	runtime.GC()
	var cpu time.Duration
	r := testing.Benchmark(func(b *testing.B) {
		c0 := cputime.Process()
		f(b)
		cpu = (cputime.Process() - c0) / time.Duration(b.N)
	})
	return measured{BenchmarkResult: r, cpu: cpu}
}

func (m measured) print(name string) {
	fmt.Printf("%-46s %11v %11v %10d %10d\n", name, roundDur(time.Duration(m.NsPerOp())), roundDur(m.cpu), m.AllocsPerOp(), m.AllocedBytesPerOp())
}

// row is one benchmark of the table, by name.
type row struct {
	name string
	f    func(b *testing.B)
}

// measureRounds measures rows in rounds times, interleaved (each row
// once, then again), keeps each row's round with the least CPU per op,
// and prints the rows. On a machine others use, a row measured while
// they ran is slower in CPU time too (caches, memory bandwidth): rows
// interleaved and each at its best compare like moments, where single
// measurements in a row swung a ratio by half.
func measureRounds(rounds int, rows ...row) []measured {
	best := make([]measured, len(rows))
	for r := 0; r < max(rounds, 1); r++ {
		for i, x := range rows {
			if m := measureQuiet(x.f); r == 0 || m.cpu < best[i].cpu {
				best[i] = m
			}
		}
	}
	for i, x := range rows {
		best[i].print(x.name)
	}
	return best
}

// roundDur keeps a row's figure to about four digits.
func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond)
	}
	return d
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// benchExhaustive prints exhaustive mode's speed per catalogue design at
// its defaults (depth 1): schedules, what the state dedup saved, wall time
// and schedules per second on all cores; then how many of the zoo's pairs
// it tells apart: a mutant is told apart when it breaks by a mechanism
// (or an invariant) its twin does not.
func benchExhaustive(t *testing.T, deadline time.Time) {
	skipped := false
	fmt.Printf("\nexhaustive mode, depth 1, each design's defaults (all cores):\n")
	for _, d := range model.DesignIDs() {
		if d == model.LuaDesignID {
			continue
		}
		if !budgetLeft(deadline, &skipped) {
			break
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
	apart, tried := 0, 0
	skipped = false
	fmt.Printf("\nexhaustive mode on the mutant zoo (depth 1, each pair's fault kinds):\n")
	for _, m := range zoo() {
		if !budgetLeft(deadline, &skipped) {
			break
		}
		tried++
		mut, err := zooExhaustive(t, m.design, slices.Concat(m.opts, m.exOpts, m.mutOpts), m.ex)
		if err != nil {
			fmt.Printf("  %-62s refused: %v\n", m.name, err)
			continue
		}
		twin, err := zooExhaustive(t, m.twin, slices.Concat(m.opts, m.exOpts, m.twinOpts), m.ex)
		if err != nil {
			t.Fatal(err)
		}
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
	fmt.Printf("  score: %d of %d pairs told apart (%d of %d tried)\n", apart, tried, tried, len(zoo()))
}

// zooExhaustive runs exhaustive mode on a zoo design with the pair's
// options (their fault kinds, topology, workload, fencing, invariants).
func zooExhaustive(t *testing.T, design any, opts []locksim.Option, fit exhaustiveFit) (*engine.ExhaustiveResult, error) {
	cc, err := locksim.CheckPlan(design, opts...)
	if err != nil {
		t.Fatal(err)
	}
	x := engine.ExhaustiveConfig{Base: cc.Base, Invariants: cc.Invariants, Depth: fit.depth, Durations: fit.durations}
	if len(cc.Gen.Kinds) > 0 { // a pair without faults compares the fault-free runs, then every kind
		x.Kinds = cc.Gen.Kinds
	}
	if fit.kinds != nil {
		x.Kinds = fit.kinds
	}
	return engine.Exhaustive(x)
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
	c := engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: design}, Gen: scenarios.Gen{Swarm: true}}}
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
// locksim.Check's defaults caught it, the share of runs that broke, the first run
// that did and about how long that took, and whether the twin held.
func benchZoo(t *testing.T, deadline time.Time) {
	skipped := false
	fmt.Printf("\nmutation score (locksim.Check's defaults: %d runs, all cores):\n", engine.DefaultRuns)
	caught, twins, total := 0, 0, 0
	for _, m := range zoo() {
		if !budgetLeft(deadline, &skipped) {
			break
		}
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
	fmt.Printf("  score: %d of %d mutants caught (%.0f%%), %d of %d twins held (%d of %d pairs tried)\n", caught, total, 100*float64(caught)/float64(max(total, 1)), twins, total, total, len(zoo()))
}

// BenchmarkStandardRunSimOnly is the standard 60s run's simulation alone
// (no checkers, the history memory reused): the table's "simulation only"
// row, for benchstat and profiles.
func BenchmarkStandardRunSimOnly(b *testing.B) {
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
}

// floorCmd is one command of the standard run's stream on r1: the node's
// clock when it ran, and the command.
type floorCmd struct {
	local time.Duration
	args  []string
}

// floorStream returns the commands r1 ran in the standard run with seed 0.
func floorStream() []floorCmd {
	r, _ := model.Run(standardSpec(), 0)
	var stream []floorCmd
	for _, e := range r.History {
		if e.Actor == "r1" && e.Kind == sim.KindExec {
			stream = append(stream, floorCmd{e.Local, e.Args})
		}
	}
	return stream
}

// runFloor replays stream straight into dispatch (SetTime per command, no
// simulation): the floor the simulator's overhead is measured against.
func runFloor(stream []floorCmd) {
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

// BenchmarkStandardRunFloor is the table's floor row (the standard run's
// command stream into dispatch), for same-run pairs with
// BenchmarkStandardRunSimOnly and BenchmarkStandardRunVerdict.
func BenchmarkStandardRunFloor(b *testing.B) {
	stream := floorStream()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runFloor(stream)
	}
}

// BenchmarkStandardRunCheckers is the checkers alone on the standard
// run's history (seed 0): the index rebuilt (history.Index.Reuse, as
// model.Verdict does) and every invariant judged.
func BenchmarkStandardRunCheckers(b *testing.B) {
	s := standardSpec().WithDefaults()
	r, err := model.Run(s, 0)
	if err != nil {
		b.Fatal(err)
	}
	ix := history.New(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		invariant.CheckIndex(ix.Reuse(r.History), s.CheckConfig())
	}
}

// BenchmarkStandardRunKept is the standard 60s run through model.Run,
// which keeps the history (the table's "history kept" row; exhaustive
// mode, the matrix and case files run so).
func BenchmarkStandardRunKept(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r, err := model.Run(standardSpec(), uint64(i)); err != nil || r.Err != nil {
			b.Fatal(err, r.Err)
		}
	}
}
