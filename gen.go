package locksim

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// Placement is where a generated process pause starts: at a random time,
// or right after one of the client's own events, which is how pauses land
// inside acquire (after the request was sent), after acquire, between the
// read and the write, or inside release (between GET and DEL).
var placements = []sim.Kind{"", history.KindAcquired, sim.KindCall, sim.KindReply, history.KindRead, history.KindWrite, history.KindRelease, history.KindReleaseSend}

// Topo is the part of a run's shape the generator needs: the names it may
// put faults on.
type Topo struct {
	Clients  []string
	Nodes    []string
	Replicas bool
	TTL      time.Duration
	// Horizon bounds generated fault times (true time).
	Horizon time.Duration
}

// TopoOf returns the fault targets of a spec (defaults applied).
func TopoOf(s model.Spec) Topo {
	s = s.WithDefaults()
	t := Topo{Clients: s.Clients, Replicas: s.Topology.Replicas > 0, TTL: s.Options.TTL, Horizon: 4 * s.Options.TTL}
	for g := 0; g < s.Topology.Masters; g++ {
		for j := 0; j <= s.Topology.Replicas; j++ {
			t.Nodes = append(t.Nodes, model.NodeName(g, j, s.Topology.Replicas))
		}
	}
	return t
}

// draws is where a schedule's random choices come from: rapid, which
// shrinks them (GenSchedule), or a seeded generator (RandomSchedule, for
// the CLI's check). One genFault serves both, so the shapes cannot drift.
type draws interface {
	int64Range(lo, hi int64, label string) int64
}

type rapidDraws struct{ t *rapid.T }

func (d rapidDraws) int64Range(lo, hi int64, label string) int64 {
	return rapid.Int64Range(lo, hi).Draw(d.t, label)
}

type randDraws struct{ r *rand.Rand }

func (d randDraws) int64Range(lo, hi int64, _ string) int64 { return lo + d.r.Int64N(hi-lo+1) }

func intRange(d draws, lo, hi int, label string) int {
	return int(d.int64Range(int64(lo), int64(hi), label))
}

func boolean(d draws, label string) bool { return d.int64Range(0, 1, label) == 1 }

// genMs draws a duration in [lo, hi] whole milliseconds; rapid shrinks it
// toward lo.
func genMs(d draws, lo, hi time.Duration, label string) time.Duration {
	return time.Duration(d.int64Range(int64(lo/time.Millisecond), int64(hi/time.Millisecond), label)) * time.Millisecond
}

// GenSchedule draws a fault schedule over the enabled kinds with swarm
// testing: each case first leaves out a random subset of the kinds, so
// rare combinations get explored. Schedules shrink toward fewer, shorter,
// earlier faults.
func GenSchedule(t *rapid.T, topo Topo, kinds []sim.FaultKind) []sim.Fault {
	if len(kinds) == 0 {
		return nil
	}
	// "leave out" rather than "enable": rapid shrinks the draws to 0, so a
	// shrunk case keeps every kind and its log reads consistently with
	// the faults it shows.
	var enabled []sim.FaultKind
	for _, k := range kinds {
		if !boolean(rapidDraws{t}, "leave out "+string(k)) {
			enabled = append(enabled, k)
		}
	}
	if len(enabled) == 0 {
		enabled = kinds // every kind left out: the same as none
	}
	// A slice generator lets rapid delete whole faults while shrinking.
	one := rapid.Custom(func(t *rapid.T) sim.Fault {
		d := rapidDraws{t}
		return genFault(d, topo, enabled[intRange(d, 0, len(enabled)-1, "kind")])
	})
	return rapid.SliceOfN(one, 0, 3).Draw(t, "faults")
}

func pick[T any](d draws, xs []T, label string) T {
	return xs[intRange(d, 0, len(xs)-1, label)]
}

