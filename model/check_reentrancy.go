package model

import (
	"strconv"

	"locksim/sim"
)

// checkReentrancy reports broken reentrant hold counts (InvReentrancy):
// per client, each acquired event's N must be one more than the count
// held (1, 2, 3... on nested acquires) and each release's N one less,
// back down to 0, never negative, never skipping. A crash or restart
// forgets the count. After a violation the count follows what the client
// recorded, so one mistake is reported once.
func checkReentrancy(ix *historyIndex) []Violation {
	var vs []Violation
	count := map[string]int64{}
	last := map[string]int{} // client -> pos of its last acquired/release
	for _, pos := range ix.marked {
		e := ix.h[pos]
		switch e.Kind {
		case KindAcquired, KindRelease:
			c := e.Actor
			held := count[c]
			want, verb := held+1, "acquired"
			if e.Kind == KindRelease {
				want, verb = held-1, "released"
			}
			if e.N != want {
				text := c + " " + verb + " at " + sim.FormatTime(e.At) + " leaving hold count " + strconv.FormatInt(e.N, 10) +
					" while it held " + strconv.FormatInt(held, 10) + " (expected " + strconv.FormatInt(want, 10) + ")"
				if want < 0 {
					text = c + " released at " + sim.FormatTime(e.At) + " while it held no lock (hold count would be " +
						strconv.FormatInt(want, 10) + ")"
				}
				prev, ok := last[c]
				if !ok {
					prev = -1
				}
				vs = append(vs, Violation{
					Invariant:   InvReentrancy,
					Clients:     []string{c},
					From:        e.At,
					To:          e.At,
					Events:      ix.seqs(prev, pos),
					Explanation: text,
				})
			}
			count[c] = max(e.N, 0)
			last[c] = pos
		case sim.KindCrash, sim.KindRestart:
			delete(count, e.Actor)
			delete(last, e.Actor)
		}
	}
	return vs
}
