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
	html := filepath.Join(reports, CaseName("TestMyLock/sub")+".html")
	check := func(opts ...Option) *fakeTB {
		f := &fakeTB{TB: t, Test: "TestMyLock/sub"}
		Check(f, model.SetPxLua, append([]Option{WithFaults(sim.FaultPause), WithRuns(300), WithCaseDir(cases)}, opts...)...)
		return f
	}
	f := check(WithReportDir(reports))
	if !f.Broke {
		t.Fatal("set-px-lua held under pauses")
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatalf("no report after a failure: %v\nlogs: %q", err, f.Logs)
	}
	if !strings.Contains(string(b), "<html") || !strings.Contains(string(b), "set-px-lua") {
		t.Errorf("%s is not the failure's HTML report: %.200s", html, b)
	}
	if !strings.Contains(strings.Join(f.Logs, "\n"), "HTML report written to "+html) {
		t.Errorf("the log does not say where the report is: %q", f.Logs)
	}
	// The next run replays the saved case first, and reports it again.
	os.Remove(html)
	if f := check(WithReportDir(reports)); !f.Broke || !strings.Contains(strings.Join(f.Logs, "\n"), "the saved case still fails") {
		t.Fatalf("the saved case did not fail first: %q", f.Logs)
	}
	if _, err := os.Stat(html); err != nil {
		t.Errorf("no report from the replayed case: %v", err)
	}
	// From the environment, for every test of a CI job.
	env := t.TempDir()
	t.Setenv(ReportDirEnv, env)
	check()
	if _, err := os.Stat(filepath.Join(env, CaseName("TestMyLock/sub")+".html")); err != nil {
		t.Errorf("%s=%s wrote no report: %v", ReportDirEnv, env, err)
	}
	// Nothing when the check holds.
	held := t.TempDir()
	g := &fakeTB{TB: t, Test: "TestHolds"}
	Check(g, model.SetPxLua, WithFaults(), WithRuns(20), WithCaseDir(t.TempDir()), WithReportDir(held))
	if entries, _ := os.ReadDir(held); g.Broke || len(entries) > 0 {
		t.Errorf("a check that held (failed %v) wrote %d reports", g.Broke, len(entries))
	}
}

// A report directory that does not exist yet (a CI job's
// $RUNNER_TEMP/locksim-reports, never made) is created, from the option
// and from LOCKSIM_REPORT_DIR alike.
func TestReportDirIsCreated(t *testing.T) {
	for _, from := range []string{"option", "env"} {
		t.Run(from, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "not", "yet")
			t.Setenv(ReportDirEnv, "")
			opts := []Option{WithFaults(sim.FaultPause), WithRuns(300), WithCaseDir(t.TempDir())}
			if from == "option" {
				opts = append(opts, WithReportDir(dir))
			} else {
				t.Setenv(ReportDirEnv, dir)
			}
			f := &fakeTB{TB: t, Test: "TestMissingDir"}
			Check(f, model.SetPxLua, opts...)
			if _, err := os.Stat(filepath.Join(dir, "TestMissingDir.html")); !f.Broke || err != nil {
				t.Errorf("failed %v; report: %v\nlogs: %q", f.Broke, err, f.Logs)
			}
		})
	}
}

// Case and report names are short and unique: a plain test name is kept,
// a long one (a table test's) still saves, and names that differ only in
// punctuation or past the kept prefix get different files.
func TestCaseName(t *testing.T) {
	long := "TestTable/" + strings.Repeat("a very long table test case name, ", 12)
	for _, tc := range []struct{ name, want string }{
		{"TestMyLock", "TestMyLock"},
		{"TestMyLock/sub", "TestMyLock_sub-"},
		{long, "TestTable_a_very_long_table_test_case_name_a_very_long_table_tes-"},
		{"", "-"},
		{"..", "..-"},
	} {
		if got := CaseName(tc.name); got != tc.want && !(strings.HasSuffix(tc.want, "-") && strings.HasPrefix(got, tc.want) && len(got) == len(tc.want)+8) {
			t.Errorf("CaseName(%q) = %q, want %q (plus 8 hex digits when it ends in -)", tc.name, got, tc.want)
		}
	}
	seen := map[string]string{}
	for _, n := range []string{"TestX/a:b", "TestX/a;b", "TestX/a b", "TestX_a_b", "TestX/a_b", long + "1", long + "2"} {
		c := CaseName(n)
		if other, ok := seen[c]; ok {
			t.Errorf("%q and %q share the case name %q", other, n, c)
		}
		seen[c] = n
		if len(c) > 73 {
			t.Errorf("CaseName(%q) = %q: %d bytes, want at most 73", n, c, len(c))
		}
	}
	// A long name's case is saved (it was "file name too long") and
	// replayed by the next Check of that test.
	cases := t.TempDir()
	f := &fakeTB{TB: t, Test: long}
	Check(f, model.SetPxLua, WithFaults(sim.FaultPause), WithRuns(300), WithCaseDir(cases))
	if entries, _ := os.ReadDir(cases); !f.Broke || len(entries) != 1 || strings.Contains(strings.Join(f.Logs, "\n"), "not saved") {
		t.Fatalf("failed %v, %d cases saved; logs %q", f.Broke, len(entries), f.Logs)
	}
	g := &fakeTB{TB: t, Test: long}
	Check(g, model.SetPxLua, WithFaults(sim.FaultPause), WithRuns(300), WithCaseDir(cases))
	if !strings.Contains(strings.Join(g.Logs, "\n"), "the saved case still fails") {
		t.Errorf("the long name's case was not replayed: %q", g.Logs)
	}
}

// A case that could not be saved is not named by a replay line.
func TestNoReplayLineForAnUnsavedCase(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	f := &fakeTB{TB: t, Test: "TestUnsaved"}
	Check(f, model.SetPxLua, WithFaults(sim.FaultPause), WithRuns(300), WithCaseDir(filepath.Join(blocker, "cases")))
	logs := strings.Join(f.Logs, "\n")
	if !f.Broke || !strings.Contains(logs, "replay: no case file (not saved: ") || strings.Contains(logs, "locksim replay (") {
		t.Errorf("failed %v; logs:\n%s", f.Broke, logs)
	}
}
