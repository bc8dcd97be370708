package locksim

import (
	"testing"

	"locksim/harness"
	"locksim/model/invariant"
	"locksim/scenarios"
)

// Fuzz runs a design under Go's coverage-guided fuzzer: each input's bytes
// drive the one generator's draws (scenarios.ByteDraws: the configuration
// the options leave open, then the faults), and its hash is the run's
// seed, so `go test -fuzz=FuzzMyLock` explores fault schedules guided by
// the coverage they reach in the design's code and in locksim's (the
// checkers' branches, the nodes' states). A failing input is saved by Go
// under testdata/fuzz/<FuzzName>/ and fails again under plain `go test`;
// the log shows the shrunk schedule, each violation explained and the
// timeline, as Check does, and the shrunk case is saved under
// testdata/locksim/ for `locksim replay`.
//
//	func FuzzMyLock(f *testing.F) { locksim.Fuzz(f, "set-px-lua") }
//
// Options are Check's; the run budgets (WithRuns, WithBudget, WithSeed,
// WithWorkers) and exhaustive mode do not apply: the fuzzer decides.
// Each input's run goes through the engine as Check's runs do
// (engine.Inputs: the model's pooled path, the same tally and shrinking);
// WithProgress sees each (planned 0), WithContext stops them. The
// seed corpus is harness.Corpus (16) inputs of random bytes from fixed seeds.
func Fuzz(f *testing.F, design any, opts ...Option) {
	f.Helper()
	c := config{}
	c.CaseDir = "testdata/locksim"
	c.Gen.Swarm = true
	if err := setDesign(&c.Base, design); err != nil {
		f.Fatalf("locksim.Fuzz: %v", err)
		return
	}
	for _, o := range opts {
		o(&c)
	}
	if err := c.OptionError(); err != nil {
		f.Fatalf("locksim.Fuzz: %v", err)
		return
	}
	if len(c.Invariants) > 0 {
		ids, err := invariant.Parse(invariant.Names(c.Invariants))
		if err != nil {
			f.Fatalf("locksim.Fuzz: %v", err)
			return
		}
		c.Invariants = ids
	}
	c.resolve()
	// The fuzzer's inputs run as Check's runs do (the model's pooled
	// path), tallied and shrunk by the engine (engine.Inputs).
	in, err := c.check.Inputs(0)
	if err != nil {
		f.Fatalf("locksim.Fuzz: %v", err)
		return
	}
	for _, b := range harness.Corpus() {
		f.Add(b)
	}
	name := f.Name()
	h := &harness.Harness{Prefix: "locksim", ErrPrefix: "locksim.Fuzz", Who: "design " + designName(c.check.Base), CaseDir: c.CaseDir}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := c.check.Gen.RunDraws(scenarios.ByteDraws(data), c.check.Base)
		if !h.Input(t, in, s, FuzzSeed(data), name, true) {
			h.Stop(t, in.Result().Verdict())
		}
	})
}

// FuzzSeed is the run seed of a fuzzer input: its FNV-1a hash
// (harness.FuzzSeed).
func FuzzSeed(data []byte) uint64 { return harness.FuzzSeed(data) }
