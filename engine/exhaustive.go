package engine

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// DefaultMaxSchedules bounds an exhaustive check when no limit is given.
const DefaultMaxSchedules = 200_000

// ExhaustiveConfig is an exhaustive check: every placement of one fault
// (depth 1) or two (depth 2) at every point of the fault-free run, each
// fault kind, each duration class.
type ExhaustiveConfig struct {
	// Base is the design and its configuration; zero fields take the
	// design's defaults (nothing is drawn: this is one configuration).
	Base model.Spec
	// Seed is the seed of every run: it fixes the network's latencies
	// before the faults change the run. 0 means 1.
	Seed uint64
	// Depth is how many faults a schedule places: 1 (the default) or 2.
	Depth int
	// Kinds are the fault kinds to place; nil means ExhaustiveKinds.
	Kinds []sim.FaultKind
	// Durations names the duration classes to try (DurClasses: "ttl/2",
	// "ttl+", ...); nil means all of the configuration's.
	Durations []string
	// MaxSchedules bounds the schedules; 0 means DefaultMaxSchedules. A
	// bound too small is an error that says how many there are, before
	// any faulted run.
	MaxSchedules int
	// Workers runs that many schedules at once; 0 means GOMAXPROCS. The
	// result does not depend on it.
	Workers int
	// Invariants are the invariants that count; nil means all.
	Invariants []invariant.ID
	// Blackhole makes every partition placed a blackhole (sim.Fault
	// .Blackhole), and adds the partitions that never heal ("forever"),
	// where the mode shows: a real client's connection is not reset, its
	// packets vanish.
	Blackhole bool
	// StopAtFirst stops at the first schedule (in exploration order) that
	// breaks a counted invariant: a search for a counterexample, not a
	// guarantee.
	StopAtFirst bool
	// Progress, if set, is called after each schedule in order with the
	// schedules done and planned (depth 2's are planned once its first
	// faults have been run).
	Progress func(done, planned int)
	// Preemptions is the most same-instant reorders a schedule adds to
	// its faults (exhaustive_preempt.go), 0 to MaxPreemptions; 0 is
	// exhaustive mode as it was. With Preemptions, Kinds may be empty
	// (non-nil): only the fault-free run's orderings are explored.
	Preemptions int
	// Run, if set, runs the schedules instead of the model framework (a
	// real Go client, package realclient): Base.Custom then names the
	// design, and Run must be deterministic for a spec and seed. Set
	// Workers to 1 unless Run may be called concurrently. It takes no
	// Preemptions (a real client's goroutines are not sim's lanes).
	Run RunFunc
	// Undecided, with Run, says which invariants a schedule's result
	// judged without a verdict (the runner's own checker configuration,
	// as CheckConfig.Undecided); nil means what a model run's outcome
	// says (model.UndecidedOf and model.WritesUndecidedOf).
	Undecided func(r *model.Result) []invariant.ID
	// Context, if set, stops the exploration between schedules when it is
	// done (SIGINT, SIGTERM): the schedules started finish and are
	// tallied, no further depth or reorder round starts, and the result
	// says Interrupted. An interrupted result is no guarantee.
	Context context.Context
}

// RunFunc runs one spec (the configuration and a schedule's faults) under
// seed: its result with the violations found (counted or not: the
// explorer counts), and for each event of the history the step of the run
// that recorded it, which bounds the points (Point): events of one actor
// in one step are one point.
type RunFunc func(s model.Spec, seed uint64) (*model.Result, []int, error)

