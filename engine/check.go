package engine

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// DefaultRuns is how many runs a check makes when neither a run count nor
// a time budget is given: what `locksim check` and locksim.Check do by
// default (about a second of work on two cores for most designs).
const DefaultRuns = 2000

// MaxRuns bounds a check's runs (about a week of one core at the speed of
// the catalogue's designs); a longer campaign is a time budget (For) or
// shards.
const MaxRuns = 1_000_000_000

// MaxBudget bounds a check's time budget (For).
const MaxBudget = 7 * 24 * time.Hour

// MaxWorkers bounds the runs that go at once: each holds a world of its
// own (up to the run limits' memory), so more workers than cores only
// cost memory.
const MaxWorkers = 1024

// CheckConfig is a campaign of random runs of one design: the Campaign
// (which runs: the design, what they draw, how many, the seeds, the shard,
// what counts) and how to run it here (workers, clock, callbacks), which
// does not change the result.
type CheckConfig struct {
	Campaign
	// Now reads the wall clock for For; the simulation never sees it. It
	// must be set when For is.
	Now func() time.Time
	// Workers runs that many runs at once; 0 means GOMAXPROCS. The result
	// does not depend on it.
	Workers int
	// Each, if set, sees every run's outcome, in run order.
	Each func(RunOutcome)
	// Progress, if set, is called after each run in order with the runs
	// done and the runs planned (0 when only a time budget bounds them).
	Progress func(done, planned int)
	// Context, if set, stops the check cooperatively once it is done (the
	// CLI's SIGINT or SIGTERM): no new run starts, the runs already started
	// finish and are tallied, nothing is shrunk, and the result says
	// Interrupted. An interrupted result has no verdict.
	Context context.Context
	// Run, if set, runs each run (and the shrinking's re-runs) instead of
	// the model framework: a real Go client (package realclient), which
	// gets this engine's shards, budget, progress, cancellation, coverage
	// and verdict. Base.Custom then names the design; Run must be
	// deterministic for a spec and seed, and its results' Violations are
	// the run's verdicts. Set Workers to 1 unless Run may be called
	// concurrently. nil keeps the model's pooled fast path (model.Verdict).
	Run RunFunc
	// Undecided, with Run, says which invariants a run's result judged
	// without a verdict (model.UndecidedOf with the runner's own checker
	// configuration); nil means none.
	Undecided func(r *model.Result) []invariant.ID
	// MinRuns is how many runs start whatever the time budget (For) says:
	// realclient.Check's budget always makes one run.
	MinRuns int
	// KeepAllBroken makes shrinking keep every counted invariant the
	// first failure broke (the same set), not only its first: the rule
	// realclient.Check's seeded runs have always shrunk by.
	KeepAllBroken bool
}

// RunOutcome is one run of a check.
type RunOutcome struct {
	Index int    `json:"index"`
	Seed  uint64 `json:"seed"`
	// Broken are the counted invariants the run broke; Uncounted the
	// others it broke.
	Broken    []invariant.ID `json:"broken,omitempty"`
	Uncounted []invariant.ID `json:"uncounted,omitempty"`
	// Error is set when the run stopped early: it has no verdicts.
	Error string `json:"error,omitempty"`
	// Failovers counts the promotions in the run.
	Failovers int      `json:"failovers,omitempty"`
	Faults    []string `json:"faults,omitempty"`
	// Unfired are the indexes (into Faults, from 0) of the faults that
	// never took effect (sim.FaultOutcome).
	Unfired []int `json:"unfired,omitempty"`
	// Vacuous: the run found nothing because no client ever acquired
	// (it broke no counted invariant; an uncounted one may have broken).
	Vacuous bool `json:"vacuous,omitempty"`
	// Undecided are the counted invariants the run judged without a
	// verdict (model.Outcome.Undecided): neither held nor broken.
	Undecided []invariant.ID `json:"undecided,omitempty"`
	// Config is the run's drawn configuration (scenarios.Describe), set
	// for a run that broke a counted invariant or stopped with an error,
	// and for every run when CheckConfig.Each is set.
	Config string `json:"config,omitempty"`
	// Choices and Lanes are what a same-instant scheduler other than the
	// fixed order saw (sim.InterleaveStats); 0 under the fixed order.
	Choices int `json:"choices,omitempty"`
	Lanes   int `json:"lanes,omitempty"`
}

