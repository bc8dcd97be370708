package realclient

import (
	"context"
	"fmt"
	"time"

	"locksim/harness"
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
// the seeds an unsharded check would use. Exhaustive mode refuses it, as
// it refuses WithRuns, WithBudget and WithPauseAt (random runs only).
func WithShard(i, n int) Option {
	return func(c *config) { c.Shard, c.Shards = i, n; c.RandomOnly = append(c.RandomOnly, "WithShard") }
}

// oneWorker is the log line of a check asked for more than one worker.
func oneWorker(n int) string {
	return fmt.Sprintf("ran one run at a time, not %d: a real client's runs seed process-wide generators (crypto/rand, math/rand), so two in one process would share them; give each its own process with WithShard", n)
}

// WithProgress calls f after each run (each schedule, in exhaustive
// mode) with the runs done and planned: WithRuns' n (this shard's share),
// rapid's -rapid.checks, or 0 when not known (a budget, the fuzzer), as
// locksim.WithProgress does (harness.WithProgress).
func WithProgress(f func(done, planned int)) Option { return shared(harness.WithProgress(f)) }

// WithContext stops the check between runs once ctx is done: no new run
// starts, and the test fails saying it was interrupted after N runs (a
// partial tally is no verdict), as locksim.WithContext does
// (harness.WithContext).
func WithContext(ctx context.Context) Option { return shared(harness.WithContext(ctx)) }
