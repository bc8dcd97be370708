package invariant

import (
	"strconv"

	"locksim/model/history"
	"locksim/sim"
)

// checkReentrancy judges reentrant hold counts: per client, each acquired
// event's N is one more than the count held (1, 2, 3... on nested holds)
// and each release's N one less, back down to 0, never negative, never
// skipping. A crash or restart forgets the count. After a violation the
// count follows what the client recorded, so one mistake is reported once.
func checkReentrancy(ix *history.Index) []Violation {
	var vs []Violation
	count := map[string]int64{}
	last := map[string]int{} // client -> pos of its last acquired/release
	for _, pos := range ix.Marked {
		e := ix.H[pos]
		switch e.Kind {
		case history.KindAcquired, history.KindRelease:
			c := e.Actor
			held := count[c]
			want, verb := held+1, "acquired"
			if e.Kind == history.KindRelease {
				want, verb = held-1, "released"
			}
			left := history.Acquired(e).HoldCount() // the same field as Release.HoldsLeft
			if e.Kind == history.KindRelease {
				left = history.Release(e).HoldsLeft()
			}
			if left != want {
				text := c + " " + verb + " at " + sim.FormatTime(e.At) + " leaving hold count " + strconv.FormatInt(left, 10) +
					" while it held " + strconv.FormatInt(held, 10) + " (expected " + strconv.FormatInt(want, 10) + ")"
				if want < 0 {
					text = c + " released at " + sim.FormatTime(e.At) + " while it held no lock (hold count would be " +
						strconv.FormatInt(want, 10) + ")"
				}
				prev, ok := last[c]
				if !ok {
					prev = -1
				}
				vs = append(vs, Violation{Invariant: Reentrancy, Clients: []string{c}, From: e.At, To: e.At,
					Events: ix.Seqs(prev, pos), Explanation: text})
			}
			count[c] = max(left, 0)
			last[c] = pos
		case sim.KindCrash, sim.KindRestart:
			delete(count, e.Actor)
			delete(last, e.Actor)
		}
	}
	return vs
}
