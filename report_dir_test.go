package locksim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"locksim/model"
	"locksim/sim"
)

// WithReportDir writes a failure's HTML report to dir/<test>.html, both
// when the check finds the failure and when the saved case replays it
// first; LOCKSIM_REPORT_DIR does the same for tests that do not ask; a
// check that holds writes none.
func TestReportDir(t *testing.T) {
	t.Setenv(ReportDirEnv, "")
	cases, reports := t.TempDir(), t.TempDir()
	html := filepath.Join(reports, "TestMyLock_sub.html")
	check := func(opts ...Option) *fakeTB {
		f := &fakeTB{TB: t, name: "TestMyLock/sub"}
		Check(f, model.SetPxLua, append([]Option{WithFaults(sim.FaultPause), WithRuns(300), WithCaseDir(cases)}, opts...)...)
		return f
	}
	f := check(WithReportDir(reports))
	if !f.failed {
		t.Fatal("set-px-lua held under pauses")
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatalf("no report after a failure: %v\nlogs: %q", err, f.logs)
	}
	if !strings.Contains(string(b), "<html") || !strings.Contains(string(b), "set-px-lua") {
		t.Errorf("%s is not the failure's HTML report: %.200s", html, b)
	}
	if !strings.Contains(strings.Join(f.logs, "\n"), "HTML report written to "+html) {
		t.Errorf("the log does not say where the report is: %q", f.logs)
	}
	// The next run replays the saved case first, and reports it again.
	os.Remove(html)
	if f := check(WithReportDir(reports)); !f.failed || !strings.Contains(strings.Join(f.logs, "\n"), "the saved case still fails") {
		t.Fatalf("the saved case did not fail first: %q", f.logs)
	}
	if _, err := os.Stat(html); err != nil {
		t.Errorf("no report from the replayed case: %v", err)
	}
	// From the environment, for every test of a CI job.
	env := t.TempDir()
	t.Setenv(ReportDirEnv, env)
	check()
	if _, err := os.Stat(filepath.Join(env, "TestMyLock_sub.html")); err != nil {
		t.Errorf("%s=%s wrote no report: %v", ReportDirEnv, env, err)
	}
	// Nothing when the check holds.
	held := t.TempDir()
	g := &fakeTB{TB: t, name: "TestHolds"}
	Check(g, model.SetPxLua, WithFaults(), WithRuns(20), WithCaseDir(t.TempDir()), WithReportDir(held))
	if entries, _ := os.ReadDir(held); g.failed || len(entries) > 0 {
		t.Errorf("a check that held (failed %v) wrote %d reports", g.failed, len(entries))
	}
}
