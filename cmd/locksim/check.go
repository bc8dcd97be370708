package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"locksim"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/sim"
)

// checkRun is the outcome of one run of `check`, by index.
type checkRun struct {
	Index  int            `json:"index"`
	Seed   uint64         `json:"seed"`
	Broken []invariant.ID `json:"broken,omitempty"`
	Error  string         `json:"error,omitempty"`
	Faults []string       `json:"faults,omitempty"`
}

func cmdCheck(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("check", "check (--design ID | --acquire FILE --release FILE [--renew FILE]) [flags]", stdout)
	design := fs.String("design", "", "catalogue design ID (see 'locksim list')")
	acquire := fs.String("acquire", "", "your acquire script (Lua)")
	release := fs.String("release", "", "your release script (Lua)")
	renew := fs.String("renew", "", "your renew script (Lua, optional: runs a watchdog)")
	fencing := fs.String("fencing", "", "resource fencing: strict, nonstrict, off or strict-reads (default: strict for fenced designs, else off)")
	nodes := fs.Int("nodes", 0, "independent Redis masters (default 1; 5 for redlock); Lua scripts run on each with a majority quorum")
	replicas := fs.Int("replicas", 0, "replicas per master (default 0; 1 for wait-replica)")
	persistence := fs.String("persistence", "none", "what a crashed Redis node keeps: none, aof-everysec or aof-always")
	faults := fs.String("faults", "pause,partition,delay,drop,node-crash,clock-jump", "fault kinds to draw from, comma-separated: "+kindList())
	invs := fs.String("invariants", invariant.Names(invariant.All), "the invariants that count as a failure, comma-separated (e.g. lost-update,fencing to ask only whether the data survives; token-order means token-unique,fencing)")
	runs := fs.Int("runs", 1000, "number of runs (fault schedules)")
	seed := fs.Uint64("seed", 1, "base seed: run i uses seed+i")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers (results do not depend on it)")
	shard := fs.String("shard", "", "run only shard i of n (i/n): runs with index%n == i")
	ttl := fs.Duration("ttl", 0, "lease TTL (default 1s)")
	deadline := fs.Bool("deadline", false, "turn on the client-deadline option")
	format := fs.String("format", "text", "output format: text or json")
	out := fs.String("o", "", "write the summary to this file instead of stdout")
	save := fs.String("save", defaultSave, "where to save the minimal failing case (sharded: locksim-failure-shardIofN.json)")
	progress := fs.Bool("progress", isTerminal(stderr), "show a progress bar on stderr")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	spec := model.Spec{Design: *design, Fencing: model.Fencing(*fencing),
		Topology: model.Topology{Masters: *nodes, Replicas: *replicas, Persistence: sim.Persistence(*persistence)},
		Options:  model.Options{TTL: *ttl, Deadline: *deadline},
		Workload: model.Workload{Cycles: 2}}
	switch {
	case *design != "" && (*acquire != "" || *release != ""):
		return exitUsage, usagef("give either --design or --acquire/--release, not both")
	case *design == "" && (*acquire == "" || *release == ""):
		return exitUsage, usagef("give --design ID, or --acquire FILE and --release FILE")
	case *design == "":
		s, err := model.LoadLua(*acquire, *release, *renew)
		if err != nil {
			return exitUsage, usagef("%v", err)
		}
		spec.Design, spec.Lua = model.LuaDesignID, s
	default:
		if _, err := model.LookupDesign(*design); err != nil {
			return exitUsage, usagef("%v", err)
		}
	}
	if flagSet(fs, "nodes") && *design != "" && *design != model.Redlock {
		return exitUsage, usagef("--nodes applies to redlock and to Lua designs; %s takes the lock on one primary", *design)
	}
	// An explicit 0 is refused rather than read as "the default".
	switch {
	case *runs < 1:
		return exitUsage, usagef("--runs %d: give at least 1", *runs)
	case *workers < 1:
		return exitUsage, usagef("--workers %d: give at least 1", *workers)
	case flagSet(fs, "nodes") && *nodes < 1:
		return exitUsage, usagef("--nodes %d: give at least 1", *nodes)
	case *replicas < 0:
		return exitUsage, usagef("--replicas %d: must not be negative", *replicas)
	case flagSet(fs, "replicas") && *replicas == 0 && *design == model.WaitReplica:
		return exitUsage, usagef("--replicas 0: wait-replica waits for a replica's acknowledgement and needs at least 1")
	case flagSet(fs, "ttl") && *ttl <= 0:
		return exitUsage, usagef("--ttl %v: the lease TTL must be positive", *ttl)
	case !slices.Contains([]sim.Persistence{sim.PersistNone, sim.PersistEverySec, sim.PersistAlways}, sim.Persistence(*persistence)):
		return exitUsage, usagef("--persistence %q: want none, aof-everysec or aof-always", *persistence)
	}
	kinds, err := parseKinds(*faults)
	if err != nil {
		return exitUsage, err
	}
	if len(kinds) == 0 {
		return exitUsage, usagef("--faults names no fault kind (known: %s)", kindList())
	}
	invList, err := invariant.Parse(*invs)
	if err != nil {
		return exitUsage, usagef("--invariants: %v", err)
	}
	counted := map[invariant.ID]bool{}
	for _, inv := range invList {
		counted[inv] = true
	}
	countedOnly := func(broken []invariant.ID) []invariant.ID {
		return slices.DeleteFunc(broken, func(inv invariant.ID) bool { return !counted[inv] })
	}
	si, sn, err := parseShard(*shard)
	if err != nil {
		return exitUsage, err
	}
	if *save == defaultSave && sn > 1 {
		*save = fmt.Sprintf("locksim-failure-shard%dof%d.json", si, sn) // shards do not overwrite each other
	}
	// Validate the spec once, with no faults, before fanning out.
	if _, err := model.Run(withFaults(spec, nil), *seed); err != nil {
		return exitUsage, usagef("%v", err)
	}
	topo := locksim.TopoOf(spec)
	w, closeOut, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	if *format != "text" && *format != "json" {
		return exitUsage, usagef("unknown --format %q (want text or json)", *format)
	}
	// This shard's runs: indices si, si+sn, ... below --runs.
	n := (*runs - si + sn - 1) / sn
	tally := newTally(spec.Design, *format, w)
	tally.reentrant = spec.WithDefaults().CheckConfig().Reentrant
	tally.counted = counted
	ordered(n, *workers, func(j int) checkRun {
		i := si + j*sn
		s := *seed + uint64(i)
		fsched := locksim.RandomSchedule(scheduleRand(s), topo, kinds)
		cr := checkRun{Index: i, Seed: s}
		for _, f := range fsched {
			cr.Faults = append(cr.Faults, f.String())
		}
		vs, runErr, err := model.Verdict(withFaults(spec, fsched), s)
		switch {
		case err != nil:
			cr.Error = err.Error()
		case runErr != nil:
			cr.Error = runErr.Error()
		default:
			cr.Broken = countedOnly(invariant.Broken(vs))
		}
		return cr
	}, func(j int, cr checkRun) {
		tally.add(cr)
		if *progress {
			bar(stderr, j+1, n)
		}
	})
	if *progress {
		fmt.Fprintln(stderr)
	}
	if r := tally.firstError; r != nil {
		// A run that could not finish (a script error, a limit) makes the
		// counts meaningless: say so instead of printing a summary (JSON is
		// still closed into a valid document).
		if *format == "json" {
			tally.finish(nil, "")
		}
		closeOut()
		return exitUsage, fmt.Errorf("run %d (seed %d) stopped: %s", r.Index, r.Seed, trimPackages(r.Error))
	}
	// The first failing run by index, whatever the worker count, shrunk.
	var minimal *model.Result
	if fail := tally.firstFail; fail != nil {
		f0 := locksim.RandomSchedule(scheduleRand(fail.Seed), topo, kinds)
		want := fail.Broken[0]
		fails := func(fsched []sim.Fault) bool {
			vs, runErr, err := model.Verdict(withFaults(spec, fsched), fail.Seed)
			return err == nil && runErr == nil && slices.Contains(countedOnly(invariant.Broken(vs)), want)
		}
		small := locksim.Shrink(f0, fails, 200)
		minimal, _ = model.Run(withFaults(spec, small), fail.Seed)
		minimal.Count(invList)
		if err := locksim.NewCase(minimal).Save(*save); err != nil {
			return exitUsage, err
		}
	}
	if err := tally.finish(minimal, *save); err != nil {
		return exitUsage, err
	}
	if err := closeOut(); err != nil {
		return exitUsage, err
	}
	if tally.firstFail != nil {
		return exitViolation, nil
	}
	return exitSafe, nil
}