// ExhaustiveResult is a finished exhaustive check.
type ExhaustiveResult struct {
	Design string
	// Spec is the configuration every schedule ran on (defaults applied,
	// no faults); Seed the seed of every run.
	Spec model.Spec
	Seed uint64
	// Depth is the most faults a schedule placed.
	Depth int
	// Kinds and Classes are what was placed.
	Kinds   []sim.FaultKind
	Classes []DurClass
	// Baseline is the fault-free run. If it broke a counted invariant,
	// nothing else ran.
	Baseline *model.Result
	// Events and Points are the fault-free run's events and the points
	// they fold into (the state dedup).
	Events, Points int
	// Schedules counts the schedules run per depth (index 0: one fault);
	// PerEvent what placing each fault at every event instead of every
	// point would have run at depth 1.
	Schedules []int
	PerEvent  int
	// BrokenSchedules counts the schedules that broke a counted invariant;
	// Counts and Uncounted count them per invariant.
	BrokenSchedules int
	// UnfiredSchedules counts the schedules that broke nothing and had a
	// fault that never took effect: they do not count toward the
	// guarantee.
	UnfiredSchedules  int
	Counts, Uncounted map[invariant.ID]int
	// Undecided counts, per counted invariant, the schedules that judged
	// it without a verdict (liveness: a fault never healed, or the run
	// ended before the bound): they are no evidence that it held.
	Undecided map[invariant.ID]int
	// Breaks are the distinct ways the design broke, in order of their
	// first schedule.
	Breaks []*Break
	// Danger is the fault-free run's points with what one fault there
	// breaks (depth 1).
	Danger []DangerPoint
	// FirstError is the schedule that stopped the check with an error.
	FirstError *Schedule
	// Preemptions is the most reorders a schedule added; Preempted counts
	// the schedules run per reorder count (index 0: one reorder).
	Preemptions int
	Preempted   []int
	// Stopped is set when StopAtFirst stopped the exploration at a break;
	// HitBound when it reached MaxSchedules without one; Interrupted when
	// ExhaustiveConfig.Context stopped it (a partial tally, no guarantee).
	Stopped, HitBound, Interrupted bool
	Counted                        []invariant.ID
	// Judged tells, per invariant, why the design's runs do not judge it.
	Judged map[invariant.ID]string

	runFn RunFunc // ExhaustiveConfig.Run
}

// Schedule is one explored fault schedule and what it broke.
type Schedule struct {
	Index  int         `json:"index"`
	Faults []sim.Fault `json:"-"`
	// Mechanism names each fault by what it does where (label), Classes
	// each fault's duration class ("" for none).
	Mechanism []string       `json:"mechanism"`
	Classes   []string       `json:"classes"`
	Broken    []invariant.ID `json:"broken,omitempty"`
	Uncounted []invariant.ID `json:"uncounted,omitempty"`
	// Undecided are the counted invariants it judged without a verdict
	// (model.Outcome.Undecided).
	Undecided []invariant.ID `json:"undecided,omitempty"`
	Error     string         `json:"error,omitempty"`
	// Unfired: a fault of the schedule never took effect (its trigger
	// never came, its target was gone): unless it broke something, the
	// schedule tested less than it names and does not count toward the
	// guarantee.
	Unfired bool `json:"unfired,omitempty"`
	// Preempt is the schedule's same-instant reorders as
	// model.Spec.Interleave writes them ("preempt:12.1"), "" for none.
	Preempt string `json:"interleave,omitempty"`
	// point is the depth-1 point of the first fault and opt its place in
	// that point's menu; size the sum of the faults' magnitudes.
	point, opt int
	size       time.Duration
	// script is Preempt's reorders; points the run's choice points, kept
	// (with Preemptions) for the next round to place reorders at.
	script []sim.Reorder
	points []sim.ChoicePoint
}

// JudgedSchedules is how many runs judged the invariants: the schedules
// whose faults fired, or the fault-free run alone when it broke.
func (r *ExhaustiveResult) JudgedSchedules() int {
	if r.FaultFreeOnly() {
		return 1
	}
	return r.Total() - r.UnfiredSchedules
}

// NoFaultMechanism is the mechanism of a break with no fault: the
// fault-free run's own.
const NoFaultMechanism = "no fault at all"

