package locksim

import (
	"context"
	"flag"
	"fmt"

	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/pkg/errors"

	// Package consensus's designs (etcd-lease, etcd-lease-unfenced)
	// register themselves in model's catalogue from its init, so Check,
	// Matrix and the other entry points can name them.
	_ "locksim/consensus"
	"locksim/engine"
	"locksim/harness"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/network"
	"locksim/report"
	"locksim/scenarios"
	"locksim/sim"
	"locksim/verdict"
)

// The command-line flags of tests that use Check (as rapid has
// -rapid.checks): they override the options for a whole `go test` run.
var (
	flagRuns = flag.Int("locksim.runs", 0, "runs per locksim.Check (0: the option's, else engine.DefaultRuns)")
	flagSeed = flag.Uint64("locksim.seed", 0, "base seed of locksim.Check's runs (0: the option's, else 1)")
	flagFor  = flag.Duration("locksim.for", 0, "time budget per locksim.Check (0: the option's, else none)")
)

// TB is what Check needs of a test: *testing.T and *testing.B satisfy it.
type TB = harness.TB

// config is what Check runs: the shared settings (harness.Settings, set
// by the shared options) and the root package's own options; checkConfig
// resolves them into check.
type config struct {
	harness.Settings
	check   engine.CheckConfig      // the resolved random campaign (checkConfig)
	seeds   int                     // Matrix and Sweep: seeds per cell
	x, y    engine.Axis             // Sweep's axes
	exhaust engine.ExhaustiveConfig // WithPreemptions, WithStopAtFirst
}

// Option configures Check.
type Option func(*config)

// shared adapts a shared check option (harness.OptionTable) to Check's.
func shared(o harness.Option) Option { return func(c *config) { o(&c.Settings) } }

// WithTTL sets the lease TTL (default 1s; harness.WithTTL).
func WithTTL(d time.Duration) Option { return shared(harness.WithTTL(d)) }

// WithOptions sets every design option at once (TTL, deadline, quorum...;
// harness.WithOptions).
func WithOptions(o model.Options) Option { return shared(harness.WithOptions(o)) }

// WithDeadline turns on the client-deadline option: the lease budgeted on the client's
// monotonic clock from before the request, minus a margin.
func WithDeadline() Option { return func(c *config) { c.Base.Options.Deadline = true } }

// WithClients names the contending clients (default: drawn per run, 2-4;
// harness.WithClients).
func WithClients(names ...string) Option { return shared(harness.WithClients(names...)) }

// WithTopology sets masters, replicas per master and persistence
// (harness.WithTopology).
func WithTopology(t model.Topology) Option { return shared(harness.WithTopology(t)) }

// WithFencing sets the resource's fencing rule (harness.WithFencing).
func WithFencing(f model.Fencing) Option { return shared(harness.WithFencing(f)) }

// WithWorkload sets what each client does; its zero fields are still
// drawn per run (see WithSwarm; harness.WithWorkload).
func WithWorkload(w model.Workload) Option { return shared(harness.WithWorkload(w)) }

// WithFaults chooses the fault kinds runs draw from (default
// scenarios.DefaultKinds: all but evict).
// With no kinds, runs have no faults (harness.WithFaults).
func WithFaults(kinds ...sim.FaultKind) Option { return shared(harness.WithFaults(kinds...)) }

// WithPauseAt restricts where pauses and client crashes are placed
// (default: everywhere; random runs only; harness.WithPauseAt).
func WithPauseAt(places ...scenarios.Place) Option { return shared(harness.WithPauseAt(places...)) }

// WithGen replaces the whole generator configuration.
func WithGen(g scenarios.Gen) Option {
	return func(c *config) { c.Gen = g; c.RandomOnly = append(c.RandomOnly, "WithGen") }
}

// WithSwarm turns the per-run drawing of the configuration (clients, work,
// cycles, latency, call timeout, down-after) on or off (default on).
func WithSwarm(on bool) Option {
	return func(c *config) { c.Gen.Swarm = on; c.RandomOnly = append(c.RandomOnly, "WithSwarm") }
}

// WithInterleave sets how events due at the same virtual instant are
// ordered (model.Spec.Interleave, `locksim check --interleave`): "fixed"
// (the default: the order they were scheduled in), "random" (uniform among
// the concurrent ones) or "pct:D" (PCT with depth D; "pct:D/H" draws its
// change points among the first H choice points). The saved case carries
// it, so a case found under an interleaving replays under it
// (harness.WithInterleave).
func WithInterleave(policy string) Option { return shared(harness.WithInterleave(policy)) }