func genFault(t draws, topo Topo, k sim.FaultKind) sim.Fault {
	ttl := topo.TTL
	f := sim.Fault{Kind: k, At: genMs(t, 0, topo.Horizon, "at")}
	switch k {
	case sim.FaultPause:
		f.Target = pick(t, topo.Clients, "client")
		f.Dur = genMs(t, time.Millisecond, 2*ttl, "pause")
		if where := pick(t, placements, "placement"); where != "" {
			f.At = 0
			f.After = &sim.Trigger{Actor: f.Target, Kind: where, Nth: intRange(t, 1, 4, "nth")}
		}
	case sim.FaultCrash:
		f.Target = pick(t, topo.Clients, "client")
		f.Restart = boolean(t, "restart")
		if f.Restart {
			f.Dur = genMs(t, time.Millisecond, ttl, "down")
		}
		if where := pick(t, placements, "placement"); where != "" {
			f.At = 0
			f.After = &sim.Trigger{Actor: f.Target, Kind: where, Nth: intRange(t, 1, 4, "nth")}
		}
	case sim.FaultPartition:
		eps := append(append([]string(nil), topo.Clients...), topo.Nodes...)
		a := pick(t, eps, "side")
		f.A = []string{a}
		for _, e := range eps {
			if e != a {
				f.B = append(f.B, e)
			}
		}
		if topo.Replicas {
			f.B = append(f.B, sim.SentinelName)
		}
		f.OneWay = boolean(t, "oneway")
		f.Dur = genMs(t, time.Millisecond, 2*ttl, "length")
	case sim.FaultDelay:
		f.From = pick(t, topo.Clients, "from")
		f.To = model.ResourceName
		if boolean(t, "to node") {
			f.To = pick(t, topo.Nodes, "to")
		}
		f.Extra = genMs(t, time.Millisecond, 2*ttl, "extra")
		f.Dur = genMs(t, time.Millisecond, ttl, "window")
	case sim.FaultDrop:
		f.From, f.To = pick(t, topo.Nodes, "from"), pick(t, topo.Clients, "to")
		if boolean(t, "request") {
			f.From, f.To = f.To, f.From
		}
		f.Count = intRange(t, 1, 2, "count")
		f.Dur = genMs(t, time.Millisecond, ttl, "window")
	case sim.FaultNodeCrash:
		f.Target = pick(t, topo.Nodes, "node")
		f.Dur = genMs(t, time.Millisecond, 2*ttl, "down")
	case sim.FaultClockJump:
		f.Target = pick(t, topo.Nodes, "node")
		f.By = genMs(t, time.Millisecond, 2*ttl, "by")
		if boolean(t, "backward") {
			f.By = -f.By
		}
	case sim.FaultClockDrift:
		f.Target = pick(t, append(append([]string(nil), topo.Nodes...), topo.Clients...), "target")
		f.RatePPM = t.int64Range(-300_000, 300_000, "ppm")
	case sim.FaultEvict:
		f.Target = pick(t, topo.Nodes, "node")
		f.Key = "lock"
	}
	return f
}

// SafeDrift draws only clock drift within a design's drift factor: the
// assumption redlock's safety argument makes.
func SafeDrift(t *rapid.T, topo Topo, factor float64) []sim.Fault {
	n := rapid.IntRange(0, 2).Draw(t, "drifts")
	limit := int64(factor * 1e6 / 2)
	var fs []sim.Fault
	for i := 0; i < n; i++ {
		fs = append(fs, sim.Fault{Kind: sim.FaultClockDrift, Target: pick(rapidDraws{t}, topo.Nodes, "node"),
			RatePPM: rapid.Int64Range(-limit, limit).Draw(t, "ppm")})
	}
	return fs
}

// Describe renders a schedule one fault per line.
func Describe(fs []sim.Fault) string {
	if len(fs) == 0 {
		return "  (no faults)\n"
	}
	s := ""
	for i, f := range fs {
		s += "  " + strconv.Itoa(i+1) + ". " + f.String() + "\n"
	}
	return s
}

// AllKinds lists every fault kind.
func AllKinds() []sim.FaultKind { return slices.Clone(sim.FaultKinds) }
