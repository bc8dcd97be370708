package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"locksim/engine"
	"locksim/internal/bounded"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/scenarios"
	"locksim/sim"
	"locksim/verdict"
)

const checkUsage = `check (--design ID | --acquire FILE --release FILE [--renew FILE]) [flags]

Runs the design under --runs random runs (or for --for of wall time); run i
uses seed --seed+i to draw its configuration (unless fixed by a flag) and
its fault schedule. Exit 0 nothing counted broke, 1 a violation, 2 bad input,
a run that stopped with an error, or no verdict (no run made, nothing
acquired, no drawn fault took effect, no counted invariant decided, an
--invariants the design cannot judge), 130 interrupted by SIGINT, SIGTERM or
SIGHUP (the tally so far is printed marked PARTIAL; -o FILE is kept as it
was, no case is saved).

` + shardHelp

func cmdCheck(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("check", checkUsage, stdout)
	design := fs.String("design", "", "catalogue design ID (see 'locksim list')")
	lua := addLuaFlags(fs)
	scenario := fs.String("scenario", "", "start from a scenario's (ID or file) topology, options and workload; faults are still drawn")
	fencing := fs.String("fencing", "", "resource fencing: "+model.FencingNames()+" (default: strict for fenced designs, else off)")
	nodes := fs.Int("nodes", 0, "independent Redis masters (default 1; 5 for redlock); Lua scripts run on each with a majority quorum")
	replicas := fs.Int("replicas", 0, "replicas per master (default 0; 1 for wait-replica); with replicas Sentinel fails over")
	persistence := fs.String("persistence", "none", "what a crashed Redis node keeps: "+sim.PersistenceNames())
	g := addGenFlags(fs)
	clients := fs.Int("clients", 0, "number of contending clients (2-4 drawn per run by default)")
	work := fs.Duration("work", 0, "critical-section length (drawn per run by default: short, about the TTL, or longer for designs that renew)")
	cycles := fs.Int("cycles", 0, "lock cycles per client (1-3 drawn per run by default)")
	stagger := fs.Duration("stagger", 0, "each client starts this long after the one before it (drawn per run by default: none or 1-50ms)")
	opts := addOptionFlags(fs, "check", "")
	downAfter := fs.Duration("down-after", 0, "Sentinel's down-after with replicas (drawn per run relative to the TTL by default)")
	minReplicas := addMinReplicasFlags(fs)
	server := addServerFlag(fs)
	invs := fs.String("invariants", invariant.Names(invariant.All), "the invariants that count as a failure, comma-separated (e.g. lost-update to ask only whether the data survives; token-order means token-unique,fencing; fencing applies to a nonstrict resource only)")
	interleave := fs.String("interleave", "fixed", "how events due at the same virtual instant are ordered: fixed (the order they were scheduled in), random (uniform among the concurrent ones) or pct:D (PCT with bug depth D; pct:D/H draws its change points among the first H choice points); the summary states the bound")
	runs := fs.Int("runs", engine.DefaultRuns, "number of runs")
	budget := fs.Duration("for", 0, "run until this much wall time has passed instead of --runs (deterministic given the runs it reached, which it prints)")
	seed := fs.Uint64("seed", 1, "base seed: run i uses seed+i")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers (results do not depend on it)")
	shard := fs.String("shard", "", "run only shard i of n (i/n): runs with index%n == i; auto: i and n from the environment (below)")
	shardCount := fs.Int("shards", 0, "with --shard auto: the number of shards (else LOCKSIM_SHARD_COUNT)")
	ttl := fs.Duration("ttl", 0, "lease TTL (default 1s)")
	readers := fs.Int("readers", 0, "clients, the last ones, that only read under a read lock (read-write-lock; default half the clients)")
	format := fs.String("format", "text", "output format: text, json (locksim.check/v1, for merge), markdown (a table for a pull request or a CI job summary) or html (one page: the verdicts, what ran, the summary and the minimal case's timeline; with -o FILE)")
	out := fs.String("o", "", "write the summary to this file instead of stdout")
	export := fs.String("export", "", "also write the minimal failing run as the lock log a wrapper around the clients' lock calls would write, for 'locksim check-log' (docs/check-log.md)")
	save := fs.String("save", defaultSave, "where to save the minimal failing case (sharded: locksim-failure-shardIofN.json)")
	progress := fs.Bool("progress", isTerminal(stderr), "show progress on stderr (default on a terminal: redrawn 4 times a second; elsewhere a line every 5s)")
	ex := addExhaustiveFlags(fs)
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	base, err := designSpec(*design, lua, *scenario != "")
	if err != nil {
		return exitUsage, err
	}
	if *scenario != "" {
		sc, err := loadScenario(*scenario)
		if err != nil {
			return exitUsage, usagef("--scenario: %v", err)
		}
		if base.Design == "" {
			base.Design = sc.Design
		}
		spec, na, err := engine.InScenario(sc, base)
		switch {
		case err != nil:
			return exitUsage, usagef("--scenario: %v", err)
		case na != "":
			return exitUsage, usagef("--scenario: %s", na)
		}
		spec.Faults = nil // drawn per run
		base = spec
	}
	if err := applyCheckFlags(fs, &base, checkFlags{fencing: *fencing, nodes: *nodes, replicas: *replicas, persistence: *persistence,
		clients: *clients, work: *work, stagger: *stagger, cycles: *cycles, downAfter: *downAfter, ttl: *ttl, readers: *readers, opts: opts}); err != nil {
		return exitUsage, err
	}
	if len(base.Clients) == 1 {
		// As --clients 1 is refused: a scenario file may list one.
		return exitUsage, usagef("--scenario %s has one client: one client has nobody to exclude, so mutual exclusion and lost updates could only read held; list two clients, or give --clients 2", bounded.Clip(*scenario))
	}
	if err := minReplicas(&base); err != nil {
		return exitUsage, err
	}
	if err := server(&base); err != nil {
		return exitUsage, err
	}
	if il, err := sim.ParseInterleave(*interleave); err != nil {
		return exitUsage, usagef("--%v", err)
	} else if il.Policy != sim.InterleaveFixed {
		if *ex.on {
			return exitUsage, usagef("--interleave draws orders per run; exhaustive mode tries every order within a bound instead: give --preemptions P")
		}
		base.Interleave = il.String()
	}
	if *g.partitions != "reset" && *g.partitions != "blackhole" {
		return exitUsage, usagef("--partitions %s: want reset or blackhole", bounded.Q(*g.partitions))
	}
	blackhole := *g.partitions == "blackhole"
	if !*ex.on {
		for _, name := range exhaustiveOnly {
			if flagSet(fs, name) {
				return exitUsage, usagef("--%s goes with --exhaustive", name)
			}
		}
	}
	if *ex.on {
		if err := distinctOutputs([]namedPath{{"-o", *out}}, append(lua.inputs(), scenarioInput("--scenario", *scenario))...); err != nil {
			return exitUsage, err
		}
		if err := exhaustiveOutputs(*out, *ex.saveDir, append(lua.inputs(), scenarioInput("--scenario", *scenario))); err != nil {
			return exitUsage, err
		}
		return cmdExhaustive(fs, ex, base, exhaustiveRun{faults: *g.faults, invariants: *invs, seed: *seed, workers: *workers,
			format: *format, out: *out, progress: *progress, blackhole: blackhole}, stdout, stderr)
	}
	switch {
	case flagSet(fs, "runs") && (*runs < 1 || *runs > engine.MaxRuns):
		return exitUsage, usagef("--runs %d: give 1 to %d (limits: runs)", *runs, engine.MaxRuns)
	case *budget < 0 || *budget > engine.MaxBudget:
		return exitUsage, usagef("--for %v: give a positive wall time up to %v (limits: budget)", *budget, engine.MaxBudget)
	case *workers < 1 || *workers > engine.MaxWorkers:
		return exitUsage, usagef("--workers %d: give 1 to %d (limits: workers)", *workers, engine.MaxWorkers)
	}
	defer paceWorkers(*workers)() // the collector's pacing for two workers or more (gc.go)
	if err := checkFormat("check", *format); err != nil {
		return exitUsage, err
	}
	gen, err := g.gen(blackhole)
	if err != nil {
		return exitUsage, err
	}
	invList, err := invariant.Parse(*invs)
	if err != nil {
		return exitUsage, usagef("--invariants: %v", err)
	}
	si, sn, from, err := resolveShard(*shard, *shardCount, flagSet(fs, "shards"), os.LookupEnv)
	if err != nil {
		return exitUsage, err
	}
	if from != "" {
		fmt.Fprintf(stderr, "locksim check: shard %d/%d (%s)\n", si, sn, from)
	}
	if *save == defaultSave && sn > 1 {
		*save = fmt.Sprintf("locksim-failure-shard%dof%d.json", si, sn) // shards do not overwrite each other
	}
	if err := distinctOutputs([]namedPath{{"-o", *out}, {"--save", *save}, {"--export", *export}}, append(lua.inputs(), scenarioInput("--scenario", *scenario))...); err != nil {
		return exitUsage, err
	}
	if err := checkWritable(namedPath{"-o", *out}, namedPath{"--save", *save}); err != nil {
		return exitUsage, err
	}
	if flagSet(fs, "for") && *budget <= 0 {
		return exitUsage, usagef("--for %v: give a positive wall time, or leave --for out to make --runs runs", *budget)
	}
	nRuns := *runs
	if flagSet(fs, "for") && !flagSet(fs, "runs") {
		nRuns = 0 // only the budget bounds the runs
	}
	c := engine.CheckConfig{
		Campaign: engine.Campaign{
			Base:       base,
			Gen:        gen,
			Runs:       nRuns,
			For:        *budget,
			Seed:       *seed,
			Shard:      si,
			Shards:     sn,
			Invariants: invList,
		},
		Now:     wallClock,
		Workers: *workers,
	}
	if err := c.Validate(); err != nil {
		return exitUsage, usagef("%v", err)
	}
	sum, err := openSummary("check", *format, *out, *save, stdout, c)
	if err != nil {
		return exitUsage, err
	}
	c.Each = sum.each()
	var endProgress func()
	c.Progress, endProgress = startProgress(*progress, stderr, "runs", c.For)
	// SIGINT, SIGTERM or SIGHUP stops the check between runs: the engine
	// finishes the runs it started, the output file keeps its previous
	// contents, and a partial summary is printed.
	ctx, stop := interruptContext()
	c.Context = ctx
	res, err := engine.Check(c)
	stop()
	endProgress()
	if err != nil {
		sum.abort()
		return exitUsage, usagef("%v", err)
	}
	if res.Verdict().Kind == verdict.Interrupted {
		sum.abort()
		return checkInterrupted(res, *out, *format, stdout, stderr)
	}
	if err := exportMinimal(*export, res, stderr); err != nil {
		sum.abort()
		return exitUsage, err
	}
	return sum.finish(res, stdout, stderr)
}

