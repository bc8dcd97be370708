package sim

import (
	"strings"
	"time"

	"locksim/clock"
	"locksim/network"
)

// applyFault starts fault i (of Config.Faults) now, schedules its end,
// and records whether it took effect (FaultOutcomes).
func (w *World) applyFault(i int, f Fault) {
	w.faultOut[i] = FaultFired
	end := network.Forever
	if f.Dur > 0 {
		end = w.now + f.Dur
	}
	switch f.Kind {
	case FaultPause:
		if p := w.procs[f.Target]; !p.dead {
			p.pause(f.Dur)
		} else {
			w.faultOut[i] = FaultNoTarget
		}
	case FaultCrash:
		if p := w.procs[f.Target]; p.dead {
			w.faultOut[i] = FaultNoTarget
		}
		w.procs[f.Target].crash(f.Restart, f.Dur)
	case FaultPartition:
		w.net.AddPartition(network.Partition{A: f.A, B: f.B, OneWay: f.OneWay, Start: w.now, End: end})
		sides := strings.Join(f.A, ",") + " | " + strings.Join(f.B, ",")
		if f.OneWay {
			sides += " (one-way)"
		}
		w.record(Event{Actor: "fault", Kind: KindPartition, Local: w.now, Dur: f.Dur, Note: sides})
		w.sentinel.reevaluate()
		if end != network.Forever {
			w.schedule(end, func() {
				w.record(Event{Actor: "fault", Kind: KindHeal, Local: w.now, Note: sides})
				w.sentinel.reevaluate()
			})
		}
	case FaultDelay:
		w.faultOut[i] = FaultNoTarget // until the window delays a message
		w.netHits = append(w.netHits, netHit{fault: i, window: w.net.AddDelay(network.Delay{From: f.From, To: f.To, Extra: f.Extra, Start: w.now, End: end})})
		w.record(Event{Actor: "fault", Kind: KindNetDelay, Local: w.now, Dur: f.Dur, N: int64(f.Extra), Note: f.From + "->" + f.To})
	case FaultDrop:
		w.faultOut[i] = FaultNoTarget // until the window loses a message
		w.netHits = append(w.netHits, netHit{fault: i, drop: true, window: w.net.AddDrop(network.Drop{From: f.From, To: f.To, Count: f.Count, Start: w.now, End: end})})
		w.record(Event{Actor: "fault", Kind: KindNetDrop, Local: w.now, Dur: f.Dur, N: int64(f.Count), Note: f.From + "->" + f.To})
	case FaultNodeCrash:
		if !w.nodes[f.Target].up {
			w.faultOut[i] = FaultNoTarget
		}
		w.nodes[f.Target].crash(f.Dur)
	case FaultClockJump:
		if n := w.nodes[f.Target]; n != nil {
			n.jumpClock(f.By)
			w.record(Event{Actor: n.name, Kind: KindClockJump, Local: n.local(), Dur: f.By})
		} else {
			p := w.procs[f.Target]
			p.clock.AddJump(clockJump(w.now, f.By))
			w.record(Event{Actor: p.name, Kind: KindClockJump, Local: p.clock.Mono(w.now), Dur: f.By})
		}
	case FaultClockDrift:
		if n := w.nodes[f.Target]; n != nil {
			n.setRate(f.RatePPM)
			w.record(Event{Actor: n.name, Kind: KindClockDrift, Local: n.local(), N: f.RatePPM})
		} else {
			p := w.procs[f.Target]
			_ = p.clock.SetRatePPM(w.now, f.RatePPM)
			w.record(Event{Actor: p.name, Kind: KindClockDrift, Local: p.clock.Mono(w.now), N: f.RatePPM})
		}
	case FaultEvict:
		if !w.nodes[f.Target].evict(f.Key) {
			w.faultOut[i] = FaultNoTarget
		}
	}
}

func clockJump(at, by time.Duration) clock.Jump { return clock.Jump{At: at, By: by} }
