package invariant

import (
	"locksim/model/history"
	"locksim/sim"
)

// checkFIFO judges a fair lock's promise: the lock goes to waiters in the
// order their requests reached Redis. An attempt arrives with the first
// command carrying its lock value that a node executed
// (history.Attempt.Arrived), and is granted by the command that first made
// a key hold its value (Attempt.Granted). It is a violation when a
// client is granted the lock while another client, whose attempt arrived
// earlier, was still waiting: its attempt had not been granted, given up,
// crashed or ended (history.Attempt.Left). A waiter a node granted was
// served in its turn, even if it never learnt it (a lost reply), and such
// a grant passes the waiters ahead of it all the same; one that gave up
// or crashed is owed nothing; one that was paused or slow to poll is still
// owed its turn, so a queue that drops a live waiter breaks FIFO. Each
// grant is reported once, naming the earliest waiter it passed.
func checkFIFO(ix *history.Index) []Violation {
	var vs []Violation
	n := len(ix.H)
	for i := range ix.Attempts {
		y := &ix.Attempts[i]
		// y was granted when a node made the lock hold its value, even if
		// y never learnt it (its reply late or lost): the node served it
		// then, in or out of turn.
		if y.Arrived < 0 || y.End != history.AttemptAcquired && y.Granted < 0 {
			continue
		}
		g := y.Left(n) // where the node granted y
		var passed *history.Attempt
		for j := range ix.Attempts {
			x := &ix.Attempts[j]
			if x.Client == y.Client || x.Arrived < 0 || x.Arrived >= y.Arrived || x.Left(n) <= g {
				continue
			}
			if passed == nil || x.Arrived < passed.Arrived {
				passed = x
			}
		}
		if passed != nil {
			vs = append(vs, fifoViolation(ix, passed, y, g))
		}
	}
	return vs
}

// fifoViolation explains the grant to y at position g while x, which
// arrived first, still waited.
func fifoViolation(ix *history.Index, x, y *history.Attempt, g int) Violation {
	h := ix.H
	ex := &explanation{ix: ix}
	xa, ya, ge := h[x.Arrived], h[y.Arrived], h[g]
	ex.add(x.Arrived, x.Client+"'s acquisition reached "+xa.Actor+" at "+sim.FormatTime(xa.At), x.Start, x.Arrived)
	ex.add(y.Arrived, y.Client+"'s reached "+ya.Actor+" later, at "+sim.FormatTime(ya.At), y.Start, y.Arrived)
	granted := ge.Actor + " granted the lock to " + y.Client + " at " + sim.FormatTime(ge.At)
	switch {
	case y.End == history.AttemptAcquired:
	case y.EndPos >= 0:
		granted += " (a grant " + y.Client + " never learnt of; its attempt ended: " + string(y.End) + ")"
	default:
		granted += " (a grant " + y.Client + " never learnt of)"
	}
	ex.add(g, granted, g, y.EndPos)
	for _, p := range ix.Pauses[x.Client] {
		if p.To > xa.At && p.From < ge.At {
			ex.addPause(x.Client, p)
		}
	}
	switch {
	case x.End == history.AttemptAcquired:
		e := h[x.EndPos]
		ex.add(x.EndPos, x.Client+" was granted it only at "+sim.FormatTime(e.At), x.EndPos)
	case x.EndPos >= 0:
		e := h[x.EndPos]
		ex.add(x.EndPos, x.Client+"'s acquisition ended at "+sim.FormatTime(e.At)+" ("+string(x.End)+")", x.EndPos)
	default:
		ex.add(len(h), x.Client+" was still waiting when the history ended at "+sim.FormatTime(ix.End))
	}
	return Violation{
		Invariant: FIFO,
		Clients:   []string{x.Client, y.Client},
		From:      xa.At,
		To:        ge.At,
		Events:    ex.seqs(),
		Explanation: y.Client + " was granted the lock at " + sim.FormatTime(ge.At) + " ahead of " + x.Client +
			", who had asked first and was still waiting: " + ex.text(),
	}
}
