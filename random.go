package locksim

import (
	"math/rand/v2"
	"time"

	"locksim/model"
	"locksim/sim"
)

// RandomSchedule draws a fault schedule from r over the enabled kinds, with
// the same shapes as GenSchedule but without rapid: the CLI's `check` uses
// it so that runs are independent, parallel and shardable by seed.
func RandomSchedule(r *rand.Rand, topo Topo, kinds []sim.FaultKind) []sim.Fault {
	if len(kinds) == 0 {
		return nil
	}
	var enabled []sim.FaultKind
	for _, k := range kinds {
		if r.IntN(2) == 0 {
			enabled = append(enabled, k)
		}
	}
	if len(enabled) == 0 {
		enabled = []sim.FaultKind{kinds[r.IntN(len(kinds))]}
	}
	n := 1 + r.IntN(3)
	fs := make([]sim.Fault, 0, n)
	ms := func(lo, hi time.Duration) time.Duration {
		a, b := int64(lo/time.Millisecond), int64(hi/time.Millisecond)
		return time.Duration(a+r.Int64N(b-a+1)) * time.Millisecond
	}
	pickS := func(xs []string) string { return xs[r.IntN(len(xs))] }
	for i := 0; i < n; i++ {
		k := enabled[r.IntN(len(enabled))]
		f := sim.Fault{Kind: k, At: ms(0, topo.Horizon)}
		ttl := topo.TTL
		switch k {
		case sim.FaultPause, sim.FaultCrash:
			f.Target = pickS(topo.Clients)
			if k == sim.FaultPause {
				f.Dur = ms(time.Millisecond, 2*ttl)
			} else if f.Restart = r.IntN(2) == 0; f.Restart {
				f.Dur = ms(time.Millisecond, ttl)
			}
			if where := placements[r.IntN(len(placements))]; where != "" {
				f.At = 0
				f.After = &sim.Trigger{Actor: f.Target, Kind: where, Nth: 1 + r.IntN(4)}
			}
		case sim.FaultPartition:
			eps := append(append([]string(nil), topo.Clients...), topo.Nodes...)
			a := pickS(eps)
			f.A = []string{a}
			for _, e := range eps {
				if e != a {
					f.B = append(f.B, e)
				}
			}
			if topo.Replicas {
				f.B = append(f.B, sim.SentinelName)
			}
			f.OneWay = r.IntN(2) == 0
			f.Dur = ms(time.Millisecond, 2*ttl)
		case sim.FaultDelay:
			f.From, f.To = pickS(topo.Clients), model.ResourceName
			if r.IntN(2) == 0 {
				f.To = pickS(topo.Nodes)
			}
			f.Extra, f.Dur = ms(time.Millisecond, 2*ttl), ms(time.Millisecond, ttl)
		case sim.FaultDrop:
			f.From, f.To = pickS(topo.Nodes), pickS(topo.Clients)
			if r.IntN(2) == 0 {
				f.From, f.To = f.To, f.From
			}
			f.Count, f.Dur = 1+r.IntN(2), ms(time.Millisecond, ttl)
		case sim.FaultNodeCrash:
			f.Target, f.Dur = pickS(topo.Nodes), ms(time.Millisecond, 2*ttl)
		case sim.FaultClockJump:
			f.Target, f.By = pickS(topo.Nodes), ms(time.Millisecond, 2*ttl)
			if r.IntN(2) == 0 {
				f.By = -f.By
			}
		case sim.FaultClockDrift:
			f.Target = pickS(append(append([]string(nil), topo.Nodes...), topo.Clients...))
			f.RatePPM = r.Int64N(600_001) - 300_000
		case sim.FaultEvict:
			f.Target, f.Key = pickS(topo.Nodes), "lock"
		}
		fs = append(fs, f)
	}
	return fs
}

// Shrink greedily minimises a failing schedule: it drops faults, then
// halves durations and pulls start times earlier, keeping each change for
// which stillFails holds. It makes at most maxRuns runs.
func Shrink(faults []sim.Fault, stillFails func([]sim.Fault) bool, maxRuns int) []sim.Fault {
	cur := append([]sim.Fault(nil), faults...)
	runs := 0
	try := func(c []sim.Fault) bool {
		if runs >= maxRuns {
			return false
		}
		runs++
		if stillFails(c) {
			cur = c
			return true
		}
		return false
	}
	for changed := true; changed && runs < maxRuns; {
		changed = false
		for i := 0; i < len(cur); i++ {
			c := append(append([]sim.Fault(nil), cur[:i]...), cur[i+1:]...)
			if try(c) {
				changed, i = true, i-1
			}
		}
		for i := range cur {
			for _, mut := range []func(*sim.Fault) bool{
				func(f *sim.Fault) bool { f.Dur /= 2; return f.Dur > time.Millisecond },
				func(f *sim.Fault) bool { f.At /= 2; return f.At > time.Millisecond },
				func(f *sim.Fault) bool { f.Extra /= 2; return f.Extra > time.Millisecond },
				func(f *sim.Fault) bool { f.By /= 2; return f.By > time.Millisecond || f.By < -time.Millisecond },
			} {
				c := append([]sim.Fault(nil), cur...)
				if mut(&c[i]) && try(c) {
					changed = true
				}
			}
		}
	}
	return cur
}
