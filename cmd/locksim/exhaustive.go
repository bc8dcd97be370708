package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/risk"
	"locksim/scenarios"
	"locksim/verdict"
)

// exhaustiveHelp is check's help on --exhaustive.
const exhaustiveHelp = `--exhaustive places every fault instead of drawing them: each fault kind
(pause, crash, drop, delay, partition, node-crash, clock-jump) with each
duration class (half the TTL, just under and just over it, twice it, just
over the call timeout, just over down-after) at every point of the
fault-free run, and with --depth 2 a second fault at every point of the run
the first led to. The configuration is one: what the flags and the design's
defaults fix (nothing is drawn; --seed fixes the latencies). It prints the
bounded guarantee, the distinct ways the design broke (each with its
smallest schedule, saved to --save-dir for 'locksim replay') and the danger
map: what one fault at each moment of the fault-free run breaks
(--format html draws it on the timeline).`

// exhaustiveFlags are check's flags for exhaustive mode.
type exhaustiveFlags struct {
	on        *bool
	depth     *int
	max       *int
	durations *string
	show      *int
	saveDir   *string
	first     *bool
	preempt   *int
	profile   *string
}

func addExhaustiveFlags(fs *flags) exhaustiveFlags {
	return exhaustiveFlags{
		on:        fs.Bool("exhaustive", false, "place every fault at every point of the fault-free run instead of drawing runs (see below)"),
		depth:     fs.Int("depth", 1, "with --exhaustive: faults per schedule, 1 or 2"),
		max:       fs.Int("max-schedules", engine.DefaultMaxSchedules, "with --exhaustive: refuse to start above this many schedules"),
		durations: fs.String("durations", "", "with --exhaustive: the duration classes to try, comma-separated (default all: ttl/2,ttl-,ttl+,2ttl,timeout+, and node-timeout+, down-after+ where they apply)"),
		show:      fs.Int("show", 20, "with --exhaustive: list at most this many ways it breaks (JSON lists all)"),
		saveDir:   fs.String("save-dir", "locksim-exhaustive", "with --exhaustive: where the listed breaks' smallest schedules are saved as case files (\"\": nowhere)"),
		first:     fs.Bool("stop-at-first", false, "with --exhaustive: stop at the first schedule that breaks a counted invariant (a counterexample, not a guarantee)"),
		preempt:   fs.Int("preemptions", 0, "with --exhaustive: also try every ordering of at most this many same-instant choices (0-2) on the fault-free run and on every fault schedule that broke nothing; with --faults none, only the fault-free run's"),
		profile:   fs.String("profile", "", "with --exhaustive: a fault profile (docs/risk.md; 'default' for the built-in one): each danger point also says how likely the profile makes its smallest breaking fault start in its span"),
	}
}

// exhaustiveRun are the shared check flags exhaustive mode reads.
type exhaustiveRun struct {
	faults, invariants, format, out string
	seed                            uint64
	workers                         int
	progress                        bool
	blackhole                       bool // --partitions blackhole
}

// exhaustiveOnly are check's flags that mean something only with
// --exhaustive.
var exhaustiveOnly = []string{"depth", "max-schedules", "durations", "show", "save-dir", "stop-at-first", "preemptions", "profile"}

// randomOnly are check's flags that mean nothing when every fault is placed.
var randomOnly = []string{"runs", "for", "shard", "shards", "pause-at", "delay-max", "links", "max-faults", "swarm", "save"}

