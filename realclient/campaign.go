package realclient

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"locksim/engine"
	"locksim/harness"
	"locksim/model"
	vd "locksim/verdict"
)

// This file is the real client's side of the engine's run seam
// (engine.CheckConfig.Run): every campaign kind of Check and Fuzz goes
// through the engine, which draws, judges, tallies (coverage, vacuous and
// undecided runs), reports progress, stops on cancellation, shrinks and
// decides as it does for a model; the adapters here only say how a run is
// made (seam.run) and where its inputs come from. Exhaustive mode is
// engine.Exhaustive with the same kind of runner (exhaustive.go).
//
//	seeded runs (WithRuns, WithBudget, WithShard): engine.Check   (checkSeeded)
//	rapid's runs (the default):                    engine.Inputs  (checkRapid)
//	the fuzzer (Fuzz):                             engine.Inputs  (fuzz.go)

// maxShrinkRuns bounds the runs spent shrinking a failure.
const maxShrinkRuns = 200

// seam makes a check's runs through the real client.
type seam struct {
	c     *config
	setup Setup
	// t is the test the runs belong to (the fuzzer's changes per input).
	t *testing.T
	// note is the first run's note on randomness no seed reaches.
	note string
}

// run is the engine's Run: one run of spec s under seed.
func (m *seam) run(s model.Spec, seed uint64) (*model.Result, []int, error) {
	s.Custom = nil // the run, its case and its report name the real client by Design
	r, err := m.c.run(m.t, s, seed, m.setup)
	if err != nil {
		return nil, nil, err
	}
	if m.note == "" {
		m.note = unseedable(r.History)
	}
	return r, nil, nil
}

// engineConfig is the engine check of c whose runs go through m: one at
// a time (runs seed process-wide generators), with the check's runs,
// budget, seed, shards, progress and cancellation, shrinking keeping every
// counted invariant the first failure broke.
func (c *config) engineConfig(m *seam) engine.CheckConfig {
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	base := c.Base
	base.Custom = placeholder{base.Design}
	return engine.CheckConfig{
		Campaign: engine.Campaign{Base: base, Gen: c.Gen, Runs: c.Runs, For: c.For, Seed: seed,
			Shard: c.Shard, Shards: c.Shards, Invariants: c.Invariants, ShrinkRuns: maxShrinkRuns},
		Now:           time.Now, // the budget only; no run sees it
		Workers:       1,
		Run:           m.run,
		MinRuns:       1, // a budget smaller than one run still makes one
		Undecided:     undecided,
		KeepAllBroken: true,
		Progress:      c.Progress,
		Context:       c.Context,
	}
}

// notes are the lines a real client's held log adds to a model check's
// (harness.HeldText): the library modules the runs linked, and a note on
// randomness no seed reaches.
func (c *config) notes(m *seam) []string {
	out := []string{strings.TrimPrefix(c.linkedLine(), "; ")}
	if m.note != "" {
		out = append(out, "note: "+m.note)
	}
	return out
}

// checkSeeded is Check under WithRuns or WithBudget: an engine.Check
// campaign whose runs go through the real client, so it draws, tallies,
// shrinks and decides as locksim.Check does and says so in its words.
func (c *config) checkSeeded(t *testing.T, setup Setup, h *harness.Harness) {
	t.Helper()
	m := &seam{c: c, setup: setup, t: t}
	cfg := c.engineConfig(m)
	h.Campaign(t, cfg, func(res *engine.CheckResult) string {
		return h.HeldText(res, harness.Seeds(cfg.Seed, res.Runs, c.Shard, c.Shards, c.Runs), c.notes(m)...)
	})
}

// checkRapid is Check's default: rapid draws each run's configuration
// and faults from the generator locksim check uses (and shrinks them),
// and each run goes through the engine (engine.Inputs), which judges and
// tallies it as a seeded run; the runs that all held must have judged
// something (the verdict's words are the engine's).
func (c *config) checkRapid(t *testing.T, setup Setup, h *harness.Harness) {
	t.Helper()
	m := &seam{c: c, setup: setup, t: t}
	checks := rapidChecks()
	in, err := c.engineConfig(m).Inputs(checks)
	if err != nil {
		h.Stop(t, err)
		return
	}
	rapid.Check(rapidTB(t), func(rt *rapid.T) {
		s := c.Gen.RunRapid(rt, c.Base)
		if c.genFault != nil {
			s.Faults = c.genFault(rt, s)
		}
		seed := rapid.Uint64().Draw(rt, "seed")
		// The failure message is the same for the same bug, so rapid's
		// shrinking works; a run Context stopped is not made.
		h.Input(rt, in, s, seed, t.Name(), false)
	})
	if t.Failed() {
		return
	}
	res := in.Result()
	if v := res.Verdict(); v.Kind != vd.Held {
		// rapid's runs all held: they must have judged something.
		h.Stop(t, v)
		return
	}
	t.Logf("%s: %s", h.Prefix, h.HeldText(res, fmt.Sprintf("rapid's draws, -rapid.checks=%d", checks), c.notes(m)...))
}

// rapidChecks is rapid's -rapid.checks: the runs it makes (100 unless
// the flag says otherwise).
func rapidChecks() int {
	if f := flag.Lookup("rapid.checks"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil {
			return n
		}
	}
	return 100
}
