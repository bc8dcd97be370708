package realclient

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"

	"locksim/engine"
	"locksim/harness"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/risk"
	"locksim/scenarios"
	"locksim/sim"
)

// config is what Check, Run and RunScenario run: the shared settings
// (harness.Settings, set by the shared options) and a real client's own.
type config struct {
	harness.Settings
	name         string
	genFault     func(t *rapid.T, s model.Spec) []sim.Fault
	redisOptions func(*redis.Options)
	section      CriticalSection
	caller       Caller
	onLockError  LockErrorPolicy
	interleave   Interleave      // Settings.Interleave, resolved by newConfig
	riskMethod   risk.Method     // WithRiskMethod
	lockKeys     string          // WithLockKeys
	keyQuorum    int             // WithKeyQuorum
	valueArg     int             // WithValueArg
	goroutines   int             // WithGoroutines
	linked       map[string]bool // the library modules the runs linked (Result.Modules)
}

// Option configures Check, Run and RunScenario.
type Option func(*config)

// shared adapts a shared check option (harness.OptionTable) to a real
// client's.
func shared(o harness.Option) Option { return func(c *config) { o(&c.Settings) } }

// WithName names the lock under test in messages and case files (default
// "real-client"); its runs' design is DesignPrefix + name.
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithTTL sets the lease TTL the run is about (default 1s): Env.TTL, the
// fault generator's time scale, the liveness bound (harness.WithTTL).
func WithTTL(d time.Duration) Option { return shared(harness.WithTTL(d)) }

// WithOptions sets every option at once. What a real client uses of them:
// TTL, AcquireWait (Lock's context deadline), CallTimeout (the resource's),
// Quorum (for the checkers, on several masters), Extend and RenewEvery
// (the watchdog for an Extender) (harness.WithOptions).
func WithOptions(o model.Options) Option { return shared(harness.WithOptions(o)) }

// WithClients names the contending client processes (default: drawn per
// run, 2-4; exhaustive mode's A, B; harness.WithClients).
func WithClients(names ...string) Option { return shared(harness.WithClients(names...)) }

// WithTopology sets masters (one go-redis client each in Env.Clients),
// replicas per master, persistence and sentinel failover
// (harness.WithTopology).
func WithTopology(t model.Topology) Option { return shared(harness.WithTopology(t)) }

// WithFencing sets the resource's fencing rule (default off; strict
// rules need a Lock that is a Fencer; harness.WithFencing).
func WithFencing(f model.Fencing) Option { return shared(harness.WithFencing(f)) }

// WithWorkload sets what each client does (default 2 cycles, the rest
// drawn per run; harness.WithWorkload).
func WithWorkload(w model.Workload) Option { return shared(harness.WithWorkload(w)) }

// WithFaults chooses the fault kinds generated runs draw from (default
// scenarios.DefaultKinds). Clock faults go to nodes only. A client crash
// stops the process's goroutines for good and resets its connections;
// with a restart, setup builds a new process with fresh lock objects
// (harness.WithFaults).
func WithFaults(kinds ...sim.FaultKind) Option { return shared(harness.WithFaults(kinds...)) }

// WithPauseAt restricts where pauses are placed (see scenarios.Place;
// harness.WithPauseAt).
func WithPauseAt(places ...scenarios.Place) Option { return shared(harness.WithPauseAt(places...)) }

// WithSchedule replaces the fault generator: gen draws a run's faults from
// rapid for its spec (the configuration already drawn).
func WithSchedule(gen func(t *rapid.T, s model.Spec) []sim.Fault) Option {
	return func(c *config) { c.genFault = gen }
}

// WithInvariants makes only these invariants count as a failure
// (harness.WithInvariants).
func WithInvariants(ids ...invariant.ID) Option { return shared(harness.WithInvariants(ids...)) }

// WithCaseDir sets where failing cases are saved (default testdata/locksim;
// harness.WithCaseDir).
func WithCaseDir(dir string) Option { return shared(harness.WithCaseDir(dir)) }

// WithReportDir writes the HTML report of a failure to
// dir/locksim.CaseName(test).html, creating dir when it is missing, for a
// CI job to upload. Without it, LOCKSIM_REPORT_DIR (locksim.ReportDirEnv)
// names the directory, as for locksim.Check; with neither, none is written
// (harness.WithReportDir).
func WithReportDir(dir string) Option { return shared(harness.WithReportDir(dir)) }

