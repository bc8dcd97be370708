package realclient

import (
	"fmt"
	"testing"
	"time"

	"locksim/engine"
	"locksim/harness"
	"locksim/model"
)

// WithRuns makes Check run n generated runs, from seeds Seed, Seed+1, ...
// (WithSeed, default 1), as locksim.Check does, instead of rapid's
// -rapid.checks; the first failing run is shrunk by dropping faults and
// halving their durations and times (engine.Shrink).
func WithRuns(n int) Option { return shared(harness.WithRuns(n)) }

// WithBudget makes Check run generated runs, as WithRuns does, until d of
// wall time has passed (and at most WithRuns' n, if given). The budget
// only decides how many runs there are: no run sees the wall clock.
func WithBudget(d time.Duration) Option { return shared(harness.WithBudget(d)) }

// WithSeed sets the first seed of WithRuns and WithBudget (default 1).
func WithSeed(seed uint64) Option { return shared(harness.WithSeed(seed)) }

// WithWorkers asks for n runs at once, as locksim.WithWorkers does. A
// real client's runs seed process-wide generators (crypto/rand,
// math/rand), so they run one at a time in a process whatever n is, and a
// check given n above 1 says so in its log; parallelism for real clients
// is separate processes (WithShard).
func WithWorkers(n int) Option { return shared(harness.WithWorkers(n)) }

// WithShard makes the seeded runs of WithRuns this process's share: shard
// i of n takes the runs whose index is i modulo n (engine.Campaign's
// Shard and Shards), so n processes together make every run once, with
// the seeds an unsharded check would use.
func WithShard(i, n int) Option { return func(c *config) { c.Shard, c.Shards = i, n } }

// oneWorker is the log line of a check asked for more than one worker.
func oneWorker(n int) string {
	return fmt.Sprintf("ran one run at a time, not %d: a real client's runs seed process-wide generators (crypto/rand, math/rand), so two in one process would share them; give each its own process with WithShard", n)
}

// maxShrinkRuns bounds the runs spent shrinking a failure.
const maxShrinkRuns = 200

// checkSeeded is Check under WithRuns or WithBudget: an engine.Check
// campaign whose runs go through the real client (engine.CheckConfig.Run),
// one at a time (runs seed process-wide generators), so it draws, tallies,
// shrinks and decides as locksim.Check does and says so in its words.
func (c *config) checkSeeded(t *testing.T, setup Setup, h *harness.Harness) {
	t.Helper()
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	base := c.Base
	base.Custom = placeholder{base.Design}
	note := "" // the first run's note on randomness no seed reaches
	cfg := engine.CheckConfig{
		Campaign: engine.Campaign{Base: base, Gen: c.Gen, Runs: c.Runs, For: c.For, Seed: seed,
			Shard: c.Shard, Shards: c.Shards, Invariants: c.Invariants, ShrinkRuns: maxShrinkRuns},
		Now:     time.Now, // the budget only; no run sees it
		Workers: 1,
		Run: func(s model.Spec, seed uint64) (*model.Result, []int, error) {
			s.Custom = nil // the run, its case and its report name the real client by Design
			r, err := c.run(t, s, seed, setup)
			if err != nil {
				return nil, nil, err
			}
			if note == "" {
				note = unseedable(r.History)
			}
			return r, nil, nil
		},
		MinRuns:       1, // a budget smaller than one run still makes one
		Undecided:     undecided,
		KeepAllBroken: true,
	}
	h.Campaign(t, cfg, func(res *engine.CheckResult) string {
		judged := tally{res: *res, unseedable: note}
		seeds := fmt.Sprintf("seeds %d..%d", seed, seed+uint64(max(res.Runs, 1)-1))
		if c.Shards > 1 {
			seeds = fmt.Sprintf("shard %d of %d: the seeds %d+i, i %% %d == %d, of %d..%d", c.Shard, c.Shards, seed, c.Shards, c.Shard, seed, seed+uint64(max(c.Runs, 1)-1))
		}
		return fmt.Sprintf("%s held in %d runs (%s)%s%s", c.name, res.Runs, seeds, &judged, c.linkedLine())
	})
}