// checkInterrupted prints the tally of an interrupted check, marked
// PARTIAL, and says on stderr that there is no verdict.
func checkInterrupted(res *engine.CheckResult, out, format string, stdout, stderr io.Writer) (int, error) {
	planned := "runs"
	if res.Planned > 0 {
		planned = fmt.Sprintf("of %d planned runs", res.Planned)
	}
	w := partialTo(out, format, stdout, stderr)
	fmt.Fprintf(w, "PARTIAL: interrupted after %d %s; the tally below is of those runs only, and no verdict\n", res.Runs, planned)
	report.SummaryText(w, res, "")
	fmt.Fprintf(stderr, "locksim check: interrupted: no verdict; it ran %d %s (%d broke a counted invariant so far), saved no case, and wrote the partial summary above%s\n",
		res.Runs, planned, res.BrokenRuns, keptNote(out))
	return exitInterrupted, nil
}

// genFlags are check's flags for what its runs draw (scenarios.Gen).
type genFlags struct {
	faults, partitions, pauseAt, links *string
	delayMax                           *time.Duration
	maxFaults                          *int
	swarm                              *bool
}

func addGenFlags(fs *flags) genFlags {
	return genFlags{
		faults:     fs.String("faults", kindNames(scenarios.DefaultKinds), "fault kinds to draw from, comma-separated: "+kindNames(sim.FaultKinds)+"; none: runs without faults (does the design work at all?)"),
		partitions: fs.String("partitions", "reset", "what a partition does to a stream it cuts: reset (a firewall that rejects: the client learns at once) or blackhole (packets vanish: the client learns only from its own timeouts, as behind a dead host)"),
		pauseAt:    fs.String("pause-at", "any", "where pauses and client crashes go: acquire, critical, write, release, watchdog, time or any"),
		delayMax:   fs.Duration("delay-max", 0, "upper bound of generated network delays (default 2 x TTL)"),
		links:      fs.String("links", "all", "which links delays and drops hit: redis, resource or all"),
		maxFaults:  fs.Int("max-faults", 3, "at most this many faults per run (1-20)"),
		swarm:      fs.Bool("swarm", true, "draw per run what no flag fixes: clients, work, cycles, latency, call timeout, down-after"),
	}
}

