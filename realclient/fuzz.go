package realclient

import (
	"fmt"
	"slices"
	"testing"

	"locksim/engine"
	"locksim/harness"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
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
// with WithInterleave the input's hash also seeds the interleaving. Fuzz
// must not run in parallel with other tests (runs seed process-wide
// generators).
func Fuzz(f *testing.F, setup Setup, opts ...Option) {
	f.Helper()
	c, err := newConfig(opts)
	if err != nil {
		f.Fatal(err)
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
		s := c.Gen.RunDraws(scenarios.ByteDraws(data), c.Base)
		seed := harness.FuzzSeed(data)
		r, err := c.run(t, s, seed, setup)
		if err != nil {
			h.Stop(t, err)
		}
		if r.Err != nil {
			h.Stop(t, "run failed: "+r.Err.Error())
		}
		if len(r.Failures()) == 0 {
			return
		}
		want := invariant.Broken(r.Failures())[0]
		engine.Shrink(s.Faults, func(fs []sim.Fault) bool {
			s2 := s
			s2.Faults = fs
			r2, err := c.run(t, s2, seed, setup)
			if err != nil || r2.Err != nil || !slices.Contains(invariant.Broken(r2.Failures()), want) {
				return false
			}
			r = r2
			return true
		}, maxShrinkRuns)
		h.Fail(t, r, h.Save(t.Logf, name, r), name, "configuration "+scenarios.Describe(r.Spec))
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