// CheckResult is a finished check.
type CheckResult struct {
	Design string
	// Runs is how many runs were made (this shard's); Planned how many were
	// asked for (0 with only a time budget).
	Runs, Planned int
	// BrokenRuns counts runs that broke a counted invariant.
	BrokenRuns int
	// Counts and Uncounted count, per invariant, the runs that broke it.
	Counts, Uncounted map[invariant.ID]int
	// FailoverRuns counts runs with at least one promotion.
	FailoverRuns int
	// VacuousRuns counts runs that judged nothing: no client acquired.
	VacuousRuns int
	// Undecided counts, per invariant, the runs that judged it without a
	// verdict (liveness: a fault never healed, or the run ended before the
	// bound): they are no evidence that it held.
	Undecided map[invariant.ID]int
	// Coverage is what the runs' faults did (fired per kind and
	// placement, runs with a clock step or a crash).
	Coverage Coverage
	// FirstFail is the first run (by index) that broke a counted
	// invariant; Minimal its shrunk form, re-run with its history.
	FirstFail *RunOutcome
	Minimal   *model.Result
	// FirstError is the run that stopped the check with an error.
	FirstError *RunOutcome
	// Counted are the invariants that count.
	Counted []invariant.ID
	// Judged tells, per invariant, whether the design's runs judge it at
	// all (and why not).
	Judged map[invariant.ID]string
	// Interrupted is set when CheckConfig.Context stopped the check before
	// it finished: the tally counts the runs made, and is no verdict.
	Interrupted bool
}

// Failed reports whether a counted invariant broke.
func (r *CheckResult) Failed() bool { return r.FirstFail != nil }

// NoVerdict says why a finished check judged nothing, or "" when it did:
// no run was made (a time budget spent before the first run), in every
// run no client acquired, no drawn fault took effect in any run, or every
// counted invariant had no verdict in every run. A check with no verdict is neither held nor
// broken (the CLI exits 2). A run that stopped with an error is
// FirstError, not this.
func (r *CheckResult) NoVerdict() string {
	switch {
	case r.FirstError != nil || r.Failed():
		return ""
	case r.Interrupted:
		return "interrupted after " + plural(r.Runs, "run") + ": a partial tally"
	case r.Runs == 0 && r.Planned == 0:
		return "no run was made: the time budget ran out before the first run finished"
	case r.Runs == 0:
		return "no run was made"
	case r.VacuousRuns == r.Runs:
		return "in every run (" + plural(r.Runs, "run") + ") no client acquired the lock, so nothing was judged"
	case len(r.Coverage.AskedKinds) > 0 && r.Coverage.Fired == 0:
		return "no fault took effect in any run (" + plural(r.Coverage.Drawn, "fault") + " drawn, of kinds " + kindList(r.Coverage.AskedKinds) +
			"), so the runs judged the design without faults; ask for kinds that act on it, or --faults none to check it fault-free"
	case r.allUndecided():
		return "in every run (" + plural(r.Runs, "run") + ") each counted invariant (" + invariant.Names(r.Counted) +
			") had no verdict: " + r.undecidedWhys()
	}
	return ""
}

// undecidedWhys joins the reasons the counted invariants had no verdict
// (UndecidedWhy), each once, in the order of the invariants.
func (r *CheckResult) undecidedWhys() string {
	var whys []string
	for _, id := range r.Counted {
		if r.Judged[id] == "" && r.Undecided[id] > 0 && !slices.Contains(whys, UndecidedWhy(id)) {
			whys = append(whys, UndecidedWhy(id))
		}
	}
	return strings.Join(whys, "; ")
}

// allUndecided reports whether every counted invariant was judged without
// a verdict in every run, or not judged at all: nothing held.
func (r *CheckResult) allUndecided() bool {
	if r.Runs == 0 || len(r.Undecided) == 0 {
		return false
	}
	for _, id := range r.Counted {
		if r.Judged[id] == "" && r.Undecided[id] < r.Runs {
			return false
		}
	}
	return true
}

// RunSpec returns run i's spec and seed: Base with its configuration and
// faults drawn from the run's seed.
func (c CheckConfig) RunSpec(i int) (model.Spec, uint64) {
	seed := c.Seed + uint64(i)
	return c.Gen.Run(scenarios.Rand(seed), c.Base), seed
}

