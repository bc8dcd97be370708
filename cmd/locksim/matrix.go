package main

import (
	"io"
	"runtime"
	"strconv"
	"time"

	"locksim/clock"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/scenarios"
	"locksim/sim"
)

// buildMatrix runs every design against every scenario over seeds 1..n,
// a cell per job on `workers` goroutines; cells are set in a fixed order.
func buildMatrix(seeds, workers int) (*report.Matrix, error) {
	m := &report.Matrix{Title: "locksim: which design survives which scenario", Designs: model.DesignIDs()}
	type job struct {
		sc     *scenarios.Scenario
		design string
	}
	var jobs []job
	for _, sc := range scenarios.All() {
		m.Scenarios = append(m.Scenarios, sc.Name)
		for _, d := range m.Designs {
			jobs = append(jobs, job{sc, d})
		}
	}
	type out struct {
		cell report.Cell
		err  error
	}
	var firstErr error
	ordered(len(jobs), workers, func(j int) out {
		sc, d := jobs[j].sc, jobs[j].design
		if ok, why := sc.Applies(d); !ok {
			return out{cell: report.Cell{NA: why}}
		}
		spec, err := sc.SpecFor(d)
		if err != nil {
			return out{err: err}
		}
		var runs []*model.Result
		for s := 1; s <= seeds; s++ {
			r, err := model.Run(spec, uint64(s))
			if err != nil {
				return out{err: err}
			}
			runs = append(runs, r)
		}
		return out{cell: report.CellOf(runs)}
	}, func(j int, o out) {
		if o.err != nil && firstErr == nil {
			firstErr = o.err
		}
		m.Set(jobs[j].design, jobs[j].sc.Name, o.cell)
	})
	return m, firstErr
}

func cmdMatrix(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("matrix", "matrix [--seeds N] [--format text|markdown|html] [-o FILE]", stdout)
	seeds := fs.Int("seeds", 3, "seeds per cell")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers (the output does not depend on it)")
	format := fs.String("format", "text", "text, markdown or html")
	details := fs.Bool("details", false, "text: list each broken cell's first violation after the table")
	out := fs.String("o", "", "write to this file instead of stdout")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	if *seeds < 1 || *workers < 1 {
		return exitUsage, usagef("--seeds and --workers must be at least 1")
	}
	m, err := buildMatrix(*seeds, *workers)
	if m != nil {
		m.Brief = !*details
	}
	if err != nil {
		return exitUsage, err
	}
	w, done, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	switch *format {
	case "text":
		err = report.MatrixText(w, m)
	case "markdown", "md":
		err = report.MatrixMarkdown(w, m)
	case "html":
		err = report.MatrixHTML(w, m)
	default:
		return exitUsage, usagef("unknown --format %q (want text, markdown or html)", *format)
	}
	if err != nil {
		return exitUsage, err
	}
	return exitSafe, done()
}

// sweepAxes are the parameter pairs `sweep` knows.
var sweepAxes = map[string]string{
	"pause": "pause length after the read x TTL",
	"delay": "network delay of the write x TTL",
	"drift": "a redlock node's clock drift x drift factor",
}