// WithRuns sets how many runs Check makes (default engine.DefaultRuns,
// what `locksim check` makes; -locksim.runs overrides it; harness.WithRuns).
func WithRuns(n int) Option { return shared(harness.WithRuns(n)) }

// WithBudget makes Check run until d of wall time has passed instead of
// a fixed number of runs (-locksim.for overrides it; harness.WithBudget).
func WithBudget(d time.Duration) Option { return shared(harness.WithBudget(d)) }

// WithSeed sets the base seed: run i uses seed+i (default 1;
// -locksim.seed overrides it; harness.WithSeed).
func WithSeed(seed uint64) Option { return shared(harness.WithSeed(seed)) }

// WithWorkers sets how many runs go at once (default GOMAXPROCS; the
// result does not depend on it; harness.WithWorkers).
func WithWorkers(n int) Option { return shared(harness.WithWorkers(n)) }

// WithProgress calls f after each run (each schedule, in exhaustive
// mode; each cell, in Sweep) with the runs done and planned, in Check,
// Fuzz, Sweep and Danger; Matrix takes no progress callback
// (harness.WithProgress).
func WithProgress(f func(done, planned int)) Option { return shared(harness.WithProgress(f)) }

// WithContext stops Check (and Fuzz, Sweep, Matrix, Danger) between runs
// once ctx is done; an interrupted check fails saying so, with no verdict
// (harness.WithContext).
func WithContext(ctx context.Context) Option { return shared(harness.WithContext(ctx)) }

// WithInvariants makes only these invariants count as a failure, e.g.
// WithInvariants(invariant.LostUpdate) to ask whether the data survives
// rather than whether the lease held. An invariant that cannot break for
// the design and resource (invariant.Fencing on a strict resource, which
// enforces it itself) is refused: counting it would judge nothing
// (harness.WithInvariants).
func WithInvariants(ids ...invariant.ID) Option { return shared(harness.WithInvariants(ids...)) }

// WithCaseDir sets where failing cases are saved (default testdata/locksim;
// harness.WithCaseDir).
func WithCaseDir(dir string) Option { return shared(harness.WithCaseDir(dir)) }

// WithReportDir writes the HTML report of a failure to dir (one file per
// test, dir/CaseName(test).html), for a CI job to upload, creating dir when
// it is missing. Without it, the environment variable LOCKSIM_REPORT_DIR
// names the directory (ReportDirEnv: a CI job sets it for every test at
// once); with neither, no report is written (harness.WithReportDir).
func WithReportDir(dir string) Option { return shared(harness.WithReportDir(dir)) }

// ReportDirEnv is the environment variable that gives Check a report
// directory when no WithReportDir does.
const ReportDirEnv = harness.ReportDirEnv

// WithExhaustive makes Check place every fault instead of drawing runs
// (engine.Exhaustive, `locksim check --exhaustive`): each fault kind with
// each duration class at every point of the fault-free run, and with depth
// 2 a second fault at every point of the run the first led to. The
// configuration is the one the other options fix, each field they leave
// zero taking the design's default (nothing is drawn); WithFaults narrows
// the kinds, WithSeed fixes the latencies. A passing test logs the bounded
// guarantee; a failing one lists the distinct ways the design broke and
// saves the first one's smallest schedule as the test's case
// (harness.WithExhaustive).
func WithExhaustive(depth int) Option { return shared(harness.WithExhaustive(depth)) }

// WithMaxSchedules raises (or lowers) exhaustive mode's bound on the
// schedules it runs (default engine.DefaultMaxSchedules;
// harness.WithMaxSchedules).
func WithMaxSchedules(n int) Option { return shared(harness.WithMaxSchedules(n)) }

// WithDurations narrows exhaustive mode's duration classes ("ttl/2",
// "ttl+", ... see engine.DurClasses; harness.WithDurations).
func WithDurations(names ...string) Option { return shared(harness.WithDurations(names...)) }

// WithPreemptions makes exhaustive mode also try, on the fault-free run
// and on every fault schedule that broke nothing, every ordering of at
// most p same-instant choices (0 to engine.MaxPreemptions; `locksim check
// --exhaustive --preemptions P`): where two or more concurrent events are
// ready at one instant, another of them first. With WithFaults() (no
// kinds) only the fault-free run's orderings are explored.
func WithPreemptions(p int) Option { return func(c *config) { c.exhaust.Preemptions = p } }

