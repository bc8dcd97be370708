package realclient

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/harness"
	"locksim/model"
	"locksim/report"
	"locksim/sim"
	vd "locksim/verdict"
)

// WithExhaustive makes Check an exhaustive check instead of generated
// runs: the real client's own fault-free run gives the points (every
// event the processes and nodes record, the wire's placement marks among
// them: acquire-send, release-send, extend-send and the replies), and
// every placement of depth (1 or 2) faults at those points, of each kind
// WithFaults allows that exhaustive mode places (engine.ExhaustiveKinds)
// and each duration class, is run, as `locksim check --exhaustive` does
// for a design. The configuration is the one the options give, with the
// design's defaults for the rest (nothing is drawn), and the seed WithSeed
// (default 1). The log states the bounded guarantee ("explored all N
// one-fault schedules ... at P points ...") and the danger map; the test
// fails if a counted invariant broke, with the smallest schedule of each
// way it broke, its case saved and its report written as Check's are. With
// WithReportDir (or LOCKSIM_REPORT_DIR) the danger map's HTML page is
// written there too, as <test>-danger.html.
func WithExhaustive(depth int) Option { return shared(harness.WithExhaustive(depth)) }

// WithMaxSchedules bounds an exhaustive check (default
// engine.DefaultMaxSchedules): a larger exploration is refused before any
// faulted run.
func WithMaxSchedules(n int) Option { return shared(harness.WithMaxSchedules(n)) }

// WithDurations names the duration classes an exhaustive check places
// ("ttl/2", "ttl+", ...: engine.DurClasses; default all of the
// configuration's).
func WithDurations(classes ...string) Option { return shared(harness.WithDurations(classes...)) }

// Exhaustive runs an exhaustive check of a real client (see WithExhaustive,
// which Check uses) and returns its result; the error is for a
// configuration that cannot run or a bound too small.
func Exhaustive(t *testing.T, setup Setup, opts ...Option) (*engine.ExhaustiveResult, error) {
	t.Helper()
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return c.exhaustiveCheck(t, setup)
}

func (c *config) exhaustiveCheck(t *testing.T, setup Setup) (*engine.ExhaustiveResult, error) {
	depth := max(c.Depth, 1)
	if err := c.RandomOnlyError(); err != nil {
		return nil, err // as locksim.Check refuses them
	}
	if c.goroutines > 1 {
		return nil, errors.Errorf("WithGoroutines(%d) with exhaustive mode: exhaustive mode places faults at the events of the spec's processes, and their goroutines' events are not mapped back to them yet; check several goroutines per process with generated runs (Check)", c.goroutines)
	}
	var kinds []sim.FaultKind
	for _, k := range c.Gen.Kinds {
		if slices.Contains(engine.ExhaustiveKinds, k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return nil, errors.Errorf("none of the fault kinds %v is placed by exhaustive mode (%v)", c.Gen.Kinds, engine.ExhaustiveKinds)
	}
	base := c.Base
	base.Custom = placeholder{base.Design}
	run := func(s model.Spec, seed uint64) (*model.Result, []int, error) {
		var steps []int
		r, err := runOnce(t, runConfig{name: c.name, setup: setup, spec: s, redisOptions: c.redisOptions, section: c.section,
			caller: c.caller, onLockError: c.onLockError, seed: seed, interleave: c.interleave, steps: &steps, lockKeys: c.lockKeys, keyQuorum: c.keyQuorum, valueArg: c.valueArg})
		if err != nil {
			return nil, nil, err
		}
		r.Spec.Custom = nil // the case and the report name the real client by Design
		c.noteLinked(r)
		return r, steps, nil
	}
	return engine.Exhaustive(engine.ExhaustiveConfig{Base: base, Seed: c.Seed, Depth: depth, Kinds: kinds,
		Durations: c.Durations, MaxSchedules: c.MaxSchedules, Workers: 1, Invariants: c.Invariants, Run: run, Undecided: undecided,
		Progress: c.Progress, Context: c.Context})
}

// checkExhaustive is Check under WithExhaustive.
func (c *config) checkExhaustive(t *testing.T, setup Setup, h *harness.Harness) {
	t.Helper()
	casePath := h.CasePath(t.Name())
	if c.Depth < 0 || c.Depth > 2 {
		t.Fatalf("realclient: exhaustive depth %d: want 1 or 2", c.Depth)
		return
	}
	res, err := c.exhaustiveCheck(t, setup)
	if err != nil {
		t.Fatalf("realclient: %s: %v", c.name, err)
		return
	}
	v := res.Verdict()
	var smallest *model.Result
	if v.Kind == vd.Broken && len(res.Breaks) > 0 {
		smallest, err = res.Rerun(res.Breaks[0].Smallest)
		if err != nil {
			t.Fatalf("realclient: %s: rerunning the smallest break: %v", c.name, err)
			return
		}
	}
	replay := func(i int) string {
		if i == 0 && smallest != nil {
			return "the case " + casePath + " (realclient.Run with the same setup)"
		}
		return ""
	}
	var text strings.Builder
	if err := report.ExhaustiveText(&text, res, 5, replay); err != nil {
		t.Fatal(err)
	}
	c.saveDanger(t.Logf, t.Name(), res)
	switch v.Kind {
	case vd.Held:
		t.Logf("realclient: %s: exhaustive, depth %d%s\n%s", c.name, res.Depth, c.linkedLine(), text.String())
		return
	case vd.Broken:
		if smallest == nil { // a break the result names no schedule of: nothing to save or show
			t.Logf("%s", text.String())
			t.Fatalf("realclient: %s: exhaustive, broken, but no way it broke was recorded", c.name)
			return
		}
	default:
		t.Logf("%s", text.String())
		t.Fatalf("realclient: %s: exhaustive, %s", c.name, v)
		return
	}
	saved := h.Save(t.Logf, t.Name(), smallest)
	t.Logf("realclient: %s: exhaustive, depth %d\n%s\nthe smallest schedule of the first way it breaks:\n%s",
		c.name, res.Depth, text.String(), exhaustiveReplay(c.failureReport(smallest, saved, t.Name()), t.Name(), saved))
	t.Fatalf("realclient: %s broke %s (exhaustive, depth %d: %d of %d schedules)", c.name, h.Broken(smallest), res.Depth, res.BrokenSchedules, res.Total())
}

// saveDanger writes the danger map's HTML page to the report directory,
// if any.
func (c *config) saveDanger(logf func(string, ...any), testName string, res *engine.ExhaustiveResult) {
	if c.ReportDir == "" || len(res.Danger) == 0 || res.FirstError != nil {
		return
	}
	if err := os.MkdirAll(c.ReportDir, 0o755); err != nil {
		logf("realclient: danger map not written: %v", err)
		return
	}
	path := filepath.Join(c.ReportDir, harness.CaseName(testName)+"-danger.html")
	f, err := os.Create(path)
	if err == nil {
		err = report.DangerHTML(f, report.DangerMap(res))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		logf("realclient: danger map not written: %v", err)
		return
	}
	logf("%s", fmt.Sprintf("realclient: danger map written to %s", path))
}

// exhaustiveReplay replaces a failure report's replay line (rapid's) with
// an exhaustive check's: the saved case runs first on the next go test.
func exhaustiveReplay(text, testName, casePath string) string {
	return harness.ReplayLine(text, fmt.Sprintf("replay: go test -run '^%s$' (the saved case runs first while it fails),\n"+
		"   or from Go: c, _ := locksim.LoadCase(%q); r, err := realclient.Run(t, c, yourSetup)\n", regexp.QuoteMeta(testName), casePath))
}