func cmdExhaustive(fs *flags, ex exhaustiveFlags, base model.Spec, r exhaustiveRun, stdout, stderr io.Writer) (int, error) {
	for _, name := range randomOnly {
		if flagSet(fs, name) {
			return exitUsage, usagef("--%s applies to random runs, not to --exhaustive", name)
		}
	}
	switch {
	case *ex.depth < 1 || *ex.depth > 2:
		return exitUsage, usagef("--depth %d: give 1 or 2", *ex.depth)
	case *ex.max < 1:
		return exitUsage, usagef("--max-schedules %d: give at least 1", *ex.max)
	case *ex.preempt < 0 || *ex.preempt > engine.MaxPreemptions:
		return exitUsage, usagef("--preemptions %d: give 0 to %d", *ex.preempt, engine.MaxPreemptions)
	case *ex.show < 0:
		return exitUsage, usagef("--show %d: must not be negative", *ex.show)
	case r.workers < 1 || r.workers > engine.MaxWorkers:
		return exitUsage, usagef("--workers %d: give 1 to %d (limits: workers)", r.workers, engine.MaxWorkers)
	}
	if err := checkFormat("check --exhaustive", r.format); err != nil {
		return exitUsage, err
	}
	c := engine.ExhaustiveConfig{Base: base, Seed: r.seed, Depth: *ex.depth, MaxSchedules: *ex.max, Workers: r.workers, StopAtFirst: *ex.first,
		Preemptions: *ex.preempt, Blackhole: r.blackhole}
	if flagSet(fs, "faults") {
		kinds, err := parseKinds(r.faults)
		if err != nil {
			return exitUsage, err
		}
		c.Kinds = kinds
	}
	if *ex.durations != "" {
		for _, d := range strings.Split(*ex.durations, ",") {
			c.Durations = append(c.Durations, strings.TrimSpace(d))
		}
	}
	invs, err := invariant.Parse(r.invariants)
	if err != nil {
		return exitUsage, usagef("--invariants: %v", err)
	}
	c.Invariants = invs
	var prof *risk.Profile
	switch *ex.profile {
	case "":
	case "default":
		p := risk.Default()
		prof = &p
	default:
		p, err := readProfile(*ex.profile)
		if err != nil {
			return exitUsage, err
		}
		prof = &p
	}
	var end func()
	c.Progress, end = startProgress(r.progress, stderr, "schedules", 0)
	ctx, stop := interruptContext()
	c.Context = ctx
	res, err := engine.Exhaustive(c)
	stop()
	end()
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	if prof != nil {
		dangerChances(res, *prof)
	}
	if res.Verdict().Kind == verdict.Interrupted {
		// The schedules so far, marked PARTIAL (the guarantee line says
		// so); no case saved, -o FILE left as it was.
		w := partialTo(r.out, r.format, stdout, stderr)
		report.ExhaustiveText(w, res, *ex.show, func(int) string { return "" })
		fmt.Fprintf(stderr, "locksim check: interrupted: no guarantee; it ran %d schedules (%d broke a counted invariant so far), saved no case, and wrote the partial summary above%s\n",
			res.Total(), res.BrokenSchedules, keptNote(r.out))
		return exitInterrupted, nil
	}
	// A case that cannot be saved loses no work: the summary is written
	// first, then the error reported (exit 2).
	cases, saveErr := saveBreaks(res, *ex.saveDir, *ex.show, stderr)
	w, closeOut, err := output(r.out, stdout)
	if err != nil {
		return exitUsage, err
	}
	switch r.format {
	case "json":
		err = engine.ExhaustiveJSON(w, res, cases)
	case "html":
		d := report.DangerMap(res)
		for i := range d.Ways {
			if p, ok := cases[i]; ok {
				d.Ways[i].Replay = "locksim replay " + p
			}
		}
		err = report.DangerHTML(w, d)
	default:
		err = report.ExhaustiveText(w, res, *ex.show, func(i int) string {
			if p, ok := cases[i]; ok {
				return "locksim replay " + p
			}
			return ""
		})
	}
	err = closeOut(err)
	if err != nil {
		return exitUsage, err
	}
	if r.out != "" && r.out != "-" {
		fmt.Fprintln(stdout, res.Guarantee())
		fmt.Fprintf(stdout, "written to %s\n", r.out)
	}
	if saveErr != nil {
		return exitUsage, errors.Wrapf(saveErr, "the summary is written, but the cases could not be saved to --save-dir %s", *ex.saveDir)
	}
	return verdictExit(res.Verdict())
}

