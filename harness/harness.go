package harness

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/verdict"
)

// TB is what a harness needs of a test: *testing.T, *testing.B and
// *testing.F satisfy it.
type TB interface {
	Logger
	Name() string
}

// Logger is what failing a test takes: TB's, and rapid's *rapid.T.
type Logger interface {
	Helper()
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Harness is one test's check as its adapter sets it up: how its messages
// name what is checked, where its case and report go, and how a saved
// case runs again. The flow is the same for every adapter.
type Harness struct {
	// Prefix starts the log lines and the failure message ("locksim",
	// "realclient"); ErrPrefix the messages of a check that decided
	// nothing or could not run ("locksim.Check"; Prefix when empty).
	Prefix, ErrPrefix string
	// Who names what is checked: "design fenced", "twin".
	Who string
	// Design is the design name a saved case must have to be this test's
	// (another design's case under the same test name is left alone).
	Design string
	// CaseDir is where the failing case is saved; ReportDir, if set,
	// where its HTML report is written.
	CaseDir, ReportDir string
	// Rerun runs a saved case again with its invariants counted: a result
	// that breaks nothing (or an error) means it is fixed.
	Rerun func(c engine.Case) (*model.Result, error)
	// Report is the failure log of a run whose case is saved at saved
	// (FailureReport when nil).
	Report func(r *model.Result, saved, testName string) string
	// ListSep separates the broken invariants in the failure message
	// ("," when empty).
	ListSep string
}

// CasePath is where a test's case is saved: CaseDir/CaseName(test).json.
func (h *Harness) CasePath(testName string) string {
	return filepath.Join(h.CaseDir, CaseName(testName)+".json")
}

func (h *Harness) errPrefix() string {
	if h.ErrPrefix != "" {
		return h.ErrPrefix
	}
	return h.Prefix
}

func (h *Harness) report(r *model.Result, saved, testName string) string {
	if h.Report != nil {
		return h.Report(r, saved, testName)
	}
	return FailureReport(r, saved, testName)
}

// Broken is the failure message's list of the counted invariants r broke.
func (h *Harness) Broken(r *model.Result) string {
	sep := h.ListSep
	if sep == "" {
		sep = ","
	}
	ids := invariant.Broken(r.Failures())
	ss := make([]string, len(ids))
	for i, id := range ids {
		ss[i] = string(id)
	}
	return strings.Join(ss, sep)
}

// ReplaySaved replays the test's saved case, if any: while it still fails
// the test fails at once with its report (commit the case to pin the
// regression; delete it once fixed). It reports whether the test failed.
func (h *Harness) ReplaySaved(t TB) bool {
	t.Helper()
	path := h.CasePath(t.Name())
	sc, err := engine.LoadCase(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Logf("%s: ignoring the saved case: %v", h.Prefix, err)
		return false
	}
	if sc.Spec.Design != h.Design {
		return false // a case of another design under the same test name
	}
	r, err := h.Rerun(sc)
	if err != nil || r.Err != nil || len(r.Failures()) == 0 {
		t.Logf("%s: the saved case %s no longer fails; delete it if the fix is for good", h.Prefix, path)
		return false
	}
	h.WriteReport(t.Logf, t.Name(), r)
	t.Logf("%s: the saved case still fails (delete %s once fixed)\n%s", h.Prefix, path, h.report(r, path, t.Name()))
	t.Fatalf("%s: %s broke %s", h.Prefix, h.Who, h.Broken(r))
	return true
}

// Save saves a failing run as the test's case and writes its HTML report
// to the report directory, if any. It returns the case's path, or why it
// was not saved ("(not saved: ...)", NotSaved), for the failure log.
func (h *Harness) Save(logf func(string, ...any), testName string, r *model.Result) string {
	path := h.CasePath(testName)
	saved := path
	if err := engine.NewCase(r).Save(path); err != nil {
		saved = "(not saved: " + err.Error() + ")"
	}
	h.WriteReport(logf, testName, r)
	return saved
}

// WriteReport writes the HTML report of a failure to the report
// directory, if one was given, creating it when it is missing.
func (h *Harness) WriteReport(logf func(string, ...any), testName string, r *model.Result) {
	if h.ReportDir == "" {
		return
	}
	path, err := SaveReport(h.ReportDir, testName, r)
	if err != nil {
		logf("%s: no HTML report: %v", h.Prefix, err)
		return
	}
	logf("%s: HTML report written to %s", h.Prefix, path)
}

// Fail logs a failing run (intro, if any, then its failure report with
// the case saved at saved) and fails the test with the message that names
// the broken invariants: the same message for the same bug, so rapid and
// the fuzzer can shrink by it.
func (h *Harness) Fail(t Logger, r *model.Result, saved, testName, intro string) {
	t.Helper()
	if intro == "" {
		t.Logf("%s", h.report(r, saved, testName))
	} else {
		t.Logf("%s: %s\n%s", h.Prefix, intro, h.report(r, saved, testName))
	}
	t.Fatalf("%s: %s broke %s", h.Prefix, h.Who, h.Broken(r))
}

// Stop fails the test for a check that could not run or decided nothing.
func (h *Harness) Stop(t Logger, why any) {
	t.Helper()
	t.Fatalf("%s: %s: %v", h.errPrefix(), h.Who, why)
}

// Campaign runs a check of random runs (engine.Check: models, or a real
// client through CheckConfig.Run) and decides the test by its verdict:
// held logs held(res); broken saves the shrunk first failure as the
// test's case and fails with it; anything else (a run that stopped, no
// verdict, interrupted) fails saying why.
func (h *Harness) Campaign(t TB, cfg engine.CheckConfig, held func(*engine.CheckResult) string) {
	t.Helper()
	res, err := engine.Check(cfg)
	if err != nil {
		h.Stop(t, err)
		return
	}
	switch v := res.Verdict(); v.Kind {
	case verdict.Held:
		t.Logf("%s: %s", h.Prefix, held(res))
		return
	case verdict.Broken:
	default:
		h.Stop(t, v)
		return
	}
	r := res.Minimal
	if r == nil { // the runner failed to run the shrunk schedule again
		h.Stop(t, fmt.Sprintf("run %d (seed %d) broke a counted invariant, but its shrunk schedule did not run again", res.FirstFail.Index, res.FirstFail.Seed))
		return
	}
	saved := h.Save(t.Logf, t.Name(), r)
	f := res.FirstFail
	h.Fail(t, r, saved, t.Name(), fmt.Sprintf("%d of %d runs broke a counted invariant%s; the first was run %d (seed %d), configuration: %s",
		res.BrokenRuns, res.Runs, percent(res.BrokenRuns, res.Runs), f.Index, f.Seed, f.Config))
}

func percent(n, total int) string {
	if total == 0 {
		return ""
	}
	return fmt.Sprintf(" (%.1f%%)", 100*float64(n)/float64(total))
}

// Input runs one input given from outside the campaign through the
// engine (engine.Inputs.Run: rapid's draws, the fuzzer's bytes) and
// decides it as Campaign decides a run: one that stopped fails the test
// saying so ("run stopped: ..."); one that broke a counted invariant is
// shrunk when shrink is set (the fuzzer's way: engine.Inputs.Shrink;
// rapid shrinks its own draws, so its adapter leaves it unset), saved as
// the test's case, and fails with the failure message (with shrink, after
// the configuration's line). It reports whether the run was made: false
// when the check's Context has stopped it.
func (h *Harness) Input(t Logger, in *engine.Inputs, s model.Spec, seed uint64, testName string, shrink bool) bool {
	t.Helper()
	o, r, ok := in.Run(s, seed)
	switch {
	case !ok:
		return false
	case o.Error != "":
		h.Stop(t, "run stopped: "+o.Error)
		return true
	case r == nil:
		return true
	}
	intro := ""
	if shrink {
		if m := in.Shrink(s, seed, o); m != nil && m.Err == nil && len(m.Failures()) > 0 {
			r = m
		}
		intro = "configuration " + scenarios.Describe(r.Spec)
	}
	h.Fail(t, r, h.Save(t.Logf, testName, r), testName, intro)
	return true
}