// FaultFreeOnly reports whether the fault-free run was the only run
// judged: it broke a counted invariant, so no schedule ran.
func (r *ExhaustiveResult) FaultFreeOnly() bool {
	return r.Total() == 0 && r.BrokenSchedules > 0
}

// Break is one way the design broke: every schedule whose faults have the
// same mechanisms (whatever their lengths) and that broke a counted
// invariant.
type Break struct {
	Mechanism string `json:"mechanism"`
	// Classes are the duration classes that broke it, in the order they
	// were met ("ttl+", or "ttl/2 then ttl+" for two faults); Broken every
	// counted invariant a schedule of the group broke.
	Classes   []string       `json:"classes"`
	Broken    []invariant.ID `json:"broken"`
	Schedules int            `json:"schedules"`
	// Smallest is, of the group's schedules that did its worst harm
	// (invariant.Worst), the one with the smallest faults, then the
	// earliest.
	Smallest *Schedule `json:"-"`
}

// Failed reports whether a counted invariant broke.
func (r *ExhaustiveResult) Failed() bool { return r.BrokenSchedules > 0 }

// NoVerdict says why a finished exhaustive check is no evidence either
// way, or "": no schedule ran (the fault-free run has no point to place a
// fault at), or no schedule's faults all took effect.
func (r *ExhaustiveResult) NoVerdict() string {
	switch {
	case r.Failed() || r.FirstError != nil || r.Stopped || len(r.Schedules) == 0:
		return ""
	case r.Total() == 0:
		return "no schedule ran: the fault-free run has no point to place a fault at"
	case r.UnfiredSchedules == r.Total():
		return "in every schedule (" + plural(r.Total(), "schedule") + ") a fault never took effect"
	}
	return ""
}

// Total is how many schedules ran at every depth.
func (r *ExhaustiveResult) Total() int {
	n := 0
	for _, s := range r.Schedules {
		n += s
	}
	for _, s := range r.Preempted {
		n += s
	}
	return n
}

// Rerun runs a schedule again with its history, for a report or a case
// file.
func (r *ExhaustiveResult) Rerun(s *Schedule) (*model.Result, error) {
	spec := r.Spec
	spec.Faults = s.Faults
	spec.Interleave = s.Preempt
	run := func(s model.Spec, seed uint64) (*model.Result, []int, error) {
		r, err := model.Run(s, seed)
		return r, nil, err
	}
	if r.runFn != nil {
		run = r.runFn
	}
	res, _, err := run(spec, r.Seed)
	if err != nil {
		return nil, err
	}
	res.CountOnly(r.Counted)
	return res, nil
}

// explorer holds what every schedule of one exhaustive check shares.
type explorer struct {
	cfg     ExhaustiveConfig
	spec    model.Spec
	seed    uint64
	roles   roles
	kinds   []sim.FaultKind
	classes []DurClass
	counted []invariant.ID
	base    sim.History
	points  []Point
	// readsWall: the clients decide by their wall clocks
	// (model.Traits.ReadsWall), so their clock steps are placed too.
	readsWall bool
	// renews: the design runs a watchdog (a task CPU starvation may
	// target); from the resolved spec's traits.
	renews bool
	// baseSchedule is the fault-free run as a schedule with its choice
	// points: the first base of the reorder rounds.
	baseSchedule Schedule
}