func cmdSweep(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("sweep", "sweep [--param pause|delay|drift] [--design ID] [--seeds N] [--format text|svg] [-o FILE]", stdout)
	param := fs.String("param", "pause", "what to sweep: pause, delay or drift")
	design := fs.String("design", "", "design (default set-px-lua; redlock for drift)")
	seeds := fs.Int("seeds", 2, "seeds per cell")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers (the output does not depend on it)")
	format := fs.String("format", "text", "text or svg")
	out := fs.String("o", "", "write to this file instead of stdout")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if _, ok := sweepAxes[*param]; !ok {
		return exitUsage, usagef("unknown --param %q (want pause, delay or drift)", *param)
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	if *seeds < 1 || *workers < 1 {
		return exitUsage, usagef("--seeds and --workers must be at least 1")
	}
	if *param == "drift" && *design != "" && *design != model.Redlock {
		return exitUsage, usagef("--param drift varies redlock's drift factor; --design must be redlock")
	}
	d := *design
	if d == "" {
		d = model.SetPxLua
		if *param == "drift" {
			d = model.Redlock
		}
	}
	if _, err := model.LookupDesign(d); err != nil {
		return exitUsage, usagef("%v", err)
	}
	sw := sweep(*param, d, *seeds, *workers)
	w, done, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	switch *format {
	case "text":
		err = report.SweepText(w, sw)
	case "svg":
		err = report.SweepSVG(w, sw)
	default:
		return exitUsage, usagef("unknown --format %q (want text or svg)", *format)
	}
	if err != nil {
		return exitUsage, err
	}
	return exitSafe, done()
}

// sweep runs the grid: y over the fault size, x over the TTL (or the drift
// factor), each cell over seeds.
func sweep(param, design string, seeds, workers int) *report.Sweep {
	ms := time.Millisecond
	xs := []time.Duration{250 * ms, 500 * ms, time.Second, 2 * time.Second}
	ys := []time.Duration{100 * ms, 300 * ms, 600 * ms, time.Second, 1500 * ms, 2500 * ms}
	sw := &report.Sweep{Title: "where leases break: " + sweepAxes[param] + " (" + design + ")", XName: "ttl", YName: param}
	factors := []float64{0.001, 0.01, 0.05, 0.1}
	drifts := []int64{0, 5_000, 20_000, 50_000, 100_000, 200_000}
	if param == "drift" {
		sw.XName, sw.YName = "drift factor", "node drift (ppm)"
		for _, f := range factors {
			sw.Xs = append(sw.Xs, trimFloat(f))
		}
		for _, d := range drifts {
			sw.Ys = append(sw.Ys, itoa64(d))
		}
	} else {
		for _, x := range xs {
			sw.Xs = append(sw.Xs, x.String())
		}
		for _, y := range ys {
			sw.Ys = append(sw.Ys, y.String())
		}
	}
	for range sw.Ys {
		sw.Cells = append(sw.Cells, make([]report.SweepCell, len(sw.Xs)))
	}
	cell := func(yi, xi int) report.SweepCell {
		var c report.SweepCell
		seen := map[invariant.ID]bool{}
		for s := 1; s <= seeds; s++ {
			spec := model.Spec{Design: design}
			switch param {
			case "pause":
				spec.Options.TTL = xs[xi]
				spec.Faults = []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: ys[yi], After: &sim.Trigger{Actor: "A", Kind: history.KindRead}}}
			case "delay":
				spec.Options.TTL = xs[xi]
				spec.Faults = []sim.Fault{{Kind: sim.FaultDelay, From: "A", To: model.ResourceName, Extra: ys[yi], Dur: time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindWrite}}}
			case "drift":
				spec.Options.DriftFactor = factors[xi]
				spec.Options.TTL = time.Second
				spec.Workload = model.Workload{Cycles: 3, Work: 900 * ms}
				spec.Topology.NodeClocks = map[string]clock.Config{"r1": {RatePPM: drifts[yi]}, "r2": {RatePPM: drifts[yi]}, "r3": {RatePPM: drifts[yi]}}
			}
			vs, _, err := model.Verdict(spec, uint64(s))
			if err != nil {
				continue
			}
			c.Runs++
			if b := invariant.Broken(vs); len(b) > 0 {
				c.Broken++
				for _, inv := range b {
					if !seen[inv] {
						seen[inv] = true
						c.Invariants = append(c.Invariants, inv)
					}
				}
			}
		}
		return c
	}
	nx := len(sw.Xs)
	ordered(len(sw.Ys)*nx, workers, func(j int) report.SweepCell { return cell(j/nx, j%nx) },
		func(j int, c report.SweepCell) { sw.Cells[j/nx][j%nx] = c })
	return sw
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
