package realclient

import (
	"testing"

	"github.com/pkg/errors"

	"locksim/model/history"
	"locksim/risk"
)

// WithRiskMethod sets Risk's method: risk.Auto (the default: importance
// sampling with a seeded pilot, which keeps plain sampling when its runs
// see no violation) or risk.Plain (every run from the profile; no pilot
// runs, the cheapest way to an upper bound).
func WithRiskMethod(m risk.Method) Option { return func(c *config) { c.riskMethod = m } }

// RiskRuns is Risk's runs when WithRuns does not say.
const RiskRuns = 100

// Risk estimates how likely the real client is to break in an environment:
// it runs the library, as Check does, under fault schedules drawn from the
// profile (risk.Sampler: Poisson arrivals of the profile's pauses,
// starvations, partitions, node crashes and clock faults over each run's
// horizon, never Check's bug-hunting generator), and returns, per
// invariant, the probability that an acquisition is involved in a
// violation, per acquisition and per hour, each with a 95% interval, the
// runs and effective samples, and the method (docs/risk.md,
// docs/realclient.md "How likely").
//
//	res, err := realclient.Risk(t, setup, risk.Default(), realclient.WithName("my-lock"),
//		realclient.WithTTL(10*time.Second), realclient.WithRuns(200),
//		realclient.WithInvariants(invariant.MutualExclusion))
//	// require res.Estimates[0].CI95High < 1e-2
//
// The profile sets the clients, the workload and the faults; the options
// set the rest as for Check (WithName, WithTTL, WithOptions, WithTopology,
// WithFencing, WithRedisOptions, WithCaller, ...). WithRuns is the runs
// (default RiskRuns), WithSeed the seed (default 1), WithShard(i, n) this
// process's share: with risk.Merge the n shards' tallies give the bytes one
// process gives, and the same seed gives the same estimate. WithRiskMethod
// chooses the method. With no violating run the estimate is an upper
// bound, never zero (Estimate.UpperBoundOnly).
//
// A run that cannot be judged (setup failed, the library stopped, a limit)
// makes the whole estimate an error naming it: leaving it out would bias
// the estimate. Per-client clock drift and jumps cannot be simulated (one
// bubble, one clock): the profile's clock faults are on the nodes, as
// always. Runs are one at a time (they seed process-wide generators); a
// real client's run costs milliseconds of CPU, so estimates reach risks of
// about 1/runs and above, or are upper bounds.
func Risk(t *testing.T, setup Setup, p risk.Profile, opts ...Option) (*risk.Result, error) {
	t.Helper()
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if c.Depth != 0 || c.genFault != nil || c.For != 0 {
		return nil, errors.New("Risk draws its schedules from the profile: WithExhaustive, WithSchedule and WithBudget do not apply (give WithRuns)")
	}
	if c.goroutines > 1 {
		return nil, errors.New("Risk runs one goroutine per client process: WithGoroutines does not apply (the profile sets the clients)")
	}
	runs := c.Runs
	if runs == 0 {
		runs = RiskRuns
	}
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	base := c.Base
	base.Custom = placeholder{base.Design}
	judge := func(smp risk.Sample, seed uint64) risk.Outcome {
		spec, err := resolved(smp.Spec)
		if err != nil {
			return risk.Outcome{Err: err, Faults: len(smp.Spec.Faults)}
		}
		r, err := runOnce(t, runConfig{name: c.name, setup: setup, spec: spec, redisOptions: c.redisOptions,
			section: c.section, caller: c.caller, onLockError: c.onLockError, seed: seed, interleave: c.interleave,
			lockKeys: c.lockKeys, keyQuorum: c.keyQuorum, valueArg: c.valueArg, all: true})
		if err != nil {
			return risk.Outcome{Err: err, Faults: len(smp.Spec.Faults)}
		}
		c.noteLinked(r)
		if r.Err != nil {
			return risk.Outcome{Err: r.Err, Faults: len(smp.Spec.Faults)}
		}
		return risk.Count(smp, history.New(r.History), r.Violations, undecided(r))
	}
	res, err := risk.Run(risk.Config{Spec: base, Profile: p, Runs: runs, Seed: seed, Method: c.riskMethod,
		Shard: c.Shard, Shards: c.Shards, Invariants: c.Invariants, Judge: judge, Progress: c.Progress, Context: c.Context})
	if err != nil {
		return nil, errors.Wrapf(err, "risk of %s", c.name)
	}
	res.Design = c.Base.Design
	return res, nil
}
