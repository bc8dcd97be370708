package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/atomicfile"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/risk"
	"locksim/sim"
)

const riskUsage = `risk --design ID [--profile FILE] [flags]
       locksim risk profile [FILE] [--from-gctrace LOG | --from-jvm-gc LOG]
       locksim risk merge SHARD.json...

How likely is a violation in this environment? Runs the design under fault
schedules drawn from a fault profile (rates and distributions of pauses,
partitions, crashes and clock jumps: 'locksim risk profile' prints the
built-in one) and reports, per invariant, the probability that an
acquisition is involved in a violation and the expected count per hour, each
with its 95% interval and the method. See docs/risk.md.

'risk profile' prints a profile (the built-in one, or FILE) after checking
it; with --from-gctrace or --from-jvm-gc it replaces the profile's pauses by
those of a Go gctrace or JVM unified GC log.

Exit codes: 0 the estimate was made (and, with --target, every invariant's
upper bound is under it), 1 an upper bound is at or above --target, 2 usage,
input error or no estimate.`

func cmdRisk(args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) > 0 {
		switch args[0] {
		case "profile":
			return cmdRiskProfile(args[1:], stdout)
		case "merge":
			return cmdRiskMerge(args[1:], stdout)
		}
	}
	fs := newFlags("risk", riskUsage, stdout)
	design := fs.String("design", "", "catalogue design ID (see 'locksim list')")
	lua := addLuaFlags(fs)
	profile := fs.String("profile", "", "fault profile file (JSON, see docs/risk.md; default the built-in profile)")
	fencing := fs.String("fencing", "", "resource fencing: "+model.FencingNames()+" (default: strict for fenced designs, else off)")
	nodes := fs.Int("nodes", 0, "independent Redis masters (default 1; 5 for redlock)")
	replicas := fs.Int("replicas", 0, "replicas per master (default 0; 1 for wait-replica)")
	persistence := fs.String("persistence", "none", "what a crashed Redis node keeps: "+sim.PersistenceNames())
	opts := addOptionFlags(fs, "risk", "")
	downAfter := fs.Duration("down-after", 0, "Sentinel's down-after with replicas")
	ttl := fs.Duration("ttl", 0, "lease TTL (default 1s)")
	invs := fs.String("invariants", "", "the invariants to estimate, comma-separated (default every one the design's runs judge)")
	runs := fs.Int("runs", 2000, fmt.Sprintf("runs of the estimate (%d to %d)", risk.MinRuns, risk.MaxRuns))
	seed := fs.Uint64("seed", 1, "seed: the same seed gives the same estimate, byte for byte")
	method := fs.String("method", "auto", "auto (importance sampling from the tilt a seeded pilot chooses) or plain (Monte Carlo from the profile itself)")
	target := fs.Float64("target", 0, "a probability per acquisition: exit 1 when an invariant's upper bound is at or above it")
	format := fs.String("format", "text", "output format: text, markdown, json (locksim.risk/v1; shards are merged with 'locksim risk merge') or html (one page with a plot of the first invariant's risk against the TTL at half, the profile's and twice its pauses: 18 more estimates of --runs each; with -o FILE)")
	out := fs.String("o", "", "write the estimate to this file instead of stdout")
	shard := fs.String("shard", "", "run only shard i of n (i/n): every shard runs the same pilot, and 'locksim risk merge' gives the unsharded bytes")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	base, err := designSpec(*design, lua, false)
	if err != nil {
		return exitUsage, err
	}
	if err := applyCheckFlags(fs, &base, checkFlags{fencing: *fencing, nodes: *nodes, replicas: *replicas, persistence: *persistence,
		downAfter: *downAfter, ttl: *ttl, opts: opts}); err != nil {
		return exitUsage, err
	}
	if err := checkFormat("risk", *format); err != nil {
		return exitUsage, err
	}
	if *format == "html" && *out == "" {
		return exitUsage, usagef("--format html writes a page: give -o FILE")
	}
	if err := checkTarget(fs, *target, false); err != nil {
		return exitUsage, err
	}
	p := risk.Default()
	if *profile != "" {
		var err error
		if p, err = readProfile(*profile); err != nil {
			return exitUsage, err
		}
	}
	cfg := risk.Config{Spec: base, Profile: p, Runs: *runs, Seed: *seed, Method: risk.Method(*method)}
	if *invs != "" {
		ids, err := invariant.Parse(*invs)
		if err != nil {
			return exitUsage, usagef("--invariants: %v", err)
		}
		cfg.Invariants = ids
	}
	if *shard != "" {
		i, n, err := parseShard(*shard)
		if err != nil {
			return exitUsage, err
		}
		cfg.Shard, cfg.Shards = i, n
	}
	// Refused before the pilot and the runs, not after them.
	if cfg.Shards > 1 && *format != "json" {
		return exitUsage, usagef("--shard writes a shard's tally: give --format json and merge the shards with 'locksim risk merge'")
	}
	ctx, stop := interruptContext()
	defer stop()
	cfg.Context = ctx
	res, err := risk.Run(cfg)
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted, errors.Wrap(err, "risk")
		}
		return exitUsage, usagef("risk: %v", err)
	}
	if *format == "html" {
		curve, err := risk.Curve(cfg, res.Estimates[0].ID)
		if err != nil {
			return exitUsage, usagef("risk: the plot: %v", err)
		}
		if err := atomicfile.Write(*out, func(w io.Writer) error { return report.RiskHTML(w, res, curve) }); err != nil {
			return exitUsage, usagef("-o: %v", err)
		}
		return riskExit(res, *target), nil
	}
	return writeRisk(res, *format, *out, *target, stdout)
}

