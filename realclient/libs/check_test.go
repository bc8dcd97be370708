package libs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	. "locksim/realclient"
	"locksim/sim"
)

// Check fails a test whose lock breaks under a generated pause, with a
// stable message, the shrunk schedule, the timeline and a replay line, and
// saves a case that Run replays to the same history.
//
// The test starts itself as a process of its own; there (os.Getenv("REALCLIENT_USER_CHECK") != "") it is
// the child that the rest of the test judges.
func TestCheckFailsWithMinimalSchedule(t *testing.T) {
	if os.Getenv("REALCLIENT_USER_CHECK") != "" {
		Check(t, newRedsync(), WithName("redsync"), WithFaults(sim.FaultPause), WithCaseDir(os.Getenv("REALCLIENT_CASE_DIR")))
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckFailsWithMinimalSchedule$", "-test.count=1", "-rapid.seed=1")
	reports := filepath.Join(t.TempDir(), "reports", "not-yet") // created by Check
	cmd.Env = append(os.Environ(), "REALCLIENT_USER_CHECK=1", "REALCLIENT_CASE_DIR="+dir, locksim.ReportDirEnv+"="+reports)
	cmd.Dir = t.TempDir() // rapid's fail files go there, not into the package
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err == nil {
		t.Fatalf("the user's check passed; want a failure:\n%s", text)
	}
	for _, want := range []string{
		"realclient: redsync broke stale-write",
		"fault schedule:\n",
		"pause ",
		"Timeline",
		"replay: go test -run '^TestCheckFailsWithMinimalSchedule$'",
		"realclient.Run(t, c, yourSetup)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	html := filepath.Join(reports, "TestCheckFailsWithMinimalSchedule.html")
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<html") || !strings.Contains(text, "HTML report written to "+html) {
		t.Errorf("LOCKSIM_REPORT_DIR: no HTML report at %s (%v), or the log does not say where", html, err)
	}
	// Without -v or -rapid.v the log leaves out rapid's draw lines.
	if strings.Contains(text, "[rapid] draw") {
		t.Errorf("the failing check's log lists rapid's draws:\n%s", text)
	}
	c, err := locksim.LoadCase(filepath.Join(dir, "TestCheckFailsWithMinimalSchedule.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Spec.Design != DesignPrefix+"redsync" || len(c.Spec.Faults) == 0 {
		t.Errorf("case = design %q with %d faults, want real:redsync with the schedule", c.Spec.Design, len(c.Spec.Faults))
	}
	r, err := Run(t, c, newRedsync())
	if err != nil {
		t.Fatal(err)
	}
	if got := r.History.Hash(); got != c.HistoryHash {
		t.Errorf("replayed history hash %s, case has %s", got, c.HistoryHash)
	}
	if len(r.Violations) == 0 {
		t.Errorf("the replay broke nothing; the case says %v", c.Broken)
	}
}

// What one bubble cannot simulate is refused with an error that says why.
func TestRefusesWhatOneBubbleCannotSimulate(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec model.Spec
		want string
	}{
		{"client clock jump", model.Spec{Faults: []sim.Fault{{Kind: sim.FaultClockJump, Target: "A", By: time.Second}}}, "per-client clock skew"},
		{"client clock drift", model.Spec{Faults: []sim.Fault{{Kind: sim.FaultClockDrift, Target: "B", RatePPM: 1000}}}, "per-client clock skew"},
	} {
		tc.spec.Design = DesignPrefix + "redislock"
		_, err := Run(t, locksim.Case{Spec: tc.spec, Seed: 1}, newRedislock)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	// A node's clock is the world's to move.
	r := runSpec(t, "redislock", model.Spec{Faults: []sim.Fault{{Kind: sim.FaultClockJump, Target: "r1", By: time.Second, At: time.Millisecond}}}, newRedislock)
	if r.Err != nil {
		t.Errorf("node clock jump: %v", r.Err)
	}
}
