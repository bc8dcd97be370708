package realclient

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/sim"
)

// exhaustiveFaults are the twins' fault model: what a correct single-node
// lock with validity survives (no clock jumps, which break every lease).
var exhaustiveFaults = []sim.FaultKind{sim.FaultPause, sim.FaultPartition, sim.FaultDelay, sim.FaultDrop, sim.FaultNodeCrash}

// exhaustiveOptions is a small configuration for an exhaustive check: two
// clients, one cycle each, one master that fsyncs every write.
func exhaustiveOptions(name string, extra ...Option) []Option {
	return append([]Option{WithName(name), WithWorkload(model.Workload{Cycles: 1, Work: 50 * time.Millisecond, Start: 5 * time.Millisecond}),
		WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}), WithFaults(exhaustiveFaults...),
		WithInvariants(invariant.MutualExclusion, invariant.Liveness)}, extra...)
}

// realclient.Check with WithExhaustive(1), as a user writes it: the
// plain-DEL twin fails with its smallest schedule saved and reported, the
// correct twin passes with the guarantee in the log, and the danger map
// page is written to LOCKSIM_REPORT_DIR.
//
// make long explores the twins' five fault kinds (about 1,800 schedules
// for each build); under -short the children explore pauses and delays
// only (about 700: every point still, and the plain-DEL build still
// breaks by a pause inside its release or a delayed DEL), as
// TestExhaustiveDangerMapPoints explores pauses only.
func TestExhaustiveCheckTwins(t *testing.T) {
	kinds := ""
	if testing.Short() {
		kinds = "pause,delay"
	}
	for build, fails := range map[string]bool{"plain-del": true, "correct": false} {
		reports, cases := t.TempDir(), t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestCheckCatchesEachBugAndPassesItsTwin$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "REALCLIENT_TWIN="+build, "REALCLIENT_CASE_DIR="+cases, "REALCLIENT_EXHAUSTIVE=1", "REALCLIENT_EXHAUSTIVE_FAULTS="+kinds,
			"LOCKSIM_REPORT_DIR="+reports)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		text := string(out)
		if (err != nil) != fails {
			t.Fatalf("%s: failed = %v, want %v:\n%s", build, err != nil, fails, text)
		}
		if !strings.Contains(text, "explored all ") {
			t.Errorf("%s: no guarantee in the log:\n%s", build, text)
		}
		danger, _ := filepath.Glob(filepath.Join(reports, "*-danger.html"))
		saved, _ := filepath.Glob(filepath.Join(cases, "*.json"))
		if len(danger) != 1 || fails != (len(saved) == 1) {
			t.Errorf("%s: danger maps %v, cases %v", build, danger, saved)
		}
		if fails && !strings.Contains(text, "broke mutual-exclusion (exhaustive, depth 1") {
			t.Errorf("%s: want a mutual-exclusion break:\n%s", build, text)
		}
		if i := strings.Index(text, "explored all "); i >= 0 {
			t.Logf("%s: %s", build, strings.SplitN(text[i:], "\n", 2)[0])
		}
	}
}

// The text and danger map come from engine's renderers: a result's
// danger map has one point per point of the fault-free run.
func TestExhaustiveDangerMapPoints(t *testing.T) {
	res, err := Exhaustive(t, newTwin(twinBugs{}), exhaustiveOptions("twin-correct", WithExhaustive(1), WithFaults(sim.FaultPause))...)
	if err != nil {
		t.Fatal(err)
	}
	if d := report.DangerMap(res); len(d.Points) != res.Points || res.Points == 0 {
		t.Errorf("danger map of %d points for %d points", len(d.Points), res.Points)
	}
}