// readProfile reads a profile file through its size limit.
func readProfile(path string) (risk.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return risk.Profile{}, usagef("--profile: %v", err)
	}
	defer f.Close()
	p, err := risk.Parse(f)
	if err != nil {
		return risk.Profile{}, usagef("--profile %s: %v", path, err)
	}
	return p, nil
}

// writeRisk renders an estimate; the exit code says whether it meets the
// target.
func writeRisk(res *risk.Result, format, out string, target float64, stdout io.Writer) (int, error) {
	var b strings.Builder
	switch format {
	case "json":
		doc := struct {
			Schema string `json:"schema"`
			*risk.Result
		}{"locksim.risk/v1", res}
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return exitUsage, err
		}
	case "markdown":
		b.WriteString(report.RiskMarkdown(res))
	default:
		b.WriteString(report.RiskText(res, target))
	}
	if out == "" {
		if _, err := io.WriteString(stdout, b.String()); err != nil {
			return exitUsage, err
		}
	} else if err := atomicfile.Write(out, func(w io.Writer) error { _, err := io.WriteString(w, b.String()); return err }); err != nil {
		return exitUsage, usagef("-o: %v", err)
	}
	return riskExit(res, target), nil
}

// checkTarget refuses a --target that is not a probability strictly
// between 0 and 1. NaN is refused too (it compares false against every
// bound, so it would pass every estimate), and so is a --target given as
// 0 (read as "no target" it would exit 0 whatever the estimate says);
// required: the command needs one (advise).
func checkTarget(fs *flags, target float64, required bool) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "target" })
	if !given && !required {
		return nil
	}
	switch {
	case !given:
		return usagef("--target P is required: the probability per acquisition the setting must stay below, above 0 and below 1 (e.g. 1e-6)")
	case !(target > 0 && target < 1) && !required:
		return usagef("--target %v: give a probability above 0 and below 1, or leave --target out to only estimate", target)
	case !(target > 0 && target < 1):
		return usagef("--target %v: give a probability above 0 and below 1", target)
	}
	return nil
}

// riskExit is 1 when an invariant's upper bound is at or above the target.
func riskExit(res *risk.Result, target float64) int {
	for _, e := range res.Estimates {
		if target > 0 && e.CI95High >= target {
			return exitViolation
		}
	}
	return exitSafe
}

