package engine

import (
	"sync"

	"locksim/model"
	"locksim/scenarios"
)

// Inputs is a check whose runs' specs and seeds come from outside the
// campaign rather than from its seeds: rapid's draws (realclient.Check's
// default mode) or the coverage-guided fuzzer's bytes (locksim.Fuzz,
// realclient.Fuzz). Each run goes the way Check's runs go (the Run seam
// for a real client, the model's pooled path otherwise), is judged and
// tallied into the same CheckResult (coverage, vacuous and undecided
// runs, the verdict and its words), reported to Progress, and stopped by
// Context. What Campaign's Runs, For, Seed and shards say does not apply:
// the caller decides the runs.
type Inputs struct {
	c       CheckConfig
	planned int
	mu      sync.Mutex
	res     *CheckResult
}

// Inputs starts a check of c's design whose runs the caller gives (see
// Inputs); planned is how many it expects (0: not known), for Progress
// and the result. The error is an input error in the generator's
// settings, or a counted invariant the design cannot break
// (model.Spec.CanCount), refused as Check refuses it: counting it would
// report "held" without judging anything.
func (c CheckConfig) Inputs(planned int) (*Inputs, error) {
	if err := c.Gen.Validate(); err != nil {
		return nil, err
	}
	if err := scenarios.FailsOver(c.Base).CanCount(c.Invariants); err != nil {
		return nil, err
	}
	return &Inputs{c: c, planned: planned, res: c.newResult(planned)}, nil
}

// Run makes one run of spec s under seed, judges it and tallies it. ok is
// false when Context has stopped the check: no run was made (the result
// says Interrupted). r is the run's result with its history, counting the
// check's invariants, when it broke a counted invariant (the Run seam's
// own, or the model's run again); nil otherwise.
func (in *Inputs) Run(s model.Spec, seed uint64) (o RunOutcome, r *model.Result, ok bool) {
	if ctx := in.c.Context; ctx != nil && ctx.Err() != nil {
		return RunOutcome{}, nil, false
	}
	in.mu.Lock()
	i := in.res.Runs
	in.mu.Unlock()
	o, r = in.c.judge(i, s, seed)
	in.mu.Lock()
	in.res.add(o)
	done := in.res.Runs
	in.mu.Unlock()
	if in.c.Each != nil {
		in.c.Each(o)
	}
	if in.c.Progress != nil {
		in.c.Progress(done, in.planned)
	}
	if len(o.Broken) == 0 || o.Error != "" {
		return o, nil, true
	}
	if r == nil {
		r, _ = model.Run(s, seed)
	}
	if r != nil {
		r.CountOnly(in.c.Invariants)
	}
	return o, r, true
}

// Shrink minimises the faults of o, a broken run of spec s under seed,
// as Check shrinks its first failure (CheckConfig.ShrinkRuns,
// KeepAllBroken), and re-runs the result with its history.
func (in *Inputs) Shrink(s model.Spec, seed uint64, o RunOutcome) *model.Result {
	return in.c.shrinkSpec(s, seed, &o)
}

// Result is the tally so far, Interrupted when Context stopped the check;
// its Verdict decides the runs that were made. FirstFail is the first
// broken run; Minimal is not set (the caller shrinks its own way).
func (in *Inputs) Result() *CheckResult {
	in.mu.Lock()
	defer in.mu.Unlock()
	res := *in.res
	if ctx := in.c.Context; ctx != nil && ctx.Err() != nil {
		res.Interrupted = true
	}
	return &res
}
