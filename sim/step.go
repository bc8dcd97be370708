package sim

import (
	"strconv"
	"time"

	"github.com/pkg/errors"
)

// Stepping: Run is Start, then Step until it returns false, then Finish.
// A driver that runs external processes (external.go) interleaves its own
// work between steps: it asks NextAt when the next event is due, moves the
// clock with AdvanceTo when time passed on its side, and runs events one
// Step at a time so that it can carry out each event's effects
// (TakeEffects) before the next.

// Start arms the faults, starts the client processes and schedules the
// end of the run (Config.Until). It must be called once, before Step.
func (w *World) Start() {
	if w.started {
		panic("sim: World.Start called twice")
	}
	w.started = true
	w.drainUntil = -1
	if len(w.cfg.Faults) > 0 {
		w.faultOut = make([]FaultOutcome, len(w.cfg.Faults))
	}
	for i, f := range w.cfg.Faults {
		if f.After != nil {
			w.triggers = append(w.triggers, &armedTrigger{f: f, i: i}) // FaultNotTriggered until it matches
			continue
		}
		w.faultOut[i] = FaultAfterEnd // until it comes due
		w.schedule(f.At, func() { w.applyFault(i, f) })
	}
	for _, f := range w.cfg.Faults {
		if f.Kind == FaultMemoryPressure {
			w.nodes[f.Target].trackAccess = true
		}
	}
	for _, n := range w.nodeList {
		if n.cfg.Machine != nil {
			n.bootMachine()
		}
		n.startFill()
	}
	for _, p := range w.procList {
		p.start()
	}
	w.startHeartbeats()
	if w.cfg.Until > 0 {
		w.schedule(w.cfg.Until, func() { w.done = true })
	}
}

// live counts the client programs still running: coroutine Mains and
// external processes that have not exited.
func (w *World) live() int {
	n := w.liveMain
	if w.ext != nil {
		n += w.ext.live
	}
	return n
}

// NextAt returns the true time of the next event and true, or false when
// the run is over: stopped, nothing scheduled, or, once every client has
// ended (and Config.Until is zero), nothing due within Config.Drain.
func (w *World) NextAt() (time.Duration, bool) {
	if w.done || w.pending() == 0 {
		return 0, false
	}
	if w.live() == 0 && w.cfg.Until == 0 {
		// Every client is done; what is still in flight (a delayed
		// write, a replication entry, a key about to expire) runs for
		// up to Drain more, so the checkers see where it lands.
		if w.drainUntil < 0 {
			w.drainUntil = w.now + w.cfg.Drain
		}
		if w.nextDue() > w.drainUntil {
			return 0, false
		}
	}
	return w.nextDue(), true
}

// Step runs the next event and reports whether the run goes on. It stops
// the run with an error at Limits.MaxTime and Limits.MaxEvents.
func (w *World) Step() bool {
	if _, ok := w.NextAt(); !ok {
		return false
	}
	e := w.popNext()
	if e.at > w.cfg.Limits.MaxTime {
		w.fail(errors.Errorf("run stopped at the time limit: limits.max_time %v reached with %d events processed; raise the limit or end the workload sooner", w.cfg.Limits.MaxTime, w.events))
		return false
	}
	w.events++
	if w.events > w.cfg.Limits.MaxEvents {
		raise := ""
		if w.cfg.Limits.MaxEvents < DefaultMaxEvents {
			raise = ", or raise limits events= up to " + strconv.Itoa(DefaultMaxEvents)
		}
		w.fail(errors.Errorf("run stopped at the event limit: limits.max_events %d reached at %s; shorten the run (fewer cycles, a shorter duration)%s (limits: events)", w.cfg.Limits.MaxEvents, FormatTime(w.now), raise))
		return false
	}
	w.now = e.at
	w.run(e.a)
	return !w.done
}

// AdvanceTo runs every event due at or before t, then moves the clock to
// t: a driver calls it when time passed outside the world (an external
// process's own timer fired). It reports whether the run goes on. t
// beyond Limits.MaxTime stops the run with the time-limit error.
func (w *World) AdvanceTo(t time.Duration) bool {
	for {
		at, ok := w.NextAt()
		if !ok || at > t {
			break
		}
		if !w.Step() {
			return false
		}
	}
	if w.done {
		return false
	}
	if t > w.cfg.Limits.MaxTime {
		w.fail(errors.Errorf("run stopped at the time limit: limits.max_time %v reached with %d events processed; raise the limit or end the workload sooner", w.cfg.Limits.MaxTime, w.events))
		return false
	}
	if t > w.now {
		w.now = t
	}
	return true
}

// Done reports whether the run has stopped (Config.Until reached, a limit,
// an error).
func (w *World) Done() bool { return w.done }

// Err returns the error that stopped the run, if any.
func (w *World) Err() error { return w.err }

// Finish ends the run: it reports a run stuck with coroutine clients and
// nothing scheduled, stops every coroutine still suspended, hands the
// nodes' instances back, and returns the history. It must be called once,
// after the last Step.
func (w *World) Finish() (History, error) {
	if w.finished {
		panic("sim: World.Finish called twice")
	}
	w.finished = true
	if !w.done && w.pending() == 0 && w.liveMain > 0 && w.err == nil {
		w.fail(errors.Errorf("run stuck at %s: %d client(s) still running with nothing scheduled (a bug in the simulator: please report it with the seed)", FormatTime(w.now), w.liveMain))
	}
	w.shutdown()
	return w.log.history(), w.err
}