// WithRedisOptions changes the go-redis options of every client before
// it is made (timeouts, retries, pool size). Dialer and the address are
// the simulation's: leave them.
func WithRedisOptions(f func(*redis.Options)) Option {
	return func(c *config) { c.redisOptions = f }
}

// WithCriticalSection runs f as the critical section instead of the
// standard read-modify-write of the resource; f gets the process's Lock in
// Resource.Lock, to check it (Until) or extend it as your code does. Run
// needs the same WithCriticalSection, WithCaller and WithOnLockError as
// the Check whose case it replays: a case file holds the spec and the
// seed, not code.
func WithCriticalSection(f CriticalSection) Option { return func(c *config) { c.section = f } }

func newConfig(opts []Option) (config, error) {
	c := config{linked: map[string]bool{}, name: "real-client", caller: CallerValidity, onLockError: LockErrorSkip}
	c.CaseDir, c.ReportDir = filepath.Join("testdata", "locksim"), os.Getenv(harness.ReportDirEnv)
	c.Gen = scenarios.Gen{Kinds: slices.Clone(scenarios.DefaultKinds), Swarm: true, NodeClocksOnly: true, Wire: true}
	c.Base.Workload = model.Workload{Cycles: 2}
	for _, o := range opts {
		o(&c)
	}
	if err := c.OptionError(); err != nil {
		return c, err
	}
	mode, err := interleaveMode(c.Interleave)
	if err != nil {
		return c, err
	}
	c.interleave = mode
	if c.name == "" || strings.ContainsAny(c.name, " \t\n") {
		return c, errors.Errorf("name %q must be one non-empty word", c.name)
	}
	if err := validateCaller(c.caller, c.onLockError); err != nil {
		return c, err
	}
	if c.lockKeys != "" {
		if _, err := path.Match(c.lockKeys, ""); err != nil {
			return c, errors.Errorf("WithLockKeys(%q): %v", c.lockKeys, err)
		}
	}
	if c.keyQuorum < 0 {
		return c, errors.Errorf("WithKeyQuorum(%d): want at least 1", c.keyQuorum)
	}
	if err := validateGoroutines(c.Base, c.goroutines); err != nil {
		return c, err
	}
	if len(c.Invariants) > 0 {
		ids, err := invariant.Parse(invariant.Names(c.Invariants))
		if err != nil {
			return c, err
		}
		c.Invariants = ids
	}
	// No defaults yet: the generator's swarm draws what the user left
	// zero (clients, work, latency, call timeout...), then fills in the
	// rest (scenarios.Gen.RunRapid ends with Spec.WithDefaults).
	c.Base.Design = DesignPrefix + c.name
	if err := c.Base.CanCount(c.Invariants); err != nil {
		return c, err
	}
	return c, nil
}

func (c *config) run(t *testing.T, s model.Spec, seed uint64, setup Setup) (*model.Result, error) {
	r, err := runOnce(t, runConfig{name: c.name, setup: setup, spec: s, redisOptions: c.redisOptions, section: c.section, caller: c.caller, onLockError: c.onLockError, seed: seed, interleave: c.interleave, lockKeys: c.lockKeys, keyQuorum: c.keyQuorum, valueArg: c.valueArg, goroutines: c.goroutines})
	if err == nil {
		r.CountOnly(c.Invariants)
		c.noteLinked(r)
	}
	return r, err
}