// WithStopAtFirst makes exhaustive mode stop at its first break: a
// counterexample, not a guarantee.
func WithStopAtFirst() Option { return func(c *config) { c.exhaust.StopAtFirst = true } }

// WithLatency fixes the network's default latency of every link (not
// drawn per run; default 1-2ms, drawn per run under WithSwarm): a LAN of
// constant latency puts two clients' requests on a node at the same
// instant, where WithInterleave's schedulers reorder them.
func WithLatency(l network.Latency) Option {
	return func(c *config) { c.Base.Network.Default = l }
}

// CheckPlan is the random campaign Check runs for design under opts (the
// -locksim.* flags applied), without running it: for tools that measure
// Check, such as make bench's table and the mutant zoo's searches
// (internal/zoo).
func CheckPlan(design any, opts ...Option) (engine.CheckConfig, error) {
	c, err := checkConfig(design, opts)
	return c.check, err
}

// Check verifies a lock design in a test. It runs engine.DefaultRuns
// random runs (the same generator and budget as `locksim check`) over all
// cores; each run draws its configuration and fault schedule from its seed.
// design is a catalogue ID (string), a model.Design (your own Go design)
// or *model.LuaScripts.
//
// A failing test names the design and the broken invariants (the same
// message for the same bug); its log says how many runs broke and which
// run first, shows the shrunk schedule, the configuration, each violation
// explained, the timeline, and how to replay it. The case is saved to
// testdata/locksim/CaseName(test).json (the test's name when it is short
// and plain, TestMyLock.json): while it is there, Check replays it first
// and fails fast if it still breaks (commit it to keep the regression,
// delete it once it no longer applies).
func Check(t TB, design any, opts ...Option) {
	t.Helper()
	c, err := checkConfig(design, opts)
	if err != nil {
		t.Fatalf("locksim.Check: %v", err)
		return
	}
	h := c.harness()
	if h.ReplaySaved(t) {
		return
	}
	if c.Depth != 0 {
		c.exhaustive(t, h)
		return
	}
	h.Campaign(t, c.check, func(res *engine.CheckResult) string {
		return h.HeldText(res, harness.Seeds(c.check.Seed, res.Runs, c.check.Shard, c.check.Shards, c.check.Runs))
	})
}

// harness is Check's harness: its messages name the design; a saved case
// replays through Case.Replay (the history hash must match).
func (c *config) harness() *harness.Harness {
	name := designName(c.check.Base)
	return &harness.Harness{Prefix: "locksim", ErrPrefix: "locksim.Check", Who: "design " + name, Design: name,
		CaseDir: c.CaseDir, ReportDir: c.ReportDir,
		Rerun: func(sc engine.Case) (*model.Result, error) { return sc.Replay(c.check.Base.Custom) }}
}