func withFaults(s model.Spec, fs []sim.Fault) model.Spec {
	s.Faults = fs
	return s
}

func kindList() string {
	var ks []string
	for _, k := range sim.FaultKinds {
		ks = append(ks, string(k))
	}
	return strings.Join(ks, ",")
}

func parseKinds(s string) ([]sim.FaultKind, error) {
	var out []sim.FaultKind
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		ok := false
		for _, k := range sim.FaultKinds {
			if string(k) == p {
				out, ok = append(out, k), true
			}
		}
		if !ok {
			return nil, usagef("unknown fault kind %q in --faults (known: %s)", p, kindList())
		}
	}
	return out, nil
}

const defaultSave = "locksim-failure.json"

// scheduleRand is the generator of run seed s's fault schedule.
func scheduleRand(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, 0x10c5)) }

// tally folds run results, in run order, into the summary; in JSON mode it
// streams each run as it comes, so memory does not grow with --runs.
type tally struct {
	design, format string
	reentrant      bool
	counted        map[invariant.ID]bool
	w              io.Writer
	runs, broken   int
	counts         map[invariant.ID]int
	firstFail      *checkRun
	firstError     *checkRun
	err            error
}

func newTally(design, format string, w io.Writer) *tally {
	t := &tally{design: design, format: format, w: w, counts: map[invariant.ID]int{}}
	if format == "json" {
		d, _ := json.Marshal(design)
		_, t.err = fmt.Fprintf(w, "{\n  \"schema\": \"locksim.check/v1\",\n  \"design\": %s,\n  \"runs\": [", d)
	}
	return t
}

