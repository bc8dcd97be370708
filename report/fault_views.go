package report

import (
	"time"

	"locksim/sim"
)

// faultView is how reports show one event kind a fault records (its
// start, end or repair): the sentence for it, the mark it draws on its
// actor's lane, and whether a violation's story tells it.
// TestEveryFaultEventHasAView fails when an event kind some fault kind
// records (sim.FaultKindInfo.Events) has none.
type faultView struct {
	describe func(t *timeline, e sim.Event) string
	// mark is the mark drawn at the event on its actor's lane (a client's,
	// a node's, or the network's for Actor sim.FaultActor); "" when a span
	// or another lane's mark shows it (a pause, a partition, an eviction).
	mark string
	// story: a violation's story tells the event whoever it involves;
	// scene: a fault started before the story's window that still lasts
	// sets its scene.
	story, scene bool
}

// faultViews lists the view of every event kind a fault records.
var faultViews = map[sim.Kind]faultView{
	sim.KindPause: {describe: func(t *timeline, e sim.Event) string {
		return e.Actor + " paused for " + short(e.Dur) + ", until " + fmtT(e.At+e.Dur)
	}},
	sim.KindResume: {describe: func(t *timeline, e sim.Event) string { return e.Actor + " resumed" }},
	sim.KindCrash: {mark: markCrash, describe: func(t *timeline, e sim.Event) string {
		if e.Dur > 0 {
			return e.Actor + " crashed (restarts after " + short(e.Dur) + ")"
		}
		return e.Actor + " crashed"
	}},
	sim.KindRestart: {mark: markRestart, describe: func(t *timeline, e sim.Event) string { return e.Actor + " restarted with no memory" }},
	sim.KindNodeCrash: {mark: markNodeCrash, story: true, scene: true, describe: func(t *timeline, e sim.Event) string {
		if e.Dur > 0 {
			return "node " + e.Actor + " crashed, down for " + short(e.Dur)
		}
		return "node " + e.Actor + " crashed for good"
	}},
	sim.KindNodeUp: {mark: markNodeUp, story: true, describe: func(t *timeline, e sim.Event) string {
		return "node " + e.Actor + " restarted (" + e.Note + ", " + itoa(e.N) + " keys kept)"
	}},
	sim.KindPartition: {story: true, scene: true, describe: func(t *timeline, e sim.Event) string {
		s := "partition " + e.Note
		if e.Dur > 0 {
			s += " for " + short(e.Dur)
		}
		return s
	}},
	sim.KindHeal: {mark: markHeal, story: true, describe: func(t *timeline, e sim.Event) string { return "partition healed: " + e.Note }},
	sim.KindNetDelay: {mark: markNetDelay, story: true, describe: func(t *timeline, e sim.Event) string {
		return "network delay " + e.Note + " +" + short(time.Duration(e.N)) + windowText(e.Dur)
	}},
	sim.KindNetDrop: {mark: markNetDrop, story: true, describe: func(t *timeline, e sim.Event) string {
		return "network drops the next " + itoa(e.N) + " messages " + e.Note + windowText(e.Dur)
	}},
	sim.KindClockJump: {mark: markClockJump, story: true, describe: func(t *timeline, e sim.Event) string {
		sign := "+"
		if e.Dur < 0 {
			sign = ""
		}
		return e.Actor + "'s clock jumped " + sign + short(e.Dur)
	}},
	sim.KindClockDrift: {mark: markClockDrift, story: true, describe: func(t *timeline, e sim.Event) string {
		sign := "+"
		if e.N < 0 {
			sign = ""
		}
		return e.Actor + "'s clock rate set to " + sign + itoa(e.N) + " ppm"
	}},
	sim.KindEvict: {describe: func(t *timeline, e sim.Event) string {
		if e.Note != "" { // maxmemory's policy, not the evict fault
			return e.Actor + " evicted " + e.Key + " (maxmemory, " + e.Note + "; " + itoa(e.N) + " bytes used after)"
		}
		return e.Actor + " evicted " + e.Key
	}},
	sim.KindNodeStall: {mark: markNodeStall, story: true, scene: true, describe: func(t *timeline, e sim.Event) string {
		return "node " + e.Actor + " stalled (its thread blocked) for " + short(e.Dur) + ", until " + fmtT(e.At+e.Dur)
	}},
	sim.KindSlotMigrate: {story: true, scene: true, describe: func(t *timeline, e sim.Event) string {
		return e.Actor + " starts importing hash slot " + itoa(e.N) + " (key " + e.Key + ", " + e.Note + ") for " + short(e.Dur)
	}},
	sim.KindClusterFailover: {story: true, describe: func(t *timeline, e sim.Event) string {
		s := "an operator sent CLUSTER FAILOVER to " + e.Actor
		if e.Note == "force" {
			s += " (FORCE: it does not wait to catch up)"
		}
		return s
	}},
	sim.KindSlotMoved: {story: true, describe: func(t *timeline, e sim.Event) string {
		return "hash slot " + itoa(e.N) + " now served by " + e.Actor + " (" + e.Note + "); the old owner answers MOVED"
	}},
	sim.KindNodeResume: {mark: markNodeResume, story: true, describe: func(t *timeline, e sim.Event) string {
		return "node " + e.Actor + " serves again: " + itoa(e.N) + " waiting requests and messages run"
	}},
	sim.KindStarve: {mark: markStarve, story: true, scene: true, describe: func(t *timeline, e sim.Event) string {
		return e.Actor + "'s " + e.Task + " task starved of CPU for " + short(e.Dur) + ", until " + fmtT(e.At+e.Dur) + " (its other tasks run on)"
	}},
	sim.KindMemoryPressure: {mark: markMemoryPressure, story: true, scene: true, describe: func(t *timeline, e sim.Event) string {
		return "another application wrote " + itoa(e.N) + " bytes of data to " + e.Actor + " at once (" + e.Note + "): " + e.Actor + " evicts by its policy"
	}},
	sim.KindStarveEnd: {mark: markStarveEnd, story: true, describe: func(t *timeline, e sim.Event) string {
		return e.Actor + "'s " + e.Task + " task runs again: " + itoa(e.N) + " held wake-ups and operations run"
	}},
}

// faultMark returns the mark fault event e draws on lane actor's lane, or
// "".
func faultMark(e sim.Event, actor string) string {
	if v, ok := faultViews[e.Kind]; ok && e.Actor == actor {
		return v.mark
	}
	return ""
}