// checkConfig is Check's configuration: the defaults, the design, the
// options in order, then the -locksim.* flags, resolved into c.check.
func checkConfig(design any, opts []Option) (config, error) {
	c := config{}
	c.CaseDir, c.ReportDir = filepath.Join("testdata", "locksim"), os.Getenv(ReportDirEnv)
	c.Gen.Swarm = true
	c.Seed = 1
	if err := setDesign(&c.Base, design); err != nil {
		return config{}, err
	}
	for _, o := range opts {
		o(&c)
	}
	if err := c.OptionError(); err != nil {
		return config{}, err
	}
	if *flagRuns > 0 {
		c.Runs = *flagRuns
	}
	if *flagSeed > 0 {
		c.Seed = *flagSeed
	}
	if *flagFor > 0 {
		c.For = *flagFor
	}
	if len(c.Invariants) > 0 {
		ids, err := invariant.Parse(invariant.Names(c.Invariants))
		if err != nil {
			return config{}, err
		}
		c.Invariants = ids
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	c.resolve()
	c.check.Now = time.Now // the budget only; no run sees it
	return c, nil
}

// resolve puts the settings into c.check: the random campaign they make.
func (c *config) resolve() {
	c.check.Campaign = c.Campaign
	c.check.Base.Interleave = c.Interleave
	c.check.Workers = c.Workers
	c.check.Progress, c.check.Context = c.Progress, c.Context
}

// exhaustiveConfig is exhaustive mode on the configuration the options
// fix (WithExhaustive's depth, 1 by default).
func (c *config) exhaustiveConfig() (engine.ExhaustiveConfig, error) {
	if err := c.RandomOnlyError(); err != nil {
		return engine.ExhaustiveConfig{}, err
	}
	c.resolve()
	x := c.exhaust
	x.Base, x.Seed, x.Depth, x.Workers, x.Invariants = c.check.Base, c.Seed, c.Depth, c.Workers, c.Invariants
	x.Progress, x.Context = c.Progress, c.Context
	x.MaxSchedules, x.Durations = c.MaxSchedules, c.Durations
	if x.Depth == 0 {
		x.Depth = 1
	}
	if c.Gen.Kinds != nil {
		x.Kinds = c.Gen.Kinds
	}
	return x, nil
}

// exhaustive is Check under WithExhaustive.
func (c *config) exhaustive(t TB, h *harness.Harness) {
	t.Helper()
	x, err := c.exhaustiveConfig()
	if err != nil {
		t.Fatalf("locksim.Check: %v", err)
		return
	}
	res, err := engine.Exhaustive(x)
	if err != nil {
		h.Stop(t, err)
		return
	}
	switch v := res.Verdict(); v.Kind {
	case verdict.Broken:
	case verdict.Held:
		t.Logf("locksim: %s", res.Guarantee())
		return
	case verdict.Stopped:
		// The stopped schedule's faults, which the verdict's words leave out.
		e := res.FirstError
		h.Stop(t, fmt.Sprintf("schedule %d (%s) stopped: %s", e.Index, strings.Join(e.Lines(), "; "), e.Error))
		return
	default:
		h.Stop(t, v)
		return
	}
	var b strings.Builder
	if err := report.ExhaustiveText(&b, res, 10, nil); err != nil {
		t.Fatalf("locksim.Check: %v", err)
		return
	}
	first := res.Breaks[0]
	r := res.Baseline
	if len(first.Smallest.Faults) > 0 || first.Smallest.Preempt != "" {
		if r, err = res.Rerun(first.Smallest); err != nil {
			t.Fatalf("locksim.Check: %v", err)
			return
		}
	}
	saved := h.Save(t.Logf, t.Name(), r)
	t.Logf("locksim: %s\nthe first way it breaks, %s:\n%s", b.String(), first.Mechanism, FailureReport(r, saved, t.Name()))
	var broke []invariant.ID // every counted invariant some schedule broke, not only the first way's
	for _, id := range invariant.All {
		if res.Counts[id] > 0 {
			broke = append(broke, id)
		}
	}
	t.Fatalf("locksim: design %s broke %s (%d of %d schedules)", res.Design, invariant.Names(broke), res.BrokenSchedules, res.Total())
}

// setDesign puts a design given as a catalogue ID, a model.Design or Lua
// scripts into a spec.
func setDesign(s *model.Spec, design any) error {
	switch d := design.(type) {
	case string:
		if _, err := model.LookupDesign(d); err != nil {
			return err
		}
		s.Design = d
	case model.Design:
		s.Custom, s.Design = d, d.Name()
	case *model.LuaScripts:
		if err := d.Validate(); err != nil {
			return err
		}
		s.Design, s.Lua = model.LuaDesignID, d
	default:
		return errors.Errorf("design must be a catalogue ID, a model.Design or *model.LuaScripts, got %T", design)
	}
	return nil
}

func designName(s model.Spec) string { return harness.DesignName(s) }

// FailureReport is what Check logs for a failing run: the configuration,
// the schedule, the violations explained (report.ViolationsText: those
// that share a cause as one block), the timeline lanes and key events
// (report.TimelineText), and how to replay it (harness.FailureReport).
func FailureReport(r *model.Result, casePath, testName string) string {
	return harness.FailureReport(r, casePath, testName)
}

// CaseName is the file name, without its extension, that Check gives a
// test's saved case (testdata/locksim/NAME.json) and HTML report
// (NAME.html); realclient.Check uses it too (harness.CaseName).
func CaseName(testName string) string { return harness.CaseName(testName) }

// SaveReport writes r's HTML report to dir/CaseName(testName).html,
// creating dir when it is missing, atomically, and returns the path
// (harness.SaveReport).
func SaveReport(dir, testName string, r *model.Result) (string, error) {
	return harness.SaveReport(dir, testName, r)
}

// Case is one run saved to a file (see engine.Case).
type Case = engine.Case

// LoadCase reads a case file.
func LoadCase(path string) (Case, error) { return engine.LoadCase(path) }

// NewCase records a finished run as a case.
func NewCase(r *model.Result) Case { return engine.NewCase(r) }
