package sim

import (
	"maps"
	"time"
)

// replEntry is one step of the replication stream: the changes of one
// write on the primary, numbered by the primary's offset.
type replEntry struct {
	offset int64
	ops    []keyOp
}

// replicas returns the nodes currently replicating from n, config order.
func (n *node) replicas() []*node {
	if n.group == nil {
		return nil
	}
	var out []*node
	for _, m := range n.group.members {
		r := n.w.nodes[m]
		if r != n && r.role == roleReplica && r.following == n.name {
			out = append(out, r)
		}
	}
	return out
}

// replicate sends one entry to every replica over a reliable link: a
// partition holds it until the partition heals.
func (n *node) replicate(ops []keyOp) {
	n.offset++
	e := replEntry{offset: n.offset, ops: ops}
	inc := n.incarnation
	for _, r := range n.replicas() {
		r := r
		f := n.w.net.Send(n.name, r.name, n.w.now, true)
		if !f.Delivered {
			continue // a partition that never heals
		}
		n.w.schedule(f.At, func() {
			// Replication lag is time spent in the primary's output
			// buffer: a primary that crashed meanwhile never sent it.
			if n.incarnation != inc {
				return
			}
			r.applyEntry(n.name, e)
		})
	}
}

// applyEntry applies a replication entry on a replica. A gap in offsets
// (the replica restarted or was re-pointed) triggers a full resync.
func (n *node) applyEntry(from string, e replEntry) {
	if !n.up || n.role != roleReplica || n.following != from {
		return
	}
	if n.whenServing(func() { n.applyEntry(from, e) }) {
		return
	}
	p := n.w.nodes[from]
	if e.offset <= n.applied {
		return // already covered by a full resync
	}
	if e.offset != n.applied+1 {
		n.requestSync(p)
		return
	}
	n.sync()
	if n.state == nil {
		n.state = snapshot{}
	}
	next := maps.Clone(n.state)
	for _, op := range e.ops {
		if op.Del {
			n.m.Del(op.Key)
			delete(next, op.Key)
		} else {
			writeKey(n.m, op.Key, op.St)
			next[op.Key] = op.St
		}
	}
	n.persist(next)
	n.state = next
	n.applied = e.offset
	n.w.record(&Event{Actor: n.name, Kind: KindReplApply, Local: n.local(), Peer: from, N: e.offset})
	n.why = "replication"
	n.refreshWatch()
	if !n.up {
		return // a fault triggered by the apply crashed the replica: no ack
	}
	n.sendAck(p)
}

// requestSync starts a full resynchronisation of replica n from primary p.
// The copy travels over the reliable link p -> n, so a partition between
// them holds it until the partition heals (a replica cannot reach its
// primary across one), and it carries the primary's data as of its
// arrival. Until then the replica keeps what it had. One copy per primary
// is in flight at a time.
func (n *node) requestSync(p *node) {
	if n.syncing == p.name {
		return
	}
	f := n.w.net.Send(p.name, n.name, n.w.now, true)
	if !f.Delivered {
		return // a partition that never heals
	}
	n.syncing = p.name
	inc := n.incarnation
	n.w.schedule(f.At, func() {
		if n.incarnation != inc || n.syncing != p.name {
			return
		}
		n.syncing = ""
		if !n.up || !p.up || n.role != roleReplica || n.following != p.name || p.role != rolePrimary {
			return
		}
		n.fullSync(p)
	})
}

// fullSync replaces the replica's data with the primary's, as a full
// resynchronisation does.
func (n *node) fullSync(p *node) {
	n.sync()
	p.sync()
	src := p.state
	if src == nil || !p.keepsState() {
		src = takeSnapshot(p.m, p.local())
	}
	n.load(src)
	n.state = maps.Clone(src)
	n.persist(n.state)
	n.applied = p.offset
	n.w.record(&Event{Actor: n.name, Kind: KindReplApply, Local: n.local(), Peer: p.name, N: p.offset, Note: "full resync"})
	n.why = "full resync"
	n.refreshWatch()
	n.sendAck(p)
}

// load replaces the node's keyspace with s. On a primary, keys get their
// TTLs back from the absolute expiry (already expired keys are dropped);
// a replica keeps keys without TTLs, as Redis replicas wait for the
// primary's DEL instead of expiring keys themselves.
func (n *node) load(s snapshot) {
	n.sync()
	n.m.FlushAll()
	now := n.local()
	for _, k := range sortedKeys(s) {
		st := s[k]
		if n.role != roleReplica && st.ExpireAt != 0 {
			if st.ExpireAt <= now {
				continue
			}
			writeKey(n.m, k, st)
			n.m.SetTTL(k, st.ExpireAt-now)
			continue
		}
		writeKey(n.m, k, st)
	}
}

// sendAck tells the primary how far this replica got (REPLCONF ACK).
func (n *node) sendAck(p *node) {
	off := n.applied
	f := n.w.net.Send(n.name, p.name, n.w.now, true)
	if !f.Delivered {
		return
	}
	from := n.name
	n.w.schedule(f.At, func() {
		if !p.up || p.role != rolePrimary {
			return
		}
		if p.whenServing(func() { p.ackFrom(from, off) }) {
			return
		}
		p.ackFrom(from, off)
	})
}

// ackFrom takes replica from's acknowledgement of offset off.
func (p *node) ackFrom(from string, off int64) {
	if !p.up || p.role != rolePrimary {
		return
	}
	if off > p.acks[from] {
		p.acks[from] = off
	}
	p.ackAt[from] = p.local()
	p.checkWaits()
}

// promote makes a replica the primary of its group: keys get their TTLs
// from the absolute expiries the old primary sent, so keys already past
// their expiry on this node's clock vanish at once.
func (n *node) promote(old string) {
	n.role = rolePrimary
	n.following = ""
	n.offset = n.applied
	n.acks = map[string]int64{}
	n.ackAt = map[string]time.Duration{}
	n.sync()
	st := n.state
	if st == nil {
		st = takeSnapshot(n.m, n.local())
	}
	n.load(st)
	n.state = takeSnapshot(n.m, n.local())
	n.w.record(&Event{Actor: n.name, Kind: KindPromote, Local: n.local(), Key: n.group.name, Peer: old, N: n.offset})
	n.persist(n.state)
	n.why = "expired before promotion"
	n.refreshWatch()
}

// demote turns an old primary into a replica of p, discarding its writes.
func (n *node) demote(p *node) {
	n.role = roleReplica
	n.following = p.name
	n.waits = nil
	n.watch = map[string]time.Duration{}
	n.w.record(&Event{Actor: n.name, Kind: KindDemote, Local: n.local(), Key: n.group.name, Peer: p.name})
	n.requestSync(p)
}
