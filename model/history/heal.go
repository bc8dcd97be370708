package history

import (
	"time"

	"locksim/sim"
)

// Heal returns when the last fault of the run was over: the latest end of
// every fault (a pause at its resume, a partition at its heal, a node
// crash at the node's restart or at the promotion that replaced it, a
// network window at its end plus the delay it adds, a clock step back at
// its instant plus the step, a client crash, a step forward, a rate change
// or an eviction at its instant), which may lie after the
// history's end. healed is false when a fault never ends: a node down for
// good that no failover replaced, or a partition or network window for
// good. Liveness is judged only after a heal.
func (ix *Index) Heal() (at time.Duration, healed bool) {
	healed = true
	for _, pos := range ix.Faults {
		e := ix.H[pos]
		end := e.At
		switch e.Kind {
		case sim.KindPause:
			if p, ok := ix.PausedAt(e.Actor, e.At); ok {
				end = p.To
			}
		case sim.KindPartition:
			if e.Dur == 0 && !ix.healedAfter(pos) {
				healed = false
			}
			end = e.At + e.Dur
		case sim.KindNetDelay:
			if e.Dur == 0 {
				healed = false
			}
			end = e.At + e.Dur + time.Duration(e.N)
		case sim.KindNetDrop:
			end = e.At + e.Dur
		case sim.KindClockJump:
			if e.Dur < 0 {
				// A step back delays every deadline on that clock (a key's
				// TTL on a node, a wall-clock wait) by the step.
				end = e.At - e.Dur
			}
		case sim.KindNodeCrash:
			switch d, ok := ix.downFrom(e.Actor, pos); {
			case ok && !d.Open():
				end = d.To
			case ix.replaced(e.Actor, pos) >= 0:
				end = ix.H[ix.replaced(e.Actor, pos)].At
			default:
				healed = false
			}
		}
		at = max(at, end)
	}
	return at, healed
}

// healedAfter reports whether a heal event follows the partition at pos.
func (ix *Index) healedAfter(pos int) bool {
	for _, p := range ix.Partitions {
		if p.FromPos == pos {
			return !p.Open()
		}
	}
	return false
}

// downFrom returns the node's down interval that began at pos.
func (ix *Index) downFrom(node string, pos int) (Down, bool) {
	for _, d := range ix.Downs[node] {
		if d.FromPos == pos {
			return d, true
		}
	}
	return Down{}, false
}

// replaced returns the position of the first promotion after pos that made
// another node primary in place of node, or -1.
func (ix *Index) replaced(node string, pos int) int {
	for _, p := range ix.Promotions {
		if p.Pos > pos && p.Old == node {
			return p.Pos
		}
	}
	return -1
}
