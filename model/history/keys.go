package history

import (
	"sort"

	"locksim/sim"
)

// ValueAt returns the value key had on node just before the event at pos,
// "" when absent. A crashed node's keys read as absent (see Holds). Before
// its first recorded change a key holds what that change says it held
// (an expiry names the value it removed).
func (ix *Index) ValueAt(node, key string, pos int) string {
	ch := ix.Keys[NodeKey{node, key}]
	if i := lastChangeBefore(ch, pos); i >= 0 {
		return ch[i].Value
	}
	if len(ch) > 0 {
		return ch[0].Was
	}
	return ""
}

// lastChangeBefore returns the index in changes of the last change before
// pos, or -1 if there is none.
func lastChangeBefore(changes []KeyChange, pos int) int {
	return sort.Search(len(changes), func(i int) bool { return changes[i].Pos >= pos }) - 1
}

// DownAt returns the node's down interval that covers the instant just
// before the event at pos.
func (ix *Index) DownAt(node string, pos int) (Down, bool) {
	ds := ix.Downs[node]
	i := sort.Search(len(ds), func(i int) bool { return ds[i].FromPos >= pos }) - 1
	if i >= 0 && (ds[i].Open() || pos <= ds[i].Ready) {
		return ds[i], true
	}
	return Down{}, false
}

// Holds reports whether node holds lock value v for key just before the
// event at pos, in the sense that matters to a lease: while a node is down
// nobody can take the lock on it, so it still holds what it had when it
// crashed. A lease is thus lost on a crash only when the node restarts
// without the value (no persistence, the last second lost, or the key
// expired while the node was down), and only from that moment.
func (ix *Index) Holds(node, key, v string, pos int) bool {
	if d, down := ix.DownAt(node, pos); down {
		return HoldsLease(ix.ValueAt(node, key, d.FromPos), v)
	}
	return HoldsLease(ix.ValueAt(node, key, pos), v)
}

// Authority returns the node that answers for node's group just before the
// event at pos: the last node promoted in the group, or node itself when
// its group has not failed over (or is unknown: a group is known from its
// failover events).
func (ix *Index) Authority(node string, pos int) string {
	g, ok := ix.groupOf[node]
	if !ok {
		return node
	}
	cur := node
	for _, p := range ix.Promotions {
		if p.Pos >= pos {
			break
		}
		if p.Group == g {
			cur = p.Node
		}
	}
	return cur
}

// Alive reports whether the lease with lock value v on key, granted by
// node, is still alive just before the event at pos: the node that answers
// for the group now (Authority) holds the value (Holds). After a failover
// the promoted node must hold it, or another client can take the lock; on
// a cluster, after a slot migration moved the key, the node it moved to
// (keyHome) answers for it.
func (ix *Index) Alive(node, key, v string, pos int) bool {
	return ix.Holds(ix.Authority(ix.keyHome(node, key, pos), pos), key, v, pos)
}

// LossCause says how a lease was lost on a node.
type LossCause string

// The ways a lease is lost.
const (
	LostExpired  LossCause = "expired"
	LostDeleted  LossCause = "deleted"
	LostReplaced LossCause = "replaced"
	LostEvicted  LossCause = "evicted"
	LostRestart  LossCause = "restarted without it"
	LostFailover LossCause = "failover"
	LostNever    LossCause = "never held"
)

// Loss is the moment a lease stopped being alive on one granting node.
type Loss struct {
	// Pos is the event that ended it (a key change, a node-up, a
	// promotion); -1 for LostNever.
	Pos   int
	Cause LossCause
	// Node is where it was lost: the node whose key changed, the node that
	// restarted, or the node promoted without the value.
	Node string
	// Change is the key change for expiry, deletion, replacement and
	// eviction.
	Change *KeyChange
}

// LossOf explains why the lease (v on key, granted by node) is not alive
// just before pos: the last event before pos at which it went from alive
// to dead. A lease never alive there was granted by a node that no longer
// answered for its group (a deposed primary: LostFailover) or that never
// held it (LostNever, Pos -1). ok is false when the lease is alive.
func (ix *Index) LossOf(node, key, v string, pos int) (Loss, bool) {
	if ix.Alive(node, key, v, pos) {
		return Loss{}, false
	}
	loss := Loss{Pos: -1, Cause: LostNever, Node: node}
	alive := false
	for _, p := range ix.Marked {
		if p >= pos {
			break
		}
		now := ix.Alive(node, key, v, p+1)
		if alive && !now {
			loss = ix.lossAt(p, key, v)
		}
		alive = now
	}
	if loss.Pos < 0 {
		if a := ix.Authority(node, pos); a != node {
			loss = Loss{Pos: ix.promotionOf(a, pos), Cause: LostFailover, Node: a}
		}
	}
	return loss, true
}

// promotionOf returns the position of the last promotion of node before
// pos, -1 if none.
func (ix *Index) promotionOf(node string, pos int) int {
	at := -1
	for _, p := range ix.Promotions {
		if p.Pos < pos && p.Node == node {
			at = p.Pos
		}
	}
	return at
}

// lossAt classifies the event at p, which ended a lease on key with v.
func (ix *Index) lossAt(p int, key, v string) Loss {
	e := ix.H[p]
	switch e.Kind {
	case sim.KindPromote:
		return Loss{Pos: p, Cause: LostFailover, Node: e.Actor}
	case sim.KindNodeUp:
		return Loss{Pos: p, Cause: LostRestart, Node: e.Actor}
	}
	ch := ix.Keys[NodeKey{e.Actor, key}]
	i := lastChangeBefore(ch, p+1)
	if i < 0 || ch[i].Pos != p {
		return Loss{Pos: p, Cause: LostDeleted, Node: e.Actor}
	}
	c := &ch[i]
	cause := LostDeleted
	switch {
	case e.Kind == sim.KindExpire:
		cause = LostExpired
	case c.Cause == "evicted":
		cause = LostEvicted
	case c.Cause == "restart":
		cause = LostRestart
	case c.Value != "":
		cause = LostReplaced
	}
	return Loss{Pos: p, Cause: cause, Node: e.Actor, Change: c}
}
