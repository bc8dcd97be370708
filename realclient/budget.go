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
func WithRuns(n int) Option { return func(c *config) { c.runs = n } }

// WithBudget makes Check run generated runs, as WithRuns does, until d of
// wall time has passed (and at most WithRuns' n, if given). The budget
// only decides how many runs there are: no run sees the wall clock.
func WithBudget(d time.Duration) Option { return func(c *config) { c.budget = d } }

// WithSeed sets the first seed of WithRuns and WithBudget (default 1).
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// maxShrinkRuns bounds the runs spent shrinking a failure.
const maxShrinkRuns = 200

// checkSeeded is Check under WithRuns or WithBudget: an engine.Check
// campaign whose runs go through the real client (engine.CheckConfig.Run),
// one at a time (runs seed process-wide generators), so it draws, tallies,
// shrinks and decides as locksim.Check does and says so in its words.
func (c *config) checkSeeded(t *testing.T, setup Setup, h *harness.Harness) {
	t.Helper()
	seed := c.seed
	if seed == 0 {
		seed = 1
	}
	base := c.spec
	base.Custom = placeholder{base.Design}
	note := "" // the first run's note on randomness no seed reaches
	cfg := engine.CheckConfig{
		Campaign: engine.Campaign{Base: base, Gen: c.gen, Runs: c.runs, For: c.budget, Seed: seed,
			Invariants: c.invariants, ShrinkRuns: maxShrinkRuns},
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
		Undecided:     undecided,
		KeepAllBroken: true,
	}
	h.Campaign(t, cfg, func(res *engine.CheckResult) string {
		judged := tally{res: *res, unseedable: note}
		return fmt.Sprintf("%s held in %d runs (seeds %d..%d)%s%s", c.name, res.Runs, seed, seed+uint64(max(res.Runs, 1)-1), &judged, c.linkedLine())
	})
}