// Exhaustive runs an exhaustive check. The error is for input that cannot
// run (a bad configuration, a depth out of range, a bound too small).
func Exhaustive(c ExhaustiveConfig) (*ExhaustiveResult, error) {
	x, res, err := newExplorer(c)
	if err != nil || res.Failed() {
		return res, err
	}
	one := x.depthOne()
	if len(one) > x.max() {
		return nil, errors.Errorf("exhaustive: %d one-fault schedules (%d points), more than the bound of %d: %s", len(one), len(x.points), x.max(), narrow)
	}
	res.PerEvent = x.perEvent()
	agg := newAggregate(x, res)
	agg.keepClean = c.Preemptions > 0
	if agg.keepClean {
		agg.clean = []Schedule{x.baseSchedule}
	}
	var ran []Schedule
	done := 0
	ordered(len(one), c.Workers, x.more(), func(j int) Schedule { return x.run(one[j]) }, func(j int, s Schedule) bool {
		agg.add(s, true)
		ran = append(ran, s)
		done++
		if c.Progress != nil {
			c.Progress(done, len(one))
		}
		return s.Error == "" && !agg.stop(s)
	})
	res.Schedules = []int{len(ran)}
	if x.interrupted() {
		res.Interrupted = true
		return agg.finish(), nil
	}
	if res.FirstError == nil && !res.Stopped && x.depth() >= 2 {
		if err := x.depthTwo(ran, agg, c.Progress, done); err != nil {
			return nil, err
		}
	}
	if c.Preemptions > 0 && res.FirstError == nil && !res.Stopped && !res.HitBound {
		bases := agg.clean
		agg.keepClean, agg.clean = false, nil
		if err := x.preempt(bases, agg, res.Total()); err != nil {
			return nil, err
		}
	}
	res.Interrupted = x.interrupted()
	return agg.finish(), nil
}

// more is the ordered feed's test: false once the context is done.
func (x *explorer) more() func(int) bool {
	if x.cfg.Context == nil {
		return nil
	}
	return func(int) bool { return x.cfg.Context.Err() == nil }
}

// interrupted reports whether the context stopped the exploration.
func (x *explorer) interrupted() bool { return x.cfg.Context != nil && x.cfg.Context.Err() != nil }

func (x *explorer) depth() int { return max(x.cfg.Depth, 1) }

func (x *explorer) max() int {
	if x.cfg.MaxSchedules > 0 {
		return x.cfg.MaxSchedules
	}
	return DefaultMaxSchedules
}

