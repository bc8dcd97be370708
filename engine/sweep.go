package engine

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/internal/bounded"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// SweepParam is one kind of map: two parameters, the run each cell makes,
// and the reference lines that say where a design's boundary should be.
type SweepParam struct {
	Name, About string
	// Design is the design swept when none is given.
	Design string
	// X and Y are the default axes.
	X, Y Axis
	// Fits reports whether a design can be swept here, and why not.
	Fits func(model.Traits) (bool, string)
	// spec returns the run of one cell.
	spec func(d model.Spec, x, y float64) model.Spec
	// refs returns the reference lines: (name, points in axis values).
	refs func(d model.Spec) []ref
}

// ref is a reference line in parameter values: y as a function of x, or a
// vertical line at x (vertical set).
type ref struct {
	name     string
	y        func(x float64) float64
	vertical bool
	at       float64
}

func mustAxis(name string, unit Unit, s string) Axis {
	a, err := ParseAxis(name, unit, s)
	if err != nil {
		panic(err) // the defaults below are constants
	}
	return a
}

// SweepParams are the maps Sweep draws, by name.
var SweepParams = map[string]SweepParam{
	"pause": {Name: "pause", About: "pause length after the read x TTL", Design: model.SetPxLua,
		X: mustAxis("ttl", UnitDuration, "250ms:4s:20:log"), Y: mustAxis("pause", UnitDuration, "50ms:6s:20:log"),
		spec: func(d model.Spec, x, y float64) model.Spec {
			d.Options.TTL = time.Duration(x)
			d.Faults = []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: time.Duration(y), After: &sim.Trigger{Actor: "A", Kind: history.KindRead}}}
			return d
		},
		refs: func(model.Spec) []ref { return []ref{{name: "pause = TTL", y: func(x float64) float64 { return x }}} },
	},
	"delay": {Name: "delay", About: "network delay of the write x TTL", Design: model.SetPxLua,
		X: mustAxis("ttl", UnitDuration, "250ms:4s:20:log"), Y: mustAxis("delay", UnitDuration, "20ms:6s:20:log"),
		spec: func(d model.Spec, x, y float64) model.Spec {
			d.Options.TTL = time.Duration(x)
			d.Faults = []sim.Fault{{Kind: sim.FaultDelay, From: "A", To: model.ResourceName, Extra: time.Duration(y), Dur: time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindWrite}}}
			return d
		},
		refs: func(d model.Spec) []ref {
			call := float64(orDur(d.Options.CallTimeout, 200*time.Millisecond))
			work := float64(orDur(d.Workload.Work, 50*time.Millisecond))
			return []ref{
				{name: "delay = call timeout (A gives up and releases; the write lands after)", y: func(float64) float64 { return call }},
				{name: "delay = TTL - work", y: func(x float64) float64 { return x - work }},
			}
		},
	},
	"drift": {Name: "drift", About: "three nodes' clock drift x the drift factor", Design: model.Redlock,
		X: mustAxis("drift factor", UnitFactor, "0.001:0.2:20:log"), Y: mustAxis("node drift (ppm)", UnitPPM, "0:300000:20"),
		Fits: func(t model.Traits) (bool, string) {
			return t.Quorum && t.Validity, "drift varies a quorum design's drift factor (redlock)"
		},
		spec: func(d model.Spec, x, y float64) model.Spec {
			d.Options.DriftFactor = x
			d.Workload = model.Workload{Cycles: 3, Work: 900 * time.Millisecond}
			d.Topology.NodeClocks = map[string]clock.Config{"r1": {RatePPM: int64(y)}, "r2": {RatePPM: int64(y)}, "r3": {RatePPM: int64(y)}}
			return d
		},
		refs: func(model.Spec) []ref {
			return []ref{{name: "drift = factor", y: func(x float64) float64 { return x * 1e6 }}}
		},
	},
	"lag": {Name: "lag", About: "replication lag x Sentinel's down-after, the primary crashing 50ms into A's 0.9 x TTL section", Design: model.SetPxLua,
		X: mustAxis("down-after", UnitDuration, "100ms:4s:20:log"), Y: mustAxis("replication lag", UnitDuration, "1ms:2s:20:log"),
		Fits: func(t model.Traits) (bool, string) {
			return !t.Quorum, "lag fails over a single primary; a quorum design has no replicas here"
		},
		spec: func(d model.Spec, x, y float64) model.Spec {
			d.Topology.Replicas = max(d.Topology.Replicas, 1)
			d.Topology.Sentinel = sim.SentinelConfig{Enabled: true, DownAfter: time.Duration(x)}
			d.Workload = model.Workload{Cycles: 1, Work: orDur(d.Options.TTL, time.Second) * 9 / 10}
			d.Faults = []sim.Fault{
				{Kind: sim.FaultDelay, From: "r1", To: "r2", Extra: time.Duration(y), Dur: time.Hour},
				{Kind: sim.FaultNodeCrash, Target: "r1", At: 50 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}},
			}
			return d
		},
		refs: func(d model.Spec) []ref {
			rest := float64(orDur(d.Options.TTL, time.Second)*9/10 - 50*time.Millisecond)
			return []ref{
				{name: "lag = time to the crash (50ms)", y: func(float64) float64 { return float64(50 * time.Millisecond) }},
				{name: "down-after = the rest of A's section", vertical: true, at: rest},
			}
		},
	},
	"lease": {Name: "lease", About: "critical-section length x TTL, no faults: where a lease without renewal (explicit-lease by default) runs out under the section; --design a watchdog design to compare", Design: model.ExplicitLease,
		X: mustAxis("ttl", UnitDuration, "250ms:4s:20:log"), Y: mustAxis("work", UnitDuration, "50ms:8s:20:log"),
		spec: func(d model.Spec, x, y float64) model.Spec {
			d.Options.TTL = time.Duration(x)
			d.Workload = model.Workload{Cycles: 1, Work: time.Duration(y), Start: 10 * time.Millisecond}
			return d
		},
		refs: func(model.Spec) []ref { return []ref{{name: "work = TTL", y: func(x float64) float64 { return x }}} },
	},
	"renew": {Name: "renew", About: "delay of the client's requests x the watchdog's period, sections of 2 x TTL", Design: model.Watchdog,
		X: mustAxis("renew every", UnitDuration, "50ms:1.2s:20:log"), Y: mustAxis("request delay", UnitDuration, "1ms:1s:20:log"),
		Fits: func(t model.Traits) (bool, string) {
			return t.Renews, "renew varies a watchdog's period; the design does not renew"
		},
		spec: func(d model.Spec, x, y float64) model.Spec {
			d.Options.RenewEvery = time.Duration(x)
			d.Workload = model.Workload{Cycles: 1, Work: 2 * orDur(d.Options.TTL, time.Second)}
			d.Faults = []sim.Fault{{Kind: sim.FaultDelay, From: "A", To: "r1", Extra: time.Duration(y), Dur: time.Hour, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}}
			return d
		},
		refs: func(d model.Spec) []ref {
			ttl := float64(orDur(d.Options.TTL, time.Second))
			call := float64(orDur(d.Options.CallTimeout, 200*time.Millisecond))
			return []ref{
				{name: "delay = call timeout", y: func(float64) float64 { return call }},
				{name: "period + delay = TTL", y: func(x float64) float64 { return ttl - x }},
			}
		},
	},
}