// Validate checks the configuration and the design once, with no faults,
// before any run: an input error here is the caller's (exit 2).
func (c CheckConfig) Validate() error {
	if c.Runs < 0 || c.Runs > MaxRuns {
		return errors.Errorf("runs %d: give 0 to %d (limits: runs)", c.Runs, MaxRuns)
	}
	if c.For < 0 || c.For > MaxBudget {
		return errors.Errorf("time budget %v: give up to %v (limits: budget)", c.For, MaxBudget)
	}
	if c.Workers < 0 || c.Workers > MaxWorkers {
		return errors.Errorf("workers %d: give up to %d (limits: workers)", c.Workers, MaxWorkers)
	}
	if c.For > 0 && c.Now == nil {
		return errors.Errorf("time budget %v: Now must be set to measure it", c.For)
	}
	if c.Shards < 0 || c.Shard < 0 || (c.Shards > 0 && c.Shard >= c.Shards) {
		return errors.Errorf("shard %d/%d: want 0 <= i < n", c.Shard, c.Shards)
	}
	if n, bounded := c.mine(); bounded && n == 0 {
		planned := c.Runs
		if planned == 0 {
			planned = DefaultRuns
		}
		return errors.Errorf("shard %d/%d has no runs: the %s go to shards 0 to %d, so this shard would judge nothing; give fewer shards or more runs", c.Shard, c.Shards, plural(planned, "run"), planned-1)
	}
	if last, ok := c.lastSeedOK(); !ok {
		return errors.Errorf("seed %d: the runs' seeds (seed+i, up to %s) would wrap past 2^64-1 and repeat seeds 0, 1, ...; give a smaller seed", c.Seed, last)
	}
	if err := c.Gen.Validate(); err != nil {
		return err
	}
	if err := scenarios.FailsOver(c.Base).CanCount(c.Invariants); err != nil {
		return err
	}
	if err := c.Base.ValidateSettings(); err != nil {
		return err
	}
	// Named (not "any", every place): a design without a watchdog has no
	// place there, and the pauses once went silently elsewhere.
	named := len(c.Gen.PauseAt) < len(scenarios.Places)
	if named && c.Run == nil && slices.Contains(c.Gen.PauseAt, scenarios.PlaceWatchdog) && !c.Base.Traits().Renews {
		return errors.Errorf("pause-at watchdog: design %s has no watchdog (it does not renew), so no pause or crash would go there", designName(c.Base))
	}
	if c.Run != nil {
		return nil // the runner refuses what it cannot run, at its first run
	}
	s, _ := c.RunSpec(0)
	s.Faults = nil
	if _, err := model.Verdict(s, c.Seed); err != nil {
		return err
	}
	return nil
}

// Check runs the campaign: every run of this shard (or as many as the
// time budget allows) over all workers, tallied in run order, so the result
// does not depend on the worker count; the first failing run is shrunk
// and re-run with its history. A run that stops with an error stops the
// check (no more runs start): its outcome is FirstError.
func Check(c CheckConfig) (*CheckResult, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	shards := max(c.Shards, 1)
	mine, bounded := c.mine()
	n := mine
	if !bounded {
		n = math.MaxInt / 2 // only the budget bounds the runs (half: room to add to it on any int size)
	}
	res := c.newResult(mine)
	var more func(int) bool
	if c.For > 0 && c.Now != nil {
		deadline := c.Now().Add(c.For)
		more = func(j int) bool { return j < c.MinRuns || c.Now().Before(deadline) }
	}
	if ctx := c.Context; ctx != nil {
		budget := more
		more = func(j int) bool { return ctx.Err() == nil && (budget == nil || budget(j)) }
	}
	ordered(n, c.Workers, more, func(j int) RunOutcome {
		return c.run(c.Shard + j*shards)
	}, func(j int, o RunOutcome) bool {
		res.add(o)
		if c.Each != nil {
			c.Each(o)
		}
		if c.Progress != nil {
			c.Progress(res.Runs, mine)
		}
		return o.Error == ""
	})
	if c.Context != nil && c.Context.Err() != nil {
		res.Interrupted = true
		return res, nil
	}
	if res.FirstError != nil {
		return res, nil
	}
	if f := res.FirstFail; f != nil {
		res.Minimal = c.shrink(f)
		if c.Context != nil && c.Context.Err() != nil {
			res.Minimal, res.Interrupted = nil, true
		}
	}
	return res, nil
}

