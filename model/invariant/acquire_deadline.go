package invariant

import (
	"cmp"
	"slices"
	"time"

	"locksim/model/history"
	"locksim/sim"
)

// checkAcquireDeadline reports every acquisition that was given a
// deadline (its acquire-start's Dur: how long it may wait) and returned
// later than the deadline plus the tolerance the design declares
// (Config.AcquireTolerance). The lateness counts only the time the client
// was free to return: from the deadline to the acquired or acquire-failed
// event (or the end of the history, for one that never returned), less
// the time the process was paused or its acquiring task starved (a starve
// fault, starve.go) and the time the acquiring task waited
// on a Redis request (a call until its reply, timeout or refusal), which
// a request's own timeout bounds. What is left is the client's own
// waiting: a backoff sleep or a wait for a release message begun before
// the deadline and ending after it.
//
// The deadline is the start's reading of the client's monotonic clock plus
// Dur, as a true instant (history.Index.TrueAt follows its rate). An
// attempt that crashed or whose task ended is not judged, nor, for a
// design that decides by its wall clock (Config.ClientWall), one during
// which the client's clock was stepped.
func checkAcquireDeadline(ix *history.Index, cfg Config) []Violation {
	var vs []Violation
	for _, a := range ix.Attempts {
		start := &ix.H[a.Start]
		if start.Dur <= 0 || (a.End != history.AttemptAcquired && a.End != history.AttemptFailed && a.End != history.AttemptOpen) {
			continue
		}
		deadline := ix.TrueAt(a.Client, start.Local+start.Dur)
		endPos, endAt := a.EndPos, ix.End
		if endPos >= 0 {
			endAt = ix.H[endPos].At
		} else {
			endPos = len(ix.H) - 1
		}
		if endAt-deadline <= cfg.AcquireTolerance {
			continue // the common case: returned in time
		}
		if cfg.ClientWall && stepped(ix, a.Client, a.Start, endPos) {
			continue
		}
		excused := excusedTime(ix, a, endPos, deadline, endAt)
		late := endAt - deadline - excused
		if late <= cfg.AcquireTolerance {
			continue
		}
		vs = append(vs, deadlineViolation(ix, a, deadline, endPos, endAt, excused, late, cfg.AcquireTolerance))
	}
	return vs
}

// stepped reports whether client's clock was stepped between two events.
func stepped(ix *history.Index, client string, from, to int) bool {
	for _, p := range ix.Events(client) {
		if p > from && p <= to && ix.H[p].Kind == sim.KindClockJump {
			return true
		}
	}
	return false
}

// excusedTime is how long, within [from, to), the attempt's client was
// paused or its acquiring task had a request outstanding (from each call
// to its reply, timeout or refusal; to `to` for one still outstanding at
// endPos): the union of those intervals.
func excusedTime(ix *history.Index, a history.Attempt, endPos int, from, to time.Duration) time.Duration {
	var ivs [][2]time.Duration
	for _, p := range ix.Pauses[a.Client] {
		ivs = append(ivs, [2]time.Duration{p.From, p.To})
	}
	for _, p := range starved(ix, a.Client, a.Task, false) {
		ivs = append(ivs, [2]time.Duration{p.From, p.To})
	}
	open := time.Duration(-1)
	for _, p := range ix.Events(a.Client) {
		if p < a.Start {
			continue
		}
		if p > endPos {
			break
		}
		e := ix.H[p]
		if !sameTaskName(e.Task, a.Task) {
			continue
		}
		switch e.Kind {
		case sim.KindCall:
			if open < 0 {
				open = e.At
			}
		case sim.KindReply, sim.KindTimeout, sim.KindRefused:
			if open >= 0 {
				ivs = append(ivs, [2]time.Duration{open, e.At})
				open = -1
			}
		}
	}
	if open >= 0 {
		ivs = append(ivs, [2]time.Duration{open, to})
	}
	return unionWithin(ivs, from, to)
}

// unionWithin is the length of the union of the intervals, clipped to
// [from, to).
func unionWithin(ivs [][2]time.Duration, from, to time.Duration) time.Duration {
	slices.SortFunc(ivs, func(a, b [2]time.Duration) int { return cmp.Compare(a[0], b[0]) })
	var d time.Duration
	cur := from
	for _, iv := range ivs {
		lo, hi := max(iv[0], cur), min(iv[1], to)
		if hi > lo {
			d += hi - lo
			cur = hi
		}
	}
	return d
}

// sameTaskName compares task names, "" standing for "main".
func sameTaskName(a, b string) bool {
	if a == "" {
		a = "main"
	}
	if b == "" {
		b = "main"
	}
	return a == b
}

// deadlineViolation explains a late return: both times, what was
// excused, and the client's own waiting that made it late.
func deadlineViolation(ix *history.Index, a history.Attempt, deadline time.Duration, endPos int, endAt, excused, late, tolerance time.Duration) Violation {
	x := &explanation{ix: ix}
	start := ix.H[a.Start]
	x.add(a.Start, a.Client+" started acquiring at "+sim.FormatTime(start.At)+" and could wait "+start.Dur.String()+", until "+sim.FormatTime(deadline), a.Start)
	ret, lateWord := "had not returned when the history ended at "+sim.FormatTime(endAt), "was still waiting, already"
	if a.EndPos >= 0 {
		lateWord = "returned"
		ret = "returned (" + string(a.End) + ") at " + sim.FormatTime(endAt)
		x.cite(a.EndPos)
	}
	what := "it " + ret + ", " + sim.FormatTime(endAt-deadline) + " after the deadline"
	if excused > 0 {
		what += ", of which " + sim.FormatTime(excused) + " paused or waiting on Redis requests do not count"
	}
	x.add(endPos, what)
	// The client's own wait that crossed the deadline: from its task's
	// last event at or before the deadline to its next one, when that
	// last event was no request sent.
	last, next := -1, -1
	for _, p := range ix.Events(a.Client) {
		if p < a.Start || p > endPos || !sameTaskName(ix.H[p].Task, a.Task) {
			continue
		}
		if ix.H[p].At <= deadline {
			last = p
		} else if next < 0 {
			next = p
		}
	}
	if last >= 0 && next >= 0 && ix.H[last].Kind != sim.KindCall {
		x.add(last, a.Client+" waited with no request outstanding from "+sim.FormatTime(ix.H[last].At)+" ("+string(ix.H[last].Kind)+
			") to "+sim.FormatTime(ix.H[next].At)+" ("+string(ix.H[next].Kind)+"), across the deadline", last, next)
	}
	return Violation{
		Invariant:   AcquireDeadline,
		Clients:     []string{a.Client},
		From:        deadline,
		To:          endAt,
		Events:      x.seqs(),
		Explanation: a.Client + "'s acquisition " + lateWord + " " + sim.FormatTime(late) + " late, beyond the tolerance of " + tolerance.String() + ": " + x.text(),
	}
}