// newExplorer validates the configuration and runs the fault-free run.
// A fault-free run that already breaks is the result.
func newExplorer(c ExhaustiveConfig) (*explorer, *ExhaustiveResult, error) {
	if c.Depth < 0 || c.Depth > 2 {
		return nil, nil, errors.Errorf("exhaustive: depth %d: want 1 or 2", c.Depth)
	}
	if c.MaxSchedules < 0 {
		return nil, nil, errors.Errorf("exhaustive: the bound %d is negative", c.MaxSchedules)
	}
	if c.Preemptions < 0 || c.Preemptions > MaxPreemptions {
		return nil, nil, errors.Errorf("exhaustive: preemptions %d: want 0 to %d", c.Preemptions, MaxPreemptions)
	}
	if c.Preemptions > 0 && c.Run != nil {
		return nil, nil, errors.New("exhaustive: preemptions reorder the simulated world's same-instant events; a real client's runs take none (use its interleave mode)")
	}
	if c.Preemptions > 0 && c.Base.Interleave != "" && c.Base.Interleave != "fixed" {
		return nil, nil, errors.Errorf("exhaustive: preemptions explore the orders of the fixed one; the interleave %s draws them instead: give one or the other", bounded.Q(c.Base.Interleave))
	}
	kinds := c.Kinds
	if kinds == nil {
		kinds = ExhaustiveKinds
	}
	if len(kinds) == 0 && c.Preemptions == 0 {
		return nil, nil, errors.New("exhaustive: no fault kinds to place: it would explore nothing")
	}
	if c.Depth == 0 {
		c.Depth = 1
	}
	for _, k := range kinds {
		if !slices.Contains(PlacedKinds(), k) {
			return nil, nil, errors.Errorf("exhaustive: fault kind %s is not placed exhaustively (these are: %s)", bounded.Q(k), kindList(PlacedKinds()))
		}
	}
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	if err := scenarios.FailsOver(c.Base).CanCount(c.Invariants); err != nil {
		return nil, nil, errors.Wrap(err, "exhaustive")
	}
	base := c.Base
	base.Faults = nil
	spec := scenarios.Gen{Kinds: []sim.FaultKind{}}.Run(scenarios.Rand(seed), base)
	if c.Preemptions > 0 {
		spec = preemptSpec(spec, nil) // the fixed order, recording its choice points
	}
	rs, err := spec.Resolve() // the generator applied the defaults: this builds the design once
	if err != nil {
		return nil, nil, err
	}
	cfg, err := rs.Config()
	if err != nil {
		return nil, nil, err
	}
	classes, err := pickClasses(DurClasses(rs), c.Durations)
	if err != nil {
		return nil, nil, err
	}
	x := &explorer{cfg: c, spec: spec, seed: seed, kinds: kinds, classes: classes, counted: c.Invariants, roles: rolesOf(spec, cfg),
		readsWall: rs.Traits.ReadsWall, renews: rs.Traits.Renews}
	if len(x.counted) == 0 {
		x.counted = invariant.All
	}
	res := &ExhaustiveResult{Design: spec.Design, Spec: spec, Seed: seed, Depth: x.depth(), Kinds: kinds, Classes: x.classes, Preemptions: c.Preemptions,
		Counts: map[invariant.ID]int{}, Uncounted: map[invariant.ID]int{}, Undecided: map[invariant.ID]int{}, Counted: x.counted, Judged: map[invariant.ID]string{}, runFn: c.Run}
	if spec.Custom != nil {
		res.Design = spec.Custom.Name()
	}
	for _, id := range invariant.All {
		if ok, why := rs.Check.Judged(id); !ok {
			res.Judged[id] = why
		}
	}
	r, steps, err := x.observed(spec)
	if err != nil {
		return nil, nil, err
	}
	r.CountOnly(c.Invariants)
	res.Baseline = r
	x.baseSchedule = Schedule{points: r.Interleave.Points}
	if r.Err != nil {
		return nil, nil, errors.Wrap(r.Err, "exhaustive: the fault-free run stopped")
	}
	if r.Vacuous() {
		return nil, nil, errors.New("exhaustive: in the fault-free run no client acquired the lock and no counted invariant broke, so no schedule around it would judge anything (count liveness to ask whether the lock is ever granted)")
	}
	x.base = r.History
	x.points = pointsOf(r.History, steps, -1, x.roles)
	res.Events, res.Points = len(r.History), len(x.points)
	if f := invariant.Broken(r.Failures()); len(f) > 0 {
		// The fault-free run is the one run judged: its other verdicts
		// are tallied as a schedule's would be.
		res.BrokenSchedules = 1
		for _, id := range f {
			res.Counts[id]++
		}
		for _, id := range invariant.Broken(r.Violations) {
			if !slices.Contains(x.counted, id) {
				res.Uncounted[id]++
			}
		}
		for _, id := range x.undecided(r, spec) {
			if slices.Contains(x.counted, id) {
				res.Undecided[id]++
			}
		}
		res.Breaks = []*Break{{Mechanism: NoFaultMechanism, Broken: f, Schedules: 1, Smallest: &Schedule{}}}
		res.Schedules = []int{0}
	}
	return x, res, nil
}

// observed runs a spec with its history and the scheduler step of each
// event.
func (x *explorer) observed(s model.Spec) (*model.Result, []int, error) {
	if x.cfg.Run != nil {
		return x.cfg.Run(s, x.seed)
	}
	return observed(s, x.seed)
}

func observed(s model.Spec, seed uint64) (*model.Result, []int, error) {
	var steps []int
	r, err := model.RunObserved(s, seed, func(w *sim.World, _ sim.Event) { steps = append(steps, w.Events()) })
	return r, steps, err
}

// rolesOf reads a run's roles from its spec's roster and the services and
// sentinel of its configuration.
func rolesOf(s model.Spec, cfg sim.Config) roles {
	r := roles{Roster: s.Roster(), sentinel: cfg.Sentinel.Enabled}
	for _, sv := range cfg.Services {
		r.services = append(r.services, sv.Name)
	}
	return r
}