// SweepParamNames lists the parameter names, sorted.
func SweepParamNames() []string {
	var ns []string
	for n := range SweepParams {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

func orDur(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// SweepConfig is a two-parameter map of where leases break.
type SweepConfig struct {
	// Param names one of SweepParams.
	Param string
	// Design is the design swept (a spec with Design, Lua or Custom, and
	// optional Fencing and Options); zero means the param's default.
	Design model.Spec
	// X and Y replace the param's default axes when they have values.
	X, Y Axis
	// Seeds per cell; 0 means 2. Workers as for Matrix.
	Seeds, Workers int
	// Invariants are the invariants a cell counts as broken; nil: all.
	Invariants []invariant.ID
	// Progress, if set, is called after each cell with the cells done and
	// the cells planned.
	Progress func(done, planned int)
	// Context, if set, stops the sweep between cells when it is done
	// (SIGINT, SIGTERM): the cells started finish, the others stay unrun,
	// and the result says Interrupted.
	Context context.Context
}

// Sweep runs the grid, each cell over seeds 1..Seeds, and returns the map
// with its reference lines.
func Sweep(c SweepConfig) (*SweepResult, error) {
	p, ok := SweepParams[c.Param]
	if !ok {
		return nil, errors.Errorf("unknown sweep param %s (want %s)", bounded.Q(c.Param), strings.Join(SweepParamNames(), ", "))
	}
	d := c.Design
	if d.Design == "" && d.Lua == nil && d.Custom == nil {
		d.Design = p.Design
	}
	if p.Fits != nil {
		if ok, why := p.Fits(d.Traits()); !ok {
			return nil, errors.Errorf("sweep %s: %s; design %s does not fit", c.Param, why, designName(d))
		}
	}
	x, y := p.X, p.Y
	if len(c.X.Values) > 0 {
		x.Values, x.Log = c.X.Values, c.X.Log
	}
	if len(c.Y.Values) > 0 {
		y.Values, y.Log = c.Y.Values, c.Y.Log
	}
	seeds := c.Seeds
	if seeds == 0 {
		seeds = 2
	}
	sw := &SweepResult{Title: "where leases break: " + p.About + " (" + designName(d) + ")", XName: x.Name, YName: y.Name}
	for i := range x.Values {
		sw.Xs = append(sw.Xs, x.Label(i))
	}
	for i := range y.Values {
		sw.Ys = append(sw.Ys, y.Label(i))
	}
	for range sw.Ys {
		sw.Cells = append(sw.Cells, make([]SweepCell, len(sw.Xs)))
	}
	base := model.Spec{Design: d.Design, Lua: d.Lua, Custom: d.Custom, Fencing: d.Fencing, Options: d.Options, Topology: d.Topology}
	if err := p.spec(base, x.Values[0], y.Values[0]).CanCount(c.Invariants); err != nil {
		return nil, err
	}
	// A run that stopped with an error (or a cell whose spec cannot run)
	// is counted in the cell's Errors, never dropped: the map shows it and
	// the CLI exits 2.
	cell := func(yi, xi int) SweepCell {
		var rc SweepCell
		seen := map[invariant.ID]bool{}
		for s := 1; s <= seeds; s++ {
			o, err := model.Verdict(p.spec(base, x.Values[xi], y.Values[yi]), uint64(s))
			if err == nil {
				err = o.Err
			}
			if err != nil {
				if rc.Errors == 0 {
					rc.Error = "seed " + strconv.Itoa(s) + ": " + err.Error()
				}
				rc.Errors++
				continue
			}
			// As check: a run in which no client acquired and nothing
			// counted broke judged nothing that counts, whatever
			// uncounted invariant (liveness) it broke.
			if o.NoneAcquired && len(invariant.Only(o.Violations, c.Invariants)) == 0 {
				rc.Vacuous++
				continue // no verdict: a cell of such runs only has none
			}
			rc.Runs++
			if !o.WriteAccepted {
				rc.Idle++
			}
			if b := invariant.Broken(invariant.Only(o.Violations, c.Invariants)); len(b) > 0 {
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
	nx, n := len(sw.Xs), len(sw.Xs)*len(sw.Ys)
	var more func(int) bool
	if c.Context != nil {
		more = func(int) bool { return c.Context.Err() == nil }
	}
	done := 0
	started := ordered(n, c.Workers, more, func(j int) SweepCell {
		return cell(j/nx, j%nx)
	}, func(j int, rc SweepCell) bool {
		sw.Cells[j/nx][j%nx] = rc
		done++
		if c.Progress != nil {
			c.Progress(done, n)
		}
		return true
	})
	sw.Interrupted = started < n
	for _, r := range p.refs(d) {
		if line := refLine(x, y, r); len(line.Points) >= 2 {
			sw.Refs = append(sw.Refs, line)
		}
	}
	return sw, nil
}

// refLine maps a reference line into the grid's fractional cell
// coordinates, sampled along x and clipped to the grid.
func refLine(x, y Axis, r ref) SweepRef {
	line := SweepRef{Name: r.name}
	if r.vertical {
		if px, ok := x.pos(r.at); ok {
			line.Points = [][2]float64{{px, 0}, {px, float64(len(y.Values) - 1)}}
		}
		return line
	}
	const samples = 64
	lo, hi := x.Values[0], x.Values[len(x.Values)-1]
	for k := 0; k <= samples; k++ {
		xv := lo + (hi-lo)*float64(k)/samples
		if x.Log && lo > 0 {
			xv = lo * pow(hi/lo, float64(k)/samples)
		}
		px, okx := x.pos(xv)
		py, oky := y.pos(r.y(xv))
		if okx && oky {
			line.Points = append(line.Points, [2]float64{px, py})
		}
	}
	line.Points = slices.Clip(line.Points)
	return line
}