func cmdRiskProfile(args []string, stdout io.Writer) (int, error) {
	fs := newFlags("risk profile", riskUsage, stdout)
	out := fs.String("o", "", "write the profile to this file instead of stdout")
	horizon := fs.Duration("horizon", 0, "set the profile's horizon, the virtual time a run counts (1s to 1h): shorter runs are cheaper, each counting fewer acquisitions")
	gctrace := fs.String("from-gctrace", "", "take the pauses from Go GODEBUG=gctrace=1 output (stop-the-world phases)")
	jvm := fs.String("from-jvm-gc", "", "take the pauses from a JVM unified GC log (-Xlog:gc with the uptime decoration)")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 1 {
		return exitUsage, usagef("give at most one profile file")
	}
	p := risk.Default()
	if fs.NArg() == 1 {
		var err error
		if p, err = readProfile(fs.Arg(0)); err != nil {
			return exitUsage, err
		}
	}
	if *gctrace != "" && *jvm != "" {
		return exitUsage, usagef("give --from-gctrace or --from-jvm-gc, not both")
	}
	if log, read := *gctrace, risk.ReadGCTrace; log != "" || *jvm != "" {
		if log == "" {
			log, read = *jvm, risk.ReadJVMGC
		}
		f, err := os.Open(log)
		if err != nil {
			return exitUsage, usagef("%v", err)
		}
		ps, err := read(f)
		f.Close()
		if err != nil {
			return exitUsage, usagef("%s: %v", log, err)
		}
		a, src, err := ps.Arrivals()
		if err != nil {
			return exitUsage, usagef("%s: %v", log, err)
		}
		p.Pauses = &a
		if p.Sources == nil {
			p.Sources = map[string]string{}
		}
		p.Sources["pauses"] = "imported from " + log + ": " + src
		p.Name += "+" + log
	}
	if flagSet(fs, "horizon") {
		if *horizon < time.Second || *horizon > risk.MaxHorizon {
			return exitUsage, usagef("--horizon %v: give 1s to %v", *horizon, risk.MaxHorizon)
		}
		p.Horizon = risk.Duration(*horizon)
		if err := p.Validate(); err != nil {
			return exitUsage, usagef("--horizon: %v", err)
		}
	}
	b, err := p.JSON()
	if err != nil {
		return exitUsage, err
	}
	if *out != "" {
		if err := atomicfile.Write(*out, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return exitUsage, usagef("-o: %v", err)
		}
		return exitSafe, nil
	}
	_, err = stdout.Write(b)
	return exitSafe, err
}

func cmdRiskMerge(args []string, stdout io.Writer) (int, error) {
	fs := newFlags("risk merge", riskUsage, stdout)
	format := fs.String("format", "text", "output format: text, markdown or json")
	out := fs.String("o", "", "write the estimate to this file instead of stdout")
	target := fs.Float64("target", 0, "exit 1 when an invariant's upper bound is at or above this probability")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if err := checkTarget(fs, *target, false); err != nil {
		return exitUsage, err
	}
	if fs.NArg() == 0 {
		return exitUsage, usagef("give the shards' JSON files")
	}
	var parts []*risk.Result
	for _, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return exitUsage, usagef("%v", err)
		}
		var doc struct {
			Schema string `json:"schema"`
			risk.Result
		}
		err = json.NewDecoder(io.LimitReader(f, 64<<20)).Decode(&doc)
		f.Close()
		if err != nil || doc.Schema != "locksim.risk/v1" || doc.Tally == nil {
			return exitUsage, usagef("%s: not a locksim.risk/v1 shard (%v)", path, err)
		}
		parts = append(parts, &doc.Result)
	}
	res, err := risk.Merge(parts)
	if err != nil {
		return exitUsage, usagef("merge: %v", err)
	}
	return writeRisk(res, *format, *out, *target, stdout)
}