// saveBreaks saves the smallest schedule of each of the first show breaks
// as a case file in dir (dir "" saves none) and returns where, by break.
// It removes only what an exhaustive run wrote: the NN.json case files
// an earlier run left there; a file that is not a case is kept, and one
// this run would overwrite is refused.
func saveBreaks(res *engine.ExhaustiveResult, dir string, show int, stderr io.Writer) (map[int]string, error) {
	cases := map[int]string{}
	if dir == "" {
		return cases, nil
	}
	var paths []string
	for i := range res.Breaks {
		// Every way is saved, the fault-free run's own break too (its
		// schedule is empty): its replay tells why it broke.
		if i == show {
			break
		}
		paths = append(paths, filepath.Join(dir, fmt.Sprintf("%02d.json", i+1)))
	}
	old, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9].json"))
	var stale []string
	for _, f := range old {
		if _, err := engine.LoadCase(f); err != nil {
			if slices.Contains(paths, f) {
				return nil, usagef("--save-dir: %s is not a case file an exhaustive run saved; not overwriting it (move it, or give another --save-dir)", f)
			}
			continue // not ours: leave it
		}
		if !slices.Contains(paths, f) {
			stale = append(stale, f)
		}
	}
	// An earlier run's cases would sit next to this run's under the same
	// numbers: replace them, and say so.
	if len(stale) > 0 || len(old) > 0 && len(paths) > 0 {
		fmt.Fprintf(stderr, "locksim check: replacing the cases an earlier exhaustive run saved in %s\n", dir)
	}
	for _, f := range stale {
		if err := os.Remove(f); err != nil {
			return nil, err
		}
	}
	for i, path := range paths {
		r, err := res.Rerun(res.Breaks[i].Smallest)
		if err != nil {
			return nil, err
		}
		if err := engine.NewCase(r).Save(path); err != nil {
			return nil, err
		}
		cases[i] = path
	}
	return cases, nil
}

// exhaustiveOutputs refuses, before the exploration, an -o that a saved
// case could take (NN.json inside --save-dir: the run writes and removes
// those) or that is --save-dir itself, a --save-dir that is an input's
// directory entry or not a directory, and outputs that cannot be written.
func exhaustiveOutputs(out, saveDir string, ins []namedPath) error {
	if err := checkWritable(namedPath{"-o", out}); err != nil {
		return err
	}
	if saveDir == "" {
		return nil
	}
	if st, err := os.Stat(saveDir); err == nil && !st.IsDir() {
		return usagef("--save-dir %s is a file, not a directory", saveDir)
	}
	if err := writableDir(saveDir); err != nil {
		return usagef("--save-dir %s cannot be written: %v", saveDir, err)
	}
	if out != "" && out != "-" {
		if sameFile(out, saveDir) {
			return usagef("-o %s is --save-dir: give a file outside it", out)
		}
		if ok, _ := filepath.Match("[0-9][0-9].json", filepath.Base(out)); ok && sameFile(filepath.Dir(out), saveDir) {
			return usagef("-o %s is inside --save-dir %s, where this run saves and replaces its cases (NN.json): give a file outside it", out, saveDir)
		}
	}
	for _, in := range ins {
		if ok, _ := filepath.Match("[0-9][0-9].json", filepath.Base(in.path)); ok && in.path != "" && sameFile(filepath.Dir(in.path), saveDir) {
			return usagef("%s %s is inside --save-dir %s, where this run saves and replaces its cases (NN.json): give another --save-dir", in.what, in.path, saveDir)
		}
	}
	return nil
}

// dangerChances puts into each danger point with a breaking fault how
// likely the profile makes that fault start in the point's span: from the
// point to its actor's next one in history order (the last, to the end of
// the fault-free run), as the map's zones run.
func dangerChances(res *engine.ExhaustiveResult, p risk.Profile) {
	end := time.Duration(0)
	if res.Baseline != nil && len(res.Baseline.History) > 0 {
		end = res.Baseline.History[len(res.Baseline.History)-1].At
	}
	for i := range res.Danger {
		d := &res.Danger[i]
		if d.WorstFault == "" {
			continue
		}
		f, err := scenarios.ParseFault(d.WorstFault)
		if err != nil {
			d.ChanceOf = "its fault does not parse: " + err.Error()
			continue
		}
		// The actor's next point in history order: a point that shares its
		// instant with the next one has a span of zero.
		next := end
		for _, o := range res.Danger[i+1:] {
			if o.Actor == d.Actor {
				next = o.At
				break
			}
		}
		c, what, ok := risk.PointChance(p, f, max(next-d.At, 0))
		d.ChanceOf = what
		if ok {
			d.Chance = &c
		}
	}
}