func (t *tally) add(cr checkRun) {
	if t.format == "json" && t.err == nil {
		b, _ := json.Marshal(cr)
		sep := ",\n    "
		if t.runs == 0 {
			sep = "\n    "
		}
		_, t.err = fmt.Fprintf(t.w, "%s%s", sep, b)
	}
	t.runs++
	if len(cr.Broken) > 0 {
		t.broken++
		if t.firstFail == nil {
			c := cr
			t.firstFail = &c
		}
	}
	if cr.Error != "" && t.firstError == nil {
		c := cr
		t.firstError = &c
	}
	for _, inv := range cr.Broken {
		t.counts[inv]++
	}
}

// finish writes the summary after the last run.
func (t *tally) finish(minimal *model.Result, saved string) error {
	if t.err != nil {
		return t.err
	}
	if t.format == "json" {
		faults := []string{}
		c := ""
		if minimal != nil {
			for _, f := range minimal.Spec.Faults {
				faults = append(faults, f.String())
			}
			c = saved
		}
		counts, _ := json.Marshal(t.counts)
		mf, _ := json.Marshal(faults)
		cs, _ := json.Marshal(c)
		_, err := fmt.Fprintf(t.w, "\n  ],\n  \"broken_runs\": %d,\n  \"invariants\": %s,\n  \"minimal_schedule\": %s,\n  \"case\": %s\n}\n", t.broken, counts, mf, cs)
		return err
	}
	fmt.Fprintf(t.w, "design %s: %s, %d broke an invariant\n", t.design, plural(t.runs, "run"), t.broken)
	for _, inv := range invariant.All {
		switch {
		case !t.counted[inv]:
			fmt.Fprintf(t.w, "  %-17s not counted (--invariants)\n", inv)
		case t.counts[inv] > 0:
			fmt.Fprintf(t.w, "  %-17s broken in %s\n", inv, plural(t.counts[inv], "run"))
		case inv == invariant.Reentrancy && !t.reentrant:
			fmt.Fprintf(t.w, "  %-17s not checked (not a reentrant design)\n", inv)
		default:
			fmt.Fprintf(t.w, "  %-17s held\n", inv)
		}
	}
	if minimal == nil {
		return nil
	}
	fmt.Fprintf(t.w, "\nminimal failing schedule (seed %d):\n%s\n", minimal.Seed, locksim.Describe(minimal.Spec.Faults))
	if err := report.Text(t.w, minimal, report.TextOptions{Meta: report.Meta{Design: t.design, Seed: minimal.Seed}}); err != nil {
		return err
	}
	_, err := fmt.Fprintf(t.w, "\nsaved to %s; replay with: locksim replay %s\n", saved, saved)
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// bar draws a progress bar on one terminal line.
func bar(w io.Writer, done, total int) {
	const width = 40
	n := done * width / total
	fmt.Fprintf(w, "\r[%s%s] %d/%d", strings.Repeat("#", n), strings.Repeat(" ", width-n), done, total)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
