package realclient

import (
	"io/fs"
	"testing"
	"time"

	"github.com/pkg/errors"

	"locksim"
	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	vd "locksim/verdict"
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

// checkSeeded is Check under WithRuns or WithBudget: an engine.Check
// campaign whose runs go through the real client (engine.CheckConfig.Run),
// one at a time (runs seed process-wide generators), so it draws, tallies,
// shrinks and decides as locksim.Check does and says so in its words.
func (c *config) checkSeeded(t *testing.T, setup Setup, casePath string) {
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
	res, err := engine.Check(cfg)
	if err != nil {
		t.Fatalf("realclient: %s: %v", c.name, err)
		return
	}
	switch v := res.Verdict(); v.Kind {
	case vd.Held:
		judged := tally{res: *res, unseedable: note}
		t.Logf("realclient: %s held in %d runs (seeds %d..%d)%s%s", c.name, res.Runs, seed, seed+uint64(max(res.Runs, 1)-1), &judged, c.linkedLine())
		return
	case vd.Broken:
	default:
		t.Fatalf("realclient: %s: %s", c.name, v)
		return
	}
	r := res.Minimal
	saved := casePath
	if err := engine.NewCase(r).Save(casePath); err != nil {
		saved = "(not saved: " + err.Error() + ")"
	}
	c.saveReport(t.Logf, t.Name(), r)
	f := res.FirstFail
	t.Logf("realclient: %d of %d runs broke a counted invariant; the first was run %d (seed %d), configuration: %s\n%s",
		res.BrokenRuns, res.Runs, f.Index, f.Seed, f.Config, c.failureReport(r, saved, t.Name()))
	t.Fatalf("realclient: %s broke %s", c.name, brokenText(r))
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