// gen refuses impossible values and returns what the runs draw from.
func (g genFlags) gen(blackhole bool) (scenarios.Gen, error) {
	switch {
	case *g.maxFaults < 1 || *g.maxFaults > 20:
		return scenarios.Gen{}, usagef("--max-faults %d: give 1 to 20", *g.maxFaults)
	case *g.delayMax < 0 || *g.delayMax > model.MaxRunTime:
		return scenarios.Gen{}, usagef("--delay-max %v: give up to %v (limits: run-time)", *g.delayMax, model.MaxRunTime)
	}
	kinds, err := parseKinds(*g.faults)
	if err != nil {
		return scenarios.Gen{}, err
	}
	places, err := scenarios.ParsePlaces(*g.pauseAt)
	if err != nil {
		return scenarios.Gen{}, usagef("--pause-at: %v", err)
	}
	if !slices.Contains([]string{"redis", "resource", "all"}, *g.links) {
		return scenarios.Gen{}, usagef("--links %s: want redis, resource or all", bounded.Q(*g.links))
	}
	return scenarios.Gen{Kinds: kinds, PauseAt: places, DelayMax: *g.delayMax, Links: scenarios.Links(*g.links), MaxFaults: *g.maxFaults, Swarm: *g.swarm, Blackhole: blackhole}, nil
}

