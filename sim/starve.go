package sim

import "time"

// A starved task models CPU starvation of one thread of a client process:
// the machine is saturated (100% CPU, a noisy neighbour, a throttled
// container) and the scheduler does not run that thread for a while,
// while the process's other threads go on. Unlike a pause (every task
// frozen), a starve fault holds back one task by name ("watchdog",
// "main"): what would wake it (a timer, a reply, a timeout, a pub/sub
// message) and the operation it yielded wait until the window ends, then
// run in the order they came; the process's other tasks, its clock and the
// network run on. Redis still executes what the task sent before the
// window; a request the task was about to send leaves at the end (the
// renewal leaves late). A task spawned under that name during the window
// is held from its first step.
//
// Invariants: a starvation belongs to one incarnation of the process (a
// crash ends it, and what it held is stale: wake checks the incarnation);
// a starvation while one of the same task is under way extends it to the
// later end; what a window held runs at its end, through the process's
// pause if the process is paused then.

// starvation is a process's starved tasks and what they were held from.
type starvation struct {
	until       map[string]time.Duration // task name -> end of its window
	incarnation int
	held        []action
}

// starved reports whether task t may not run now.
func (p *proc) starved(t *task) bool {
	s := p.starve
	return s != nil && s.incarnation == p.incarnation && p.w.now < s.until[t.name]
}

// hold keeps a for the end of t's starvation, reporting false when t is
// not starved.
func (p *proc) hold(t *task, a action) bool {
	if !p.starved(t) {
		return false
	}
	p.starve.held = append(p.starve.held, a)
	return true
}

// applyStarve starts starving task f.Task of process f.Target for f.Dur.
func (w *World) applyStarve(i int, f Fault, _ time.Duration) {
	p := w.procs[f.Target]
	if p.dead {
		w.faultOut[i] = FaultNoTarget
		return
	}
	if p.ext != nil {
		w.starveExternal(p, f)
		return
	}
	if p.starve == nil || p.starve.incarnation != p.incarnation {
		p.starve = &starvation{until: map[string]time.Duration{}, incarnation: p.incarnation}
	}
	s := p.starve
	end := w.now + f.Dur
	w.record(&Event{Actor: p.name, Task: f.Task, Kind: KindStarve, Local: p.clock.Mono(w.now), Dur: f.Dur})
	if end <= s.until[f.Task] {
		return // within a window already under way
	}
	s.until[f.Task] = end
	inc := p.incarnation
	w.schedule(end, func() {
		if p.dead || p.incarnation != inc || p.starve != s || s.until[f.Task] != end {
			return
		}
		delete(s.until, f.Task)
		var run, keep []action
		for _, a := range s.held {
			if a.t.name == f.Task {
				run = append(run, a)
			} else {
				keep = append(keep, a)
			}
		}
		s.held = keep
		w.record(&Event{Actor: p.name, Task: f.Task, Kind: KindStarveEnd, Local: p.clock.Mono(w.now), N: int64(len(run))})
		for _, a := range run {
			if p.paused {
				p.deferred = append(p.deferred, a)
			} else {
				w.scheduleAction(w.now, a)
			}
		}
	})
}

// starveExternal starves an external process's renewals (validation lets
// only task=watchdog through): the world records the window and tells the
// driver, which holds the commands its process sends for the renewal
// (realclient: the extend-send commands) until the window's end. A crash
// ends the window (the incarnation is gone); a window within one under way
// records itself and changes nothing.
func (w *World) starveExternal(p *proc, f Fault) {
	x := p.ext
	end := w.now + f.Dur
	w.record(&Event{Actor: p.name, Task: f.Task, Kind: KindStarve, Local: x.Now(), Dur: f.Dur})
	if p.starve == nil || p.starve.incarnation != p.incarnation {
		p.starve = &starvation{until: map[string]time.Duration{}, incarnation: p.incarnation}
	}
	s := p.starve
	if end <= s.until[f.Task] {
		return
	}
	s.until[f.Task] = end
	x.effect(Effect{Kind: EffectStarve, Task: f.Task, Until: end})
	inc := p.incarnation
	w.schedule(end, func() {
		if p.dead || p.incarnation != inc || p.starve != s || s.until[f.Task] != end {
			return
		}
		delete(s.until, f.Task)
		w.record(&Event{Actor: p.name, Task: f.Task, Kind: KindStarveEnd, Local: x.Now()})
		x.effect(Effect{Kind: EffectStarveEnd, Task: f.Task})
	})
}