// depthOne lists every one-fault schedule: each point's menu.
func (x *explorer) depthOne() []Schedule {
	var out []Schedule
	for i, p := range x.points {
		for o, c := range x.menu(p, x.base) {
			out = append(out, Schedule{Index: len(out), Faults: []sim.Fault{c.fault}, Mechanism: []string{label(p, c)}, Classes: []string{c.class}, point: i, opt: o, size: c.size})
		}
	}
	return out
}

// perEvent counts the one-fault schedules of placing each fault at every
// event a point stands for: what the state dedup saves.
func (x *explorer) perEvent() int {
	n := 0
	for _, p := range x.points {
		n += p.Events * len(x.menu(p, x.base))
	}
	return n
}

// run runs one schedule and judges it.
func (x *explorer) run(s Schedule) Schedule {
	spec := x.spec
	spec.Faults = s.Faults
	if x.cfg.Preemptions > 0 {
		spec = preemptSpec(spec, s.script)
	}
	out, err := x.verdict(spec)
	s.Unfired = len(out.Unfired()) > 0
	s.points = out.Interleave.Points
	switch {
	case err != nil:
		s.Error = err.Error()
	case out.Err != nil:
		s.Error = out.Err.Error()
	default:
		for _, id := range invariant.Broken(out.Violations) {
			if slices.Contains(x.counted, id) {
				s.Broken = append(s.Broken, id)
			} else {
				s.Uncounted = append(s.Uncounted, id)
			}
		}
		for _, id := range out.Undecided {
			if slices.Contains(x.counted, id) {
				s.Undecided = append(s.Undecided, id)
			}
		}
	}
	return s
}

// verdict runs a spec for its outcome alone.
func (x *explorer) verdict(s model.Spec) (model.Outcome, error) {
	if x.cfg.Run == nil {
		return model.Verdict(s, x.seed)
	}
	r, _, err := x.cfg.Run(s, x.seed)
	if err != nil {
		return model.Outcome{}, err
	}
	o := model.Outcome{Violations: r.Violations, Err: r.Err, FaultOutcomes: r.FaultOutcomes}
	if r.Err == nil && len(r.History) > 0 {
		o.Undecided = x.undecided(r, s)
	}
	return o, nil
}

// undecided returns the invariants a judged result r of spec s had no
// verdict on: ExhaustiveConfig.Undecided's answer, or by default what
// model.Verdict's outcome says (liveness undecided, and the write
// invariants when nothing was written: such a schedule is no evidence
// that they held).
func (x *explorer) undecided(r *model.Result, s model.Spec) []invariant.ID {
	if x.cfg.Run != nil && x.cfg.Undecided != nil {
		return x.cfg.Undecided(r)
	}
	ix := history.New(r.History)
	cc := s.CheckConfig()
	return append(model.UndecidedOf(ix, cc, r.Violations), model.WritesUndecidedOf(ix, cc, r.Violations)...)
}

// pickClasses keeps the named classes of all, in all's order.
func pickClasses(all []DurClass, names []string) ([]DurClass, error) {
	if names == nil {
		return all, nil
	}
	var out []DurClass
	is := func(c DurClass, n string) bool { return c.Name == n || slices.Contains(c.Also, n) }
	for _, n := range names {
		if !slices.ContainsFunc(all, func(c DurClass) bool { return is(c, n) }) {
			var known []string
			for _, c := range all {
				known = append(known, c.Name)
			}
			return nil, errors.Errorf("exhaustive: no duration class %s in this configuration (it has: %s)", bounded.Q(n), strings.Join(known, ", "))
		}
	}
	for _, c := range all {
		if slices.ContainsFunc(names, func(n string) bool { return is(c, n) }) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("exhaustive: no duration classes chosen")
	}
	return out, nil
}

func kindList(ks []sim.FaultKind) string {
	var b []byte
	for i, k := range ks {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, k...)
	}
	return string(b)
}