// checkFlags are the flags that shape the base spec, shared by check,
// matrix and sweep.
type checkFlags struct {
	fencing, persistence                      string
	nodes, replicas, clients, cycles, readers int
	work, stagger, downAfter, ttl             time.Duration
	// opts are the command's design-option flags (model.OptionTable).
	opts *optionFlags
	// nodesNotTopology: the command's --nodes is not the topology's
	// masters (run's counts the masters Lua scripts run on).
	nodesNotTopology bool
}

// applyCheckFlags puts the flags the user gave into the base spec,
// refusing impossible values; an explicit 0 is refused rather than read as
// "the default".
func applyCheckFlags(fs *flags, s *model.Spec, f checkFlags) error {
	t := s.Traits()
	set := func(name string) bool { return flagSet(fs, name) }
	switch {
	case set("nodes") && !f.nodesNotTopology && (f.nodes < 1 || f.nodes > model.MaxMasters):
		return usagef("--nodes %d: give 1 to %d (limits: masters)", f.nodes, model.MaxMasters)
	case set("nodes") && !f.nodesNotTopology && !t.Quorum && s.Lua == nil:
		return usagef("--nodes applies to designs that take a quorum (redlock) and to Lua designs; %s takes the lock on one primary", s.Design)
	case f.replicas < 0 || f.replicas > model.MaxReplicas:
		return usagef("--replicas %d: give 0 to %d (limits: replicas)", f.replicas, model.MaxReplicas)
	case set("replicas") && f.replicas < t.Replicas:
		return usagef("--replicas %d: %s waits for a replica's acknowledgement and needs at least %d", f.replicas, s.Design, t.Replicas)
	case set("ttl") && f.ttl <= 0:
		return usagef("--ttl %v: the lease TTL must be positive", f.ttl)
	case set("ttl") && f.ttl > model.MaxTTL:
		return usagef("--ttl %v: at most %v (limits: ttl)", f.ttl, model.MaxTTL)
	case set("clients") && f.clients == 1:
		return usagef("--clients 1: one client has nobody to exclude, so mutual exclusion and lost updates could only read held; give 2 to 26")
	case set("clients") && (f.clients < 1 || f.clients > 26):
		return usagef("--clients %d: give 2 to 26", f.clients)
	case set("readers") && !t.Shared:
		return usagef("--readers applies to designs that take read locks (read-write-lock); %s does not", s.Design)
	case set("readers") && set("clients") && f.readers > f.clients:
		return usagef("--readers %d: more than the %d clients", f.readers, f.clients)
	case !slices.Contains(sim.Persistences, sim.Persistence(f.persistence)):
		return usagef("--persistence %s: want %s", bounded.Q(f.persistence), sim.PersistenceNames())
	case f.fencing != "" && !slices.Contains(model.Fencings, model.Fencing(f.fencing)):
		return usagef("--fencing %s: want %s", bounded.Q(f.fencing), model.FencingNames())
	}
	if err := f.checkRanges(fs); err != nil {
		return err
	}
	if err := f.opts.check(fs, *s); err != nil {
		return err
	}
	f.opts.apply(fs, s)
	f.put(fs, s)
	return nil
}

