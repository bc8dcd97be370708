package consensus

import (
	"slices"
	"strconv"
	"strings"

	pb "go.etcd.io/raft/v3/raftpb"

	"locksim/sim"
)

// applyEntry applies one committed entry: the command runs on the kv,
// the key changes are recorded as the node's key events, the leader's
// lease clock follows grants and keep-alives, and the client waiting on
// this node gets its reply.
func (n *Node) applyEntry(e *pb.Entry) {
	m := n.mem
	if e.GetType() != pb.EntryType_EntryNormal || len(e.GetData()) == 0 {
		return // the leader's empty entry of a new term
	}
	f := strings.Split(string(e.GetData()), " ")
	if len(f) < 3 {
		return // not ours: the log holds only what Request and expireLeases wrote
	}
	tag, args := f[0], f[2:]
	rep, changes := m.kv.apply(e.GetIndex(), args)
	switch args[0] {
	case opGrant:
		if len(rep.Elems) == 2 {
			n.renewLease(rep.Elems[0].Int)
		}
	case opKeepAlive:
		if id, err := strconv.ParseInt(args[1], 10, 64); err == nil && rep.Int > 0 {
			n.renewLease(id)
		}
	case opRevoke, opExpire:
		if id, err := strconv.ParseInt(args[1], 10, 64); err == nil {
			delete(m.expiry, id)
			delete(m.expiring, id)
		}
	}
	if !m.replaying {
		for _, c := range changes {
			n.recordChange(c)
		}
	}
	if tag != m.tag {
		return
	}
	seq, _ := strconv.ParseUint(f[1], 10, 64)
	if p, ok := m.pending[seq]; ok {
		delete(m.pending, seq)
		m.mc.Reply(p.r, rep)
	}
}

// recordChange records a key change on this node: an expire event for a
// key whose lease the leader expired, a key event otherwise.
func (n *Node) recordChange(c keyChange) {
	was := n.seen[c.key]
	if was == c.value {
		return
	}
	n.seen[c.key] = c.value
	if c.cause == "expired" {
		n.mem.mc.Record(sim.Event{Kind: sim.KindExpire, Key: c.key, Value: was})
		return
	}
	n.mem.mc.Record(sim.Event{Kind: sim.KindKey, Key: c.key, Value: c.value, Note: c.cause})
}

// recordRestored records, after a restart, the keys the replayed log gave
// back (a key event noted "restart" each, as a Redis node records what its
// persistence kept).
func (n *Node) recordRestored() {
	for _, k := range sortedKeys(n.mem.kv.keys) {
		v := n.mem.kv.keys[k].value
		if n.seen[k] != v {
			n.seen[k] = v
			n.mem.mc.Record(sim.Event{Kind: sim.KindKey, Key: k, Value: v, Note: "restart"})
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
