package history

import (
	"slices"
	"strings"
	"time"

	"locksim/sim"
)

// Heal returns when the last fault of the run was over: the latest end of
// every fault (a pause at its resume, a partition at its heal, a node
// crash at the node's restart or at the promotion that replaced it, a
// network window at its end plus the delay it adds, a clock step back that
// delays something at its instant plus the step, a client crash, a step
// forward, a rate change or an eviction at its instant), which may lie
// after the
// history's end. healed is false when a fault never ends: a node down for
// good that no failover replaced, or a partition or network window for
// good. Liveness is judged only after a heal.
//
// A step back of a clock delays what that clock times by the step: on a
// node, the TTLs of the keys it holds with one then (a key without a TTL
// never expires whatever the clock does); on a client, its deadlines only
// when clientWall says the clients decide by their wall clocks.
func (ix *Index) Heal(clientWall bool) (at time.Duration, healed bool) {
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
			if e.Dur < 0 && (ix.heldTTLKey(e.Actor, pos) || clientWall && !ix.isNode(e.Actor)) {
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
		default:
			// A kind whose start event's Dur is how long it lasts
			// (sim.FaultKindInfo.LastsDur).
			if sim.FaultLastsDur(e.Kind) {
				if e.Dur == 0 {
					healed = false
				}
				end = e.At + e.Dur
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

// heldTTLKey reports whether node held a key with a TTL just before pos:
// set with one, or given one later by a PEXPIRE-like command (which
// changes no value, so records no key event).
func (ix *Index) heldTTLKey(node string, pos int) bool {
	for k, ch := range ix.Keys {
		if k.Node != node {
			continue
		}
		i := lastChangeBefore(ch, pos)
		if i < 0 || ch[i].Value == "" {
			continue
		}
		if ix.H[ch[i].Pos].Dur > 0 || ix.expiredBy(node, k.Key, ch[i].Pos, pos) {
			return true
		}
	}
	return false
}

// expiryCommands give a key a TTL without changing its value.
var expiryCommands = []string{"PEXPIRE", "EXPIRE", "PEXPIREAT", "EXPIREAT"}

// expiredBy reports whether node executed a command giving key a TTL
// between positions from and to.
func (ix *Index) expiredBy(node, key string, from, to int) bool {
	for i := from + 1; i < to && i < len(ix.H); i++ {
		e := &ix.H[i]
		if e.Kind == sim.KindExec && e.Actor == node && len(e.Args) > 1 && e.Args[1] == key &&
			slices.Contains(expiryCommands, strings.ToUpper(e.Args[0])) {
			return true
		}
	}
	return false
}

// isNode reports whether actor is a Redis node, not a client (the clients'
// own events are indexed in clientPos).
func (ix *Index) isNode(actor string) bool {
	_, client := ix.clientPos[actor]
	return !client
}