// checkRanges refuses the plain out-of-range values of the flags given.
func (f checkFlags) checkRanges(fs *flags) error {
	for _, d := range []struct {
		name    string
		v, hi   time.Duration
		measure string
	}{
		{"work", f.work, model.MaxTTL, "length"}, {"stagger", f.stagger, model.MaxTTL, "length"}, {"down-after", f.downAfter, model.MaxRunTime, "time"},
	} {
		if flagSet(fs, d.name) && (d.v <= 0 || d.v > d.hi) {
			return usagef("--%s %v: give a positive %s up to %v", d.name, d.v, d.measure, d.hi)
		}
	}
	for _, n := range []struct {
		name     string
		v, hi    int
		limitTag string
	}{
		{"cycles", f.cycles, model.MaxCycles, " (limits: cycles)"}, {"readers", f.readers, 26, ""},
	} {
		if flagSet(fs, n.name) && (n.v < 1 || n.v > n.hi) {
			return usagef("--%s %d: give 1 to %d%s", n.name, n.v, n.hi, n.limitTag)
		}
	}
	return nil
}

// put puts the spec flags given (not the design options: optionFlags)
// into s.
func (f checkFlags) put(fs *flags, s *model.Spec) {
	set := func(name string) bool { return flagSet(fs, name) }
	if f.fencing != "" {
		s.Fencing = model.Fencing(f.fencing)
	}
	if set("nodes") && !f.nodesNotTopology {
		s.Topology.Masters = f.nodes
	}
	if set("replicas") {
		s.Topology.Replicas = f.replicas
	}
	if set("persistence") || s.Topology.Persistence == "" {
		s.Topology.Persistence = sim.Persistence(f.persistence)
	}
	if set("clients") {
		s.Clients = nil
		for i := range f.clients {
			s.Clients = append(s.Clients, string(rune('A'+i)))
		}
	}
	for _, p := range []struct {
		name string
		put  func()
	}{
		{"work", func() { s.Workload.Work = f.work }}, {"stagger", func() { s.Workload.Start = f.stagger }},
		{"cycles", func() { s.Workload.Cycles = f.cycles }}, {"ttl", func() { s.Options.TTL = f.ttl }},
		{"readers", func() { s.Workload.Readers = f.readers }},
	} {
		if set(p.name) {
			p.put()
		}
	}
	if set("down-after") {
		s.Topology.Sentinel.Enabled, s.Topology.Sentinel.DownAfter = true, f.downAfter
	}
}

func kindNames(ks []sim.FaultKind) string {
	var out []string
	for _, k := range ks {
		out = append(out, string(k))
	}
	return strings.Join(out, ",")
}

// parseKinds parses --faults: kinds, comma-separated, or "none" for runs
// without faults (an empty, non-nil list: scenarios.Gen draws none).
func parseKinds(s string) ([]sim.FaultKind, error) {
	if strings.TrimSpace(s) == "none" {
		return []sim.FaultKind{}, nil
	}
	var out []sim.FaultKind
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !slices.Contains(sim.FaultKinds, sim.FaultKind(p)) {
			return nil, usagef("unknown fault kind %s in --faults (known: %s)", bounded.Q(p), kindNames(sim.FaultKinds))
		}
		out = append(out, sim.FaultKind(p))
	}
	if len(out) == 0 {
		return nil, usagef("--faults names no fault kind (known: %s; none for runs without faults)", kindNames(sim.FaultKinds))
	}
	return out, nil
}

const defaultSave = "locksim-failure.json"

// keptNote says that -o FILE, if given, was left as it was.
func keptNote(out string) string {
	if out == "" || out == "-" {
		return ""
	}
	return " (" + out + " is as it was before)"
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
