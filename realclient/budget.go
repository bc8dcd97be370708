package realclient

import (
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/pkg/errors"

	"locksim"
	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
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

// replaySaved replays the test's saved case, if any, with setup: while it
// still fails the test fails at once with its report, as locksim.Check
// does (commit the case to pin the regression; delete it once fixed). It
// reports whether the test failed on it.
func (c *config) replaySaved(t *testing.T, path string, setup Setup) bool {
	t.Helper()
	sc, err := locksim.LoadCase(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Logf("realclient: ignoring the saved case: %v", err)
		return false
	}
	if sc.Spec.Design != c.spec.Design {
		return false // a case of another lock under the same test name
	}
	invs := c.invariants
	if len(invs) == 0 {
		invs = sc.Invariants
	}
	r, err := c.run(t, sc.Spec.WithDefaults(), sc.Seed, setup)
	if err == nil && r.Err == nil {
		r.CountOnly(invs)
	}
	if err != nil || r.Err != nil || len(r.Failures()) == 0 {
		t.Logf("realclient: the saved case %s no longer fails; delete it if the fix is for good", path)
		return false
	}
	c.saveReport(t.Logf, t.Name(), r)
	t.Logf("realclient: the saved case still fails (delete %s once fixed)\n%s", path, c.failureReport(r, path, t.Name()))
	t.Fatalf("realclient: %s broke %s", c.name, brokenText(r))
	return true
}

// checkSeeded is Check under WithRuns or WithBudget.
func (c *config) checkSeeded(t *testing.T, setup Setup, casePath string) {
	t.Helper()
	start := time.Now()
	seed := c.seed
	if seed == 0 {
		seed = 1
	}
	runs := 0
	judged := newTally(c.invariants, c.spec.WithDefaults().CheckConfig(), c.gen.KindsDrawn(), c.runs)
	for i := 0; c.runs == 0 || i < c.runs; i++ {
		if c.budget > 0 && time.Since(start) >= c.budget && i > 0 {
			break // the budget decides how many runs, but one always runs
		}
		s := c.gen.Run(scenarios.Rand(seed+uint64(i)), c.spec)
		r, err := c.run(t, s, seed+uint64(i), setup)
		if err != nil {
			t.Fatalf("realclient: %s: %v", c.name, err)
		}
		if r.Err != nil {
			t.Fatalf("realclient: %s: run %d (seed %d) failed: %v", c.name, i, seed+uint64(i), r.Err)
		}
		runs++
		if len(r.Failures()) == 0 {
			judged.add(r)
			continue
		}
		broken := invariant.Broken(r.Failures())
		still := func(fs []sim.Fault) bool {
			s2 := s
			s2.Faults = fs
			r2, err := c.run(t, s2, seed+uint64(i), setup)
			if err != nil || r2.Err != nil || len(r2.Failures()) == 0 {
				return false
			}
			if slices.Equal(invariant.Broken(r2.Failures()), broken) {
				r = r2
				return true
			}
			return false
		}
		engine.Shrink(s.Faults, still, maxShrinkRuns)
		saved := casePath
		if err := locksim.NewCase(r).Save(casePath); err != nil {
			saved = "(not saved: " + err.Error() + ")"
		}
		c.saveReport(t.Logf, t.Name(), r)
		t.Logf("realclient: run %d of %d (seed %d) broke a counted invariant; configuration: %s\n%s",
			i+1, runs, seed+uint64(i), scenarios.Describe(r.Spec), c.failureReport(r, saved, t.Name()))
		t.Fatalf("realclient: %s broke %s", c.name, brokenText(r))
		return
	}
	if nv := judged.noVerdict(); nv != "" {
		t.Fatalf("realclient: %s: no verdict: %s", c.name, nv)
		return
	}
	t.Logf("realclient: %s held in %d runs (seeds %d..%d)%s%s", c.name, runs, seed, seed+uint64(max(runs, 1)-1), judged, c.linkedLine())
}

func brokenText(r *model.Result) string {
	ids := invariant.Broken(r.Failures())
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += string(id)
	}
	return s
}
