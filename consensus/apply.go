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
	if e.GetIndex() > n.cl.recorded {
		n.cl.recorded = e.GetIndex()
		n.cl.committed.apply(e.GetIndex(), args)
		for _, c := range changes {
			n.cl.recordChange(m.mc, c)
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

// recordChange records a committed key change on every member: an
// expire event for a key whose lease the leader expired, a key event
// otherwise.
//
// Why every member, at the first apply: the lock lives in the replicated
// log, and a change is in force from the instant it commits, wherever the
// next request lands (a member that applies later serves nothing it has
// not applied yet). Recording each member's own apply instead would show a
// follower that learns the commit index late, or a leader crash before
// the followers hear of the commit, as a lease lost, a false alarm. The
// first apply anywhere is the earliest moment the commit is known, and the
// log's safety (raft's Log Matching and Leader Completeness) makes it the
// same change on every member.
func (cl *Cluster) recordChange(mc *sim.MachineCtx, c keyChange) {
	for _, name := range cl.names {
		seen := cl.seen[name]
		was := seen[c.key]
		if was == c.value {
			continue
		}
		seen[c.key] = c.value
		if c.cause == "expired" {
			mc.RecordFor(name, sim.Event{Kind: sim.KindExpire, Key: c.key, Value: was})
			continue
		}
		mc.RecordFor(name, sim.Event{Kind: sim.KindKey, Key: c.key, Value: c.value, Note: c.cause})
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

// Value returns the lock key's value in the cluster's committed state (the
// state every member holds once it has caught up), "" when absent: what a
// test oracle reads of a member that is up (sim.MachineInspector). It
// reads the committed state machine, not the recorded key events.
func (n *Node) Value(key string) string { return n.cl.committed.keys[key].value }
