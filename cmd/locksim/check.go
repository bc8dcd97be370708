package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"

	"locksim"
	"locksim/model"
	"locksim/report"
	"locksim/sim"
)

// checkRun is the outcome of one run of `check`, by index.
type checkRun struct {
	Index  int      `json:"index"`
	Seed   uint64   `json:"seed"`
	Broken []string `json:"broken,omitempty"`
	Error  string   `json:"error,omitempty"`
	Faults []string `json:"faults,omitempty"`
}

func cmdCheck(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("check", "check (--design ID | --acquire FILE --release FILE [--renew FILE]) [flags]", stderr)
	design := fs.String("design", "", "catalogue design ID (see 'locksim list')")
	acquire := fs.String("acquire", "", "your acquire script (Lua)")
	release := fs.String("release", "", "your release script (Lua)")
	renew := fs.String("renew", "", "your renew script (Lua, optional: runs a watchdog)")
	fencing := fs.String("fencing", "", "resource fencing: strict, nonstrict or off (default: strict for fenced designs, else off)")
	nodes := fs.Int("nodes", 0, "independent Redis masters (default 1; 5 for redlock); Lua scripts run on each with a majority quorum")
	replicas := fs.Int("replicas", 0, "replicas per master (default 0; 1 for wait-replica)")
	faults := fs.String("faults", "pause,partition,delay,drop,node-crash,clock-jump", "fault kinds to draw from, comma-separated: "+kindList())
	runs := fs.Int("runs", 1000, "number of runs (fault schedules)")
	seed := fs.Uint64("seed", 1, "base seed: run i uses seed+i")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers (results do not depend on it)")
	shard := fs.String("shard", "", "run only shard i of n (i/n): runs with index%n == i")
	ttl := fs.Duration("ttl", 0, "lease TTL (default 1s)")
	deadline := fs.Bool("deadline", false, "turn on the client-deadline option")
	format := fs.String("format", "text", "output format: text or json")
	out := fs.String("o", "", "write the summary to this file instead of stdout")
	save := fs.String("save", "locksim-failure.json", "where to save the minimal failing case")
	progress := fs.Bool("progress", isTerminal(stderr), "show a progress bar on stderr")
	args = reorder(args)
	if done, code, err := parse(fs, args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	spec := model.Spec{Design: *design, Fencing: model.Fencing(*fencing),
		Topology: model.Topology{Masters: *nodes, Replicas: *replicas},
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
	if *runs < 1 || *workers < 1 || *nodes < 0 || *replicas < 0 || *ttl < 0 {
		return exitUsage, usagef("--runs and --workers must be at least 1; --nodes, --replicas and --ttl must not be negative")
	}
	kinds, err := parseKinds(*faults)
	if err != nil {
		return exitUsage, err
	}
	si, sn, err := parseShard(*shard)
	if err != nil {
		return exitUsage, err
	}
	// Validate the spec once, with no faults, before fanning out.
	if _, err := model.Run(withFaults(spec, nil), *seed); err != nil {
		return exitUsage, usagef("%v", err)
	}
	topo := locksim.TopoOf(spec)
	var idx []int
	for i := 0; i < *runs; i++ {
		if i%sn == si {
			idx = append(idx, i)
		}
	}
	results := make([]checkRun, len(idx))
	var mu sync.Mutex
	done := 0
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				i := idx[j]
				s := *seed + uint64(i)
				fsched := locksim.RandomSchedule(rand.New(rand.NewPCG(s, 0x10c5)), topo, kinds)
				cr := checkRun{Index: i, Seed: s}
				for _, f := range fsched {
					cr.Faults = append(cr.Faults, f.String())
				}
				r, err := model.Run(withFaults(spec, fsched), s)
				switch { // results are merged by index: output ignores worker order
				case err != nil:
					cr.Error = err.Error()
				case r.Err != nil:
					cr.Error = r.Err.Error()
				default:
					cr.Broken = model.Broken(r.Violations)
				}
				mu.Lock()
				results[j] = cr
				done++
				if *progress {
					bar(stderr, done, len(idx))
				}
				mu.Unlock()
			}
		}()
	}
	for j := range idx {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	if *progress {
		fmt.Fprintln(stderr)
	}
	// The first failing run by index, whatever the worker count.
	var fail *checkRun
	for j := range results {
		if len(results[j].Broken) > 0 {
			fail = &results[j]
			break
		}
	}
	var minimal *model.Result
	if fail != nil {
		f0 := locksim.RandomSchedule(rand.New(rand.NewPCG(fail.Seed, 0x10c5)), topo, kinds)
		want := fail.Broken[0]
		fails := func(fsched []sim.Fault) bool {
			r, err := model.Run(withFaults(spec, fsched), fail.Seed)
			return err == nil && r.Err == nil && contains(model.Broken(r.Violations), want)
		}
		small := locksim.Shrink(f0, fails, 200)
		minimal, _ = model.Run(withFaults(spec, small), fail.Seed)
		if err := locksim.NewCase(minimal).Save(*save); err != nil {
			return exitUsage, err
		}
	}
	w, closeOut, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	if err := summary(w, *format, spec.Design, results, minimal, *save); err != nil {
		return exitUsage, err
	}
	if err := closeOut(); err != nil {
		return exitUsage, err
	}
	for _, r := range results {
		if r.Error != "" {
			fmt.Fprintf(stderr, "locksim check: run %d (seed %d) stopped: %s\n", r.Index, r.Seed, r.Error)
			return exitUsage, nil
		}
	}
	if fail != nil {
		return exitViolation, nil
	}
	return exitSafe, nil
}

func withFaults(s model.Spec, fs []sim.Fault) model.Spec {
	s.Faults = fs
	return s
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
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

// summary prints what broke, in run order.
func summary(w io.Writer, format, design string, results []checkRun, minimal *model.Result, saved string) error {
	counts := map[string]int{}
	broken := 0
	for _, r := range results {
		if len(r.Broken) > 0 {
			broken++
		}
		for _, inv := range r.Broken {
			counts[inv]++
		}
	}
	if format == "json" {
		out := struct {
			Schema     string         `json:"schema"`
			Design     string         `json:"design"`
			Runs       []checkRun     `json:"runs"`
			Broken     int            `json:"broken_runs"`
			Invariants map[string]int `json:"invariants"`
			Minimal    []string       `json:"minimal_schedule,omitempty"`
			Case       string         `json:"case,omitempty"`
		}{Schema: "locksim.check/v1", Design: design, Runs: results, Broken: broken, Invariants: counts}
		if minimal != nil {
			for _, f := range minimal.Spec.Faults {
				out.Minimal = append(out.Minimal, f.String())
			}
			out.Case = saved
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if format != "text" && format != "" {
		return usagef("unknown --format %q (want text or json)", format)
	}
	fmt.Fprintf(w, "design %s: %d runs, %d broke an invariant\n", design, len(results), broken)
	for _, inv := range model.Invariants {
		if counts[inv] > 0 {
			fmt.Fprintf(w, "  %-17s broken in %d runs\n", inv, counts[inv])
		} else {
			fmt.Fprintf(w, "  %-17s held\n", inv)
		}
	}
	if minimal == nil {
		return nil
	}
	fmt.Fprintf(w, "\nminimal failing schedule (seed %d):\n%s\n", minimal.Seed, locksim.Describe(minimal.Spec.Faults))
	if err := report.Text(w, minimal, report.TextOptions{Meta: report.Meta{Design: design, Seed: minimal.Seed}}); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nsaved to %s; replay with: locksim replay %s\n", saved, saved)
	return nil
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