// lastSeedOK reports whether every run's seed Seed+i fits in a uint64
// without wrapping (with only a time budget, for up to MaxRuns runs), and
// names the last run.
func (c CheckConfig) lastSeedOK() (string, bool) {
	planned := uint64(c.Runs)
	if planned == 0 && c.For == 0 {
		planned = DefaultRuns
	}
	what := "seed+" + strconv.FormatUint(planned-1, 10)
	if planned == 0 {
		planned, what = MaxRuns, "seed+"+strconv.Itoa(MaxRuns-1)+" under a time budget"
	}
	return what, c.Seed <= math.MaxUint64-(planned-1)
}

// mine is how many runs this shard makes: its share of Runs (or of
// DefaultRuns); bounded is false when only the time budget bounds them.
func (c CheckConfig) mine() (n int, bounded bool) {
	shards := max(c.Shards, 1)
	planned := c.Runs
	if planned == 0 && c.For == 0 {
		planned = DefaultRuns
	}
	if planned == 0 {
		return 0, false
	}
	// The runs i < planned with i % shards == Shard, without overflowing
	// for a planned count near the largest int.
	n = planned / shards
	if c.Shard < planned%shards {
		n++
	}
	return n, true
}

// newResult is the empty tally of this check, which plans mine runs.
func (c CheckConfig) newResult(mine int) *CheckResult {
	res := &CheckResult{Design: c.Base.Design, Planned: mine, Counts: map[invariant.ID]int{}, Uncounted: map[invariant.ID]int{},
		Counted: c.counted(), Judged: map[invariant.ID]string{}}
	res.Coverage = newCoverage(c, c.Base.Resolution())
	rs := scenarios.FailsOver(c.Base).Resolution()
	if rs.Spec.Custom != nil {
		res.Design = rs.Spec.Custom.Name()
	}
	cfg := rs.Check
	for _, id := range invariant.All {
		if ok, why := cfg.Judged(id); !ok {
			res.Judged[id] = why
		}
	}
	return res
}

func (c CheckConfig) counted() []invariant.ID {
	if len(c.Invariants) > 0 {
		return c.Invariants
	}
	return invariant.All
}

// run makes run i and judges it.
func (c CheckConfig) run(i int) RunOutcome {
	s, seed := c.RunSpec(i)
	o, _ := c.judge(i, s, seed)
	return o
}

// judge runs spec s under seed as run i and judges it; with the Run seam
// it also returns the runner's result (with its history), else nil.
func (c CheckConfig) judge(i int, s model.Spec, seed uint64) (RunOutcome, *model.Result) {
	o := RunOutcome{Index: i, Seed: seed}
	for _, f := range s.Faults {
		o.Faults = append(o.Faults, f.String())
	}
	out, r, err := c.verdictResult(s, seed)
	o.Unfired = out.Unfired()
	o.Choices, o.Lanes = out.Interleave.Choices, out.Interleave.Lanes
	switch {
	case err != nil:
		o.Error = err.Error()
	case out.Err != nil:
		o.Error = out.Err.Error()
	default:
		o.Failovers = out.Failovers
		counted := c.counted()
		for _, id := range out.Undecided {
			if slices.Contains(counted, id) {
				o.Undecided = append(o.Undecided, id)
			}
		}
		for _, id := range invariant.Broken(out.Violations) {
			if slices.Contains(counted, id) {
				o.Broken = append(o.Broken, id)
			} else {
				o.Uncounted = append(o.Uncounted, id)
			}
		}
		// Nobody acquired and nothing counted broke: the run judged
		// nothing that counts, whatever uncounted invariant it broke.
		o.Vacuous = out.NoneAcquired && len(o.Broken) == 0
	}
	// The configuration line costs more than some runs' checks: render it
	// only where it is read (a failure, an error, Each).
	if c.Each != nil || o.Error != "" || len(o.Broken) > 0 {
		o.Config = scenarios.Describe(s)
	}
	return o, r
}

