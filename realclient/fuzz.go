package realclient

import (
	"fmt"
	"testing"

	"locksim/harness"
	"locksim/model"
	"locksim/scenarios"
)

// Fuzz runs a real client under Go's coverage-guided fuzzer, as
// locksim.Fuzz does a design: each input's bytes drive the generator's
// draws (the configuration the options leave open, then the faults) and
// its hash seeds the run, so `go test -fuzz=FuzzMyLock` explores fault
// schedules guided by the coverage they reach in your library, go-redis
// and locksim. A failing input is saved under testdata/fuzz/<FuzzName>/
// and fails again under plain `go test`; the log shows the shrunk
// schedule, the explanation and the timeline, the case is saved for Run,
// and the HTML report is written as Check writes it (WithReportDir,
// LOCKSIM_REPORT_DIR).
//
//	func FuzzMyLock(f *testing.F) { realclient.Fuzz(f, mySetup, realclient.WithName("my-lock")) }
//
// Options are Check's; the run budgets and WithExhaustive do not apply;
// WithProgress sees each input's run (planned 0) and WithContext stops
// them; with WithInterleave the input's hash also seeds the interleaving.
// Each input's run goes through the engine as Check's runs do
// (engine.Inputs), shrunk keeping its first counted invariant broken. Fuzz
// must not run in parallel with other tests (runs seed process-wide
// generators).
func Fuzz(f *testing.F, setup Setup, opts ...Option) {
	f.Helper()
	c, err := newConfig(opts)
	if err != nil {
		f.Fatal(err)
		return
	}
	// The fuzzer's inputs go through the engine as Check's runs do
	// (engine.Inputs over the real client's seam), shrunk keeping the
	// first counted invariant broken.
	m := &seam{c: &c, setup: setup}
	cfg := c.engineConfig(m)
	cfg.KeepAllBroken = false
	in, err := cfg.Inputs(0)
	if err != nil {
		f.Fatalf("realclient: %s: %v", c.name, err)
		return
	}
	for _, b := range harness.Corpus() {
		f.Add(b)
	}
	name := f.Name()
	h := c.harness(nil, setup) // no Rerun: the fuzzer replays its own inputs
	h.Report = func(r *model.Result, saved, testName string) string {
		return fuzzReplay(c.failureReport(r, saved, testName), testName, saved)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m.t = t
		s := c.Gen.RunDraws(scenarios.ByteDraws(data), c.Base)
		if !h.Input(t, in, s, harness.FuzzSeed(data), name, true) {
			h.Stop(t, in.Result().Verdict())
		}
	})
}

// fuzzReplay replaces a failure report's replay line (rapid's) with the
// fuzzer's: Go saves the failing input under testdata/fuzz/<FuzzName>/
// and prints the -run pattern that replays it; the case file replays it
// from Go.
func fuzzReplay(text, fuzzName, casePath string) string {
	return harness.ReplayLine(text, fmt.Sprintf("replay: go test -run '^%s$' replays every input under testdata/fuzz/%s (plain go test does too; go test -fuzz prints the one that failed),\n"+
		"   or from Go: c, _ := locksim.LoadCase(%q); r, err := realclient.Run(t, c, yourSetup)\n", fuzzName, fuzzName, casePath))
}
