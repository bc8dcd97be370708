package harness

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// Settings is what the shared check options set: the one option set of
// locksim.Check, Fuzz, Matrix, Sweep and Danger and of realclient's
// Check, Run, Exhaustive and Fuzz. Each adapter starts from its own
// defaults (OptionTable says which differ by run kind), applies the
// options in order, then resolves the settings into its run: the
// adapters' WithTTL, WithFaults, ... are these options, not copies.
type Settings struct {
	// Campaign holds the spec (Base: TTL, options, clients, topology,
	// fencing, workload), the generator (Gen: fault kinds, pause
	// places), the run budget (Runs, For, Seed) and the counted
	// invariants.
	engine.Campaign
	// Workers is how many runs go at once (0: the adapter's default).
	Workers int
	// Interleave is the same-instant ordering policy ("fixed", "random",
	// "pct:D"; "" for the default), which each run kind takes its own way.
	Interleave string
	// CaseDir is where a failing case is saved; ReportDir, if set, where
	// its HTML report goes.
	CaseDir, ReportDir string
	// Depth is exhaustive mode's faults per schedule (0: random runs);
	// MaxSchedules and Durations bound it.
	Depth, MaxSchedules int
	Durations           []string
	// RandomOnly names the options given that shape random runs only
	// (WithPauseAt, WithRuns, WithBudget), for exhaustive mode to refuse.
	RandomOnly []string
	// Progress, if set, is called after each run (schedule, in exhaustive
	// mode) with the runs done and planned (0: not known); Context, if
	// set, stops the check between runs once it is done (an interrupted
	// check has no verdict). The engine's CheckConfig, Inputs and
	// ExhaustiveConfig take them as they are.
	Progress func(done, planned int)
	Context  context.Context
	// Refused are the options given a value that cannot apply (a TTL,
	// runs or workers of zero or less), in the caller's words, for
	// OptionError: left as the zero value, each would silently mean the
	// default, and the verdict would be about a configuration the caller
	// did not write.
	Refused []string
}

// Option is one shared check option.
type Option func(*Settings)

func randomOnly(s *Settings, name string) { s.RandomOnly = append(s.RandomOnly, name) }

// WithTTL sets the lease TTL.
func WithTTL(d time.Duration) Option {
	return func(s *Settings) {
		s.Base.Options.TTL = d
		if d <= 0 {
			s.Refused = append(s.Refused, "WithTTL("+d.String()+"): the lease TTL must be positive (leave WithTTL out for the default, 1s)")
		}
	}
}

// WithOptions sets every design option at once.
func WithOptions(o model.Options) Option { return func(s *Settings) { s.Base.Options = o } }

// WithClients names the contending clients.
func WithClients(names ...string) Option { return func(s *Settings) { s.Base.Clients = names } }

// WithTopology sets masters, replicas per master, persistence and failover.
func WithTopology(t model.Topology) Option { return func(s *Settings) { s.Base.Topology = t } }

// WithFencing sets the resource's fencing rule.
func WithFencing(f model.Fencing) Option { return func(s *Settings) { s.Base.Fencing = f } }

// WithWorkload sets what each client does; its zero fields are drawn.
func WithWorkload(w model.Workload) Option { return func(s *Settings) { s.Base.Workload = w } }

// WithFaults chooses the fault kinds runs draw from; with none, runs have
// no faults.
func WithFaults(kinds ...sim.FaultKind) Option {
	return func(s *Settings) { s.Gen.Kinds = append([]sim.FaultKind{}, kinds...) }
}

// WithPauseAt restricts where pauses (and client crashes) are placed.
func WithPauseAt(places ...scenarios.Place) Option {
	return func(s *Settings) { s.Gen.PauseAt = places; randomOnly(s, "WithPauseAt") }
}

// WithInterleave sets how events due at the same instant are ordered.
func WithInterleave(policy string) Option { return func(s *Settings) { s.Interleave = policy } }

// WithInvariants makes only these invariants count as a failure.
func WithInvariants(ids ...invariant.ID) Option {
	return func(s *Settings) { s.Invariants = ids }
}

// WithCaseDir sets where failing cases are saved.
func WithCaseDir(dir string) Option { return func(s *Settings) { s.CaseDir = dir } }

// WithReportDir writes the HTML report of a failure to dir.
func WithReportDir(dir string) Option { return func(s *Settings) { s.ReportDir = dir } }

// WithRuns sets how many seeded runs a check makes.
func WithRuns(n int) Option {
	return func(s *Settings) {
		s.Runs = n
		randomOnly(s, "WithRuns")
		if n <= 0 {
			s.Refused = append(s.Refused, "WithRuns("+strconv.Itoa(n)+"): want at least 1 run (leave WithRuns out for the default)")
		}
	}
}

// WithBudget runs until d of wall time has passed.
func WithBudget(d time.Duration) Option {
	return func(s *Settings) { s.For = d; randomOnly(s, "WithBudget") }
}

// WithSeed sets the base seed: run i uses seed+i.
func WithSeed(seed uint64) Option { return func(s *Settings) { s.Seed = seed } }

// WithWorkers sets how many runs go at once.
func WithWorkers(n int) Option {
	return func(s *Settings) {
		s.Workers = n
		if n <= 0 {
			s.Refused = append(s.Refused, "WithWorkers("+strconv.Itoa(n)+"): want at least 1 worker (leave WithWorkers out for the default)")
		}
	}
}

// WithExhaustive places every fault instead of drawing runs: depth faults
// per schedule.
func WithExhaustive(depth int) Option { return func(s *Settings) { s.Depth = depth } }

