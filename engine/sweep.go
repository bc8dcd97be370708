package engine

import (
	"strconv"
	"time"

	"locksim/clock"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/sim"
)

// SweepParams are the parameter pairs Sweep knows, with what each maps.
var SweepParams = map[string]string{
	"pause": "pause length after the read x TTL",
	"delay": "network delay of the write x TTL",
	"drift": "a redlock node's clock drift x drift factor",
}

// SweepConfig is a two-parameter map of where leases break.
type SweepConfig struct {
	// Param is one of SweepParams.
	Param string
	// Design is the design swept (a spec with Design, Lua or Custom).
	Design model.Spec
	// Seeds per cell; 0 means 2. Workers as for Matrix.
	Seeds, Workers int
	// Progress, if set, is called after each cell in order with the cells
	// done and the cells in the grid.
	Progress func(done, planned int)
}

// Sweep runs the grid: y over the fault size, x over the TTL (or the drift
// factor), each cell over seeds.
func Sweep(c SweepConfig) *report.Sweep {
	param, design := c.Param, c.Design
	seeds := c.Seeds
	if seeds == 0 {
		seeds = 2
	}
	ms := time.Millisecond
	xs := []time.Duration{250 * ms, 500 * ms, time.Second, 2 * time.Second}
	ys := []time.Duration{100 * ms, 300 * ms, 600 * ms, time.Second, 1500 * ms, 2500 * ms}
	sw := &report.Sweep{Title: "where leases break: " + SweepParams[param] + " (" + designName(design) + ")", XName: "ttl", YName: param}
	factors := []float64{0.001, 0.01, 0.05, 0.1}
	drifts := []int64{0, 5_000, 20_000, 50_000, 100_000, 200_000}
	if param == "drift" {
		sw.XName, sw.YName = "drift factor", "node drift (ppm)"
		for _, f := range factors {
			sw.Xs = append(sw.Xs, strconv.FormatFloat(f, 'g', -1, 64))
		}
		for _, d := range drifts {
			sw.Ys = append(sw.Ys, strconv.FormatInt(d, 10))
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
		var rc report.SweepCell
		seen := map[invariant.ID]bool{}
		for s := 1; s <= seeds; s++ {
			spec := model.Spec{Design: design.Design, Lua: design.Lua, Custom: design.Custom, Fencing: design.Fencing, Options: design.Options}
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
			o, err := model.Verdict(spec, uint64(s))
			if err != nil || o.Err != nil {
				continue
			}
			rc.Runs++
			if b := invariant.Broken(o.Violations); len(b) > 0 {
				rc.Broken++
				for _, inv := range b {
					if !seen[inv] {
						seen[inv] = true
						rc.Invariants = append(rc.Invariants, inv)
					}
				}
			}
		}
		return rc
	}
	nx := len(sw.Xs)
	ordered(len(sw.Ys)*nx, c.Workers, nil, func(j int) report.SweepCell { return cell(j/nx, j%nx) },
		func(j int, rc report.SweepCell) bool {
			sw.Cells[j/nx][j%nx] = rc
			if c.Progress != nil {
				c.Progress(j+1, len(sw.Ys)*nx)
			}
			return true
		})
	return sw
}
