package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/risk"
	"locksim/sim"
)

const adviseUsage = `advise --design ID --target P [--profile FILE] [flags]

Which settings keep the risk per acquisition under a target in this
environment? Estimates the design on a fixed grid of settings (TTL; the
retry backoff, retry jitter and acquire wait; the watchdog period for
designs that renew; the masters for quorum designs; fencing; the drift
allowance: docs/risk.md, "The advisor") in preference order - the
shortest wait for a lock whose holder died (the TTL and one retry sleep),
then the least renewal traffic, then the fewest masters - and recommends
the first whose every invariant's 95% upper bound is under the target,
confirmed from a second seed; prints the current and recommended risk side
by side and what doubling every pause does. --budget caps the runs of the
whole search; when it runs out first the answer is "not resolved within
budget".

Exit codes: 0 a recommendation, 1 no setting met the target (or the budget
ran out first), 2 usage or input error.`

func cmdAdvise(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("advise", adviseUsage, stdout)
	design := fs.String("design", "", "catalogue design ID (see 'locksim list')")
	profile := fs.String("profile", "", "fault profile file (default the built-in profile)")
	target := fs.Float64("target", 0, "the risk per acquisition to stay under (required)")
	fencing := fs.String("fencing", "", "resource fencing: "+model.FencingNames())
	persistence := fs.String("persistence", "none", "what a crashed Redis node keeps: "+sim.PersistenceNames())
	ttl := fs.Duration("ttl", 0, "the current lease TTL (default 1s)")
	invs := fs.String("invariants", "", "the invariants that must meet the target (default every one the design's runs judge)")
	runs := fs.Int("runs", 2000, "runs per setting")
	budget := fs.Int("budget", 100000, "runs of the whole search, pilots included")
	seed := fs.Uint64("seed", 1, "seed")
	format := fs.String("format", "text", "output format: text or json")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	if *design == "" {
		return exitUsage, usagef("give --design ID")
	}
	if err := checkTarget(fs, *target, true); err != nil {
		return exitUsage, err
	}
	if _, err := model.LookupDesign(*design); err != nil {
		return exitUsage, usagef("%v", err)
	}
	if err := checkFormat("advise", *format); err != nil {
		return exitUsage, err
	}
	base := model.Spec{Design: *design}
	if err := applyCheckFlags(fs, &base, checkFlags{fencing: *fencing, persistence: *persistence, ttl: *ttl}); err != nil {
		return exitUsage, err
	}
	p := risk.Default()
	if *profile != "" {
		var err error
		if p, err = readProfile(*profile); err != nil {
			return exitUsage, err
		}
	}
	cfg := risk.AdviseConfig{Spec: base, Profile: p, Target: *target, RunsEach: *runs, Budget: *budget, Seed: *seed}
	if *invs != "" {
		ids, err := invariant.Parse(*invs)
		if err != nil {
			return exitUsage, usagef("--invariants: %v", err)
		}
		cfg.Invariants = ids
	}
	ctx, stop := interruptContext()
	defer stop()
	cfg.Context = ctx
	a, err := risk.Advise(cfg)
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted, err
		}
		return exitUsage, usagef("advise: %v", err)
	}
	if *format == "json" {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Schema string `json:"schema"`
			*risk.Advice
		}{"locksim.advise/v1", a}); err != nil {
			return exitUsage, err
		}
		fmt.Fprint(stdout, b.String())
	} else {
		fmt.Fprint(stdout, report.AdviceText(a))
	}
	if a.Recommended == nil {
		return exitViolation, nil
	}
	return exitSafe, nil
}