// Check runs rapid property checks of a real client under generated fault
// schedules, as locksim.Check does for a design: each run builds every
// client process's lock with setup, runs the workload, and must keep every
// invariant (or those of WithInvariants). The number of runs is rapid's
// -rapid.checks (default 100); with WithRuns or WithBudget, seeded runs
// as locksim.Check makes them. Either way each run goes through the
// engine (engine.Check for seeded runs, engine.Inputs for rapid's), which
// judges, tallies, reports progress (WithProgress) and stops on the
// context (WithContext) as for a model; a check that holds logs the lines
// a model check logs (harness.HeldText) and the library modules linked. A case saved by an earlier failure of the
// same test is replayed first: while it still fails, the test fails at
// once (commit it to pin the regression; delete it once fixed).
//
// On failure the test fails with a stable message naming the lock and the
// broken invariants; the log shows the minimal schedule, the violations,
// the timeline, the case file saved and how to replay it (with Run, from
// Go, with the same setup).
//
// rapid's "[rapid] draw ..." lines (every choice of the failing case) are
// left out of the log unless the test runs with -v or -rapid.v: the
// failure report already names the configuration, schedule and seed.
//
// Check must not run in parallel with other tests of the binary: it seeds
// crypto/rand and math/rand, which are global, for each run.
func Check(t *testing.T, setup Setup, opts ...Option) {
	t.Helper()
	c, err := newConfig(opts)
	if err != nil {
		t.Fatal(err)
		return
	}
	h := c.harness(t, setup)
	if h.ReplaySaved(t) {
		return
	}
	if c.Workers > 1 {
		t.Logf("realclient: %s", oneWorker(c.Workers))
	}
	if c.Depth != 0 {
		c.checkExhaustive(t, setup, h)
		return
	}
	if c.Runs < 0 || c.For < 0 {
		t.Fatalf("realclient: runs %d and budget %v must not be negative", c.Runs, c.For)
		return
	}
	if c.Shards > 1 && c.Runs == 0 && c.For == 0 {
		t.Fatalf("realclient: WithShard(%d, %d) shares out seeded runs: give WithRuns (rapid's runs are not sharded)", c.Shard, c.Shards)
		return
	}
	if c.Runs > 0 || c.For > 0 {
		c.checkSeeded(t, setup, h)
		return
	}
	c.checkRapid(t, setup, h)
}

// harness is Check's harness: its messages name the lock; a saved case
// runs again through setup, with WithInvariants' invariants counted, or
// else the case's own.
func (c *config) harness(t *testing.T, setup Setup) *harness.Harness {
	return &harness.Harness{Prefix: "realclient", Who: c.name, Design: c.Base.Design, CaseDir: c.CaseDir, ReportDir: c.ReportDir,
		Report: c.failureReport, ListSep: ", ",
		Rerun: func(sc engine.Case) (*model.Result, error) {
			invs := c.Invariants
			if len(invs) == 0 {
				invs = sc.Invariants
			}
			s, err := resolved(sc.Spec)
			if err != nil {
				return nil, err
			}
			r, err := c.run(t, s, sc.Seed, setup)
			if err == nil && r.Err == nil {
				r.CountOnly(invs)
			}
			return r, err
		}}
}

// failureReport is harness.FailureReport with a real client's replay line.
func failureReport(r *model.Result, casePath, testName string) string {
	text := harness.FailureReport(r, casePath, testName)
	if note := unseedable(r.History); note != "" {
		text += "note: " + note + "\n"
	}
	if harness.NotSaved(casePath) {
		return text // no replay line names a file that is not a case
	}
	return harness.ReplayLine(text, linkedLine(r.Modules)+fmt.Sprintf("replay: go test -run '^%s$' (Check replays the saved case first),\n   or from Go: c, _ := locksim.LoadCase(%q); r, err := realclient.Run(t, c, yourSetup)\n", regexp.QuoteMeta(testName), casePath))
}

// Run replays one case (saved by Check, or built by hand) with setup: the
// same spec, seed and setup give the same history, whose hash the case
// records (Case.HistoryHash). The case must name a real client
// (DesignPrefix); opts may add what a case file cannot hold (WithRedisOptions,
// WithCriticalSection), and WithInvariants overrides the case's own.
func Run(t *testing.T, c engine.Case, setup Setup, opts ...Option) (*model.Result, error) {
	t.Helper()
	name, ok := strings.CutPrefix(c.Spec.Design, DesignPrefix)
	if !ok {
		return nil, errors.Errorf("the case's design %q is not a real client (%s...); replay it with locksim", c.Spec.Design, DesignPrefix)
	}
	cfg, err := newConfig(append([]Option{WithName(name), WithInvariants(c.Invariants...)}, opts...))
	if err != nil {
		return nil, err
	}
	s, err := resolved(c.Spec)
	if err != nil {
		return nil, err
	}
	return cfg.run(t, s, c.Seed, setup)
}

// resolved is a spec resolved once (model.Spec.Resolve, the placeholder
// standing in for the design, whose traits a real client's runs do not
// have): its defaults applied, as a run takes it, and its Custom as given.
func resolved(s model.Spec) (model.Spec, error) {
	given := s.Custom
	s.Custom = placeholder{s.Design}
	r, err := s.Resolve()
	if err != nil {
		return model.Spec{}, err
	}
	out := r.Spec
	out.Custom = given
	return out, nil
}
