package invariant

import (
	"time"

	"locksim/model/history"
	"locksim/sim"
)

// A starve fault (sim.FaultStarve) holds back one task of a client while
// its other tasks run on. The checkers read its windows from the client's
// starve events: an acquisition's own task starved past its deadline is
// excused as a pause is (checkAcquireDeadline), and the explanations of
// mutual-exclusion and stale-write cite a starvation of either client
// that overlaps the story, naming the task.

// starved returns the windows, [From, To) in true time, in which client's
// task was starved (every task's when any), in history order, with the
// event that started each. A task "" is the main task.
func starved(ix *history.Index, client, task string, all bool) []history.Span {
	var out []history.Span
	for _, p := range ix.Events(client) {
		e := ix.H[p]
		if e.Kind != sim.KindStarve || !all && !sameTaskName(e.Task, task) {
			continue
		}
		out = append(out, history.Span{From: e.At, To: min(e.At+e.Dur, ix.End), FromPos: p, ToPos: -1})
	}
	return out
}

// addStarves cites each starvation of client that overlaps [from, to).
func (x *explanation) addStarves(ix *history.Index, client string, from, to time.Duration) {
	for _, s := range starved(ix, client, "", true) {
		if s.To <= from || s.From >= to || citedAlready(x, s.FromPos) {
			continue
		}
		task := ix.H[s.FromPos].Task
		x.add(s.FromPos, client+"'s "+task+" task was starved of CPU from "+sim.FormatTime(s.From)+" to "+sim.FormatTime(s.To)+" while its other tasks ran on", s.FromPos)
	}
}