// verdict runs one spec under seed and judges it: model.Verdict, or the
// Run seam's result read as an outcome.
func (c CheckConfig) verdict(s model.Spec, seed uint64) (model.Outcome, error) {
	out, _, err := c.verdictResult(s, seed)
	return out, err
}

// verdictResult is verdict, with the Run seam's result (nil on the
// model's pooled path, which keeps no history).
func (c CheckConfig) verdictResult(s model.Spec, seed uint64) (model.Outcome, *model.Result, error) {
	if c.Run == nil {
		out, err := model.Verdict(s, seed)
		return out, nil, err
	}
	r, _, err := c.Run(s, seed)
	if err != nil {
		return model.Outcome{}, nil, err
	}
	o := model.Outcome{Err: r.Err, FaultOutcomes: r.FaultOutcomes}
	if r.Err == nil {
		o.Violations = r.Violations
		o.NoneAcquired = true
		for i := range r.History {
			switch r.History[i].Kind {
			case history.KindAcquired:
				o.NoneAcquired = false
			case sim.KindPromote:
				o.Failovers++
			}
		}
		o.Vacuous = len(o.Violations) == 0 && o.NoneAcquired
		if c.Undecided != nil {
			o.Undecided = c.Undecided(r)
		}
	}
	return o, r, nil
}

func (r *CheckResult) add(o RunOutcome) {
	r.Runs++
	if o.Failovers > 0 {
		r.FailoverRuns++
	}
	if o.Vacuous {
		r.VacuousRuns++
	}
	// The faults are read back from their lines, so a merged run counts
	// as the unsharded one does.
	var faults []sim.Fault
	if len(o.Faults) > 0 {
		for _, line := range o.Faults {
			f, err := scenarios.ParseFault(line)
			if err != nil {
				faults = nil // unreadable: leave the run out of the coverage
				break
			}
			faults = append(faults, f)
		}
	}
	r.Coverage.add(faults, o.Unfired)
	r.Coverage.Interleave.add(o)
	if o.Error != "" && r.FirstError == nil {
		c := o
		r.FirstError = &c
	}
	if len(o.Broken) > 0 {
		r.BrokenRuns++
		if r.FirstFail == nil {
			c := o
			r.FirstFail = &c
		}
	}
	for _, id := range o.Broken {
		r.Counts[id]++
	}
	for _, id := range o.Uncounted {
		r.Uncounted[id]++
	}
	for _, id := range o.Undecided {
		if r.Undecided == nil {
			r.Undecided = map[invariant.ID]int{}
		}
		r.Undecided[id]++
	}
}

// shrink minimises the first failure's schedule, keeping its first broken
// invariant broken, and re-runs the result with its history.
func (c CheckConfig) shrink(f *RunOutcome) *model.Result {
	s, seed := c.RunSpec(f.Index)
	return c.shrinkSpec(s, seed, f)
}

// shrinkSpec minimises the schedule of f, the outcome of spec s under
// seed, as shrink does.
func (c CheckConfig) shrinkSpec(s model.Spec, seed uint64, f *RunOutcome) *model.Result {
	want := f.Broken[0]
	fails := func(fs []sim.Fault) bool {
		if c.Context != nil && c.Context.Err() != nil {
			return false // interrupted: Check drops the result
		}
		t := s
		t.Faults = fs
		out, err := c.verdict(t, seed)
		if err != nil || out.Err != nil {
			return false
		}
		if c.KeepAllBroken {
			return slices.Equal(c.countedBroken(out.Violations), f.Broken)
		}
		return slices.Contains(invariant.Broken(out.Violations), want)
	}
	runs := c.ShrinkRuns
	if runs == 0 {
		runs = 200
	}
	s.Faults = Shrink(s.Faults, fails, runs)
	var r *model.Result
	if c.Run != nil {
		r, _, _ = c.Run(s, seed)
	} else {
		r, _ = model.Run(s, seed)
	}
	if r != nil {
		r.CountOnly(c.Invariants)
	}
	return r
}

// countedBroken are the counted invariants among the violations' broken
// ones, in invariant order (RunOutcome.Broken).
func (c CheckConfig) countedBroken(vs []invariant.Violation) []invariant.ID {
	var out []invariant.ID
	counted := c.counted()
	for _, id := range invariant.Broken(vs) {
		if slices.Contains(counted, id) {
			out = append(out, id)
		}
	}
	return out
}