// WithMaxSchedules bounds exhaustive mode's schedules.
func WithMaxSchedules(n int) Option { return func(s *Settings) { s.MaxSchedules = n } }

// WithDurations narrows exhaustive mode's duration classes.
func WithDurations(names ...string) Option {
	return func(s *Settings) { s.Durations = append([]string{}, names...) }
}

// WithProgress calls f after each run (or exhaustive schedule) with the
// runs done and the runs planned (0 when not known: a time budget, or
// rapid's runs without -rapid.checks).
func WithProgress(f func(done, planned int)) Option { return func(s *Settings) { s.Progress = f } }

// WithContext stops the check once ctx is done: no new run starts, and
// the test fails saying it was interrupted after N runs (a partial tally
// is no verdict).
func WithContext(ctx context.Context) Option { return func(s *Settings) { s.Context = ctx } }

// OptionError refuses the options given a value that cannot apply
// (Settings.Refused), the first one named; nil when none was. Every
// adapter calls it once its options are applied, before any run.
func (s *Settings) OptionError() error {
	if len(s.Refused) == 0 {
		return nil
	}
	return errors.New(s.Refused[0])
}

// RandomOnlyError is exhaustive mode's refusal of options that shape
// random runs only (Settings.RandomOnly), in the words every adapter uses;
// nil when none was given.
func (s *Settings) RandomOnlyError() error {
	if len(s.RandomOnly) == 0 {
		return nil
	}
	return errors.Errorf("%s applies to random runs, not to exhaustive mode", strings.Join(s.RandomOnly, ", "))
}

// OptionRow is one shared check option: its name (the constructor's, in
// this package, in locksim and in realclient), what it does, and its
// default for each run kind: a model check (locksim.Check) and a real
// client's check (realclient.Check).
type OptionRow struct {
	Name, Doc, Model, Real string
}

// OptionTable is every shared check option. locksim and realclient each
// offer every row under its name, as an adapter of this package's
// constructor (TestNoMirroredOptions); docs/options.md's check options
// list is this table (TestCheckOptionsDocIsTheTable).
var OptionTable = []OptionRow{
	{"WithTTL", "the lease TTL", "1s", "1s"},
	{"WithOptions", "every design option at once (the design options above)", "the design's", "the design's; a real client uses TTL, AcquireWait, CallTimeout, Quorum, Extend, RenewEvery"},
	{"WithClients", "the contending clients (processes)", "drawn per run, 2-4; exhaustive: the design's (A, B)", "drawn per run, 2-4; exhaustive: the design's (A, B)"},
	{"WithTopology", "masters, replicas per master, persistence, sentinel failover", "the design's", "the design's"},
	{"WithFencing", "the resource's fencing rule", "off", "off (a strict rule needs a Fencer)"},
	{"WithWorkload", "what each client does; zero fields are drawn per run", "all drawn", "2 cycles; the rest drawn"},
	{"WithFaults", "the fault kinds runs draw from (none: no faults)", "scenarios.DefaultKinds", "scenarios.DefaultKinds; clock faults to nodes only"},
	{"WithPauseAt", "where pauses and client crashes are placed (random runs only)", "everywhere", "everywhere (at the wire's marks)"},
	{"WithInterleave", "the order of same-instant events", `"fixed"; also "random", "pct:D"`, "InterleaveFixed; also InterleaveRandom; no PCT (refused: the governor's choices have no PCT scheduler)"},
	{"WithInvariants", "the invariants that count as a failure", "all", "all"},
	{"WithCaseDir", "where a failing case is saved", "testdata/locksim", "testdata/locksim"},
	{"WithReportDir", "where a failure's HTML report is written", "$LOCKSIM_REPORT_DIR, else none", "$LOCKSIM_REPORT_DIR, else none"},
	{"WithRuns", "how many seeded runs (random runs only)", "engine.DefaultRuns (2000); -locksim.runs", "rapid's -rapid.checks (100); with it, seeded runs"},
	{"WithBudget", "run until this much wall time has passed (random runs only)", "none; -locksim.for", "none; with it, seeded runs"},
	{"WithSeed", "the base seed: run i uses seed+i", "1; -locksim.seed", "1 (seeded and exhaustive runs)"},
	{"WithWorkers", "runs at once (the result does not depend on it)", "GOMAXPROCS", "1: runs seed process-wide generators (shards instead)"},
	{"WithExhaustive", "place every fault, depth faults per schedule, instead of drawing runs", "off (random runs)", "off (rapid's runs)"},
	{"WithMaxSchedules", "exhaustive mode's bound on schedules", "engine.DefaultMaxSchedules", "engine.DefaultMaxSchedules"},
	{"WithDurations", "exhaustive mode's duration classes (engine.DurClasses)", "all", "all"},
	{"WithProgress", "a callback after each run or schedule: runs done, runs planned", "none", "none (rapid's runs: planned is -rapid.checks)"},
	{"WithContext", "stop between runs once the context is done (no verdict: interrupted)", "none", "none"},
}

// OptionsDoc is docs/options.md's list of the shared check options: a
// Markdown table of OptionTable.
func OptionsDoc() string {
	var b strings.Builder
	b.WriteString("| option | what it sets | default: locksim.Check | default: realclient.Check |\n|---|---|---|---|\n")
	for _, r := range OptionTable {
		b.WriteString("| `" + r.Name + "` | " + r.Doc + " | " + r.Model + " | " + r.Real + " |\n")
	}
	return b.String()
}
