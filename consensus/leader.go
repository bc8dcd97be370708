package consensus

import (
	"strconv"
	"time"

	"go.etcd.io/raft/v3"
)

// The leader's lease clock. As in etcd's lessor, only the leader expires
// leases, on its own monotonic clock: a lease runs out TTL after the
// leader applied its grant or its last keep-alive. The leader then
// proposes an expire command; the lease ends for everyone when that entry
// commits. A leader whose clock runs fast expires leases early in true
// time, and a client that budgets its lease on its own clock may still be
// writing: that is why the resource must check the revision.

// promote runs when the node becomes leader: every lease gets a full TTL
// from now on the new leader's clock (etcd's lessor.Promote), since the
// old leader's clock readings did not come along.
func (n *Node) promote() {
	m := n.mem
	now := m.mc.Mono()
	for _, id := range m.kv.leaseIDs() {
		m.expiry[id] = now + m.kv.leases[id].ttl
	}
	clear(m.expiring)
}

// renewLease restarts a lease's TTL on this node's clock (a grant or a
// keep-alive applied).
func (n *Node) renewLease(id int64) {
	m := n.mem
	if l := m.kv.leases[id]; l != nil {
		m.expiry[id] = m.mc.Mono() + l.ttl
		delete(m.expiring, id)
	}
}

// expireLeases proposes an expire for each lease that ran out on the
// leader's clock, in lease order, once per election timeout until it
// applies.
func (n *Node) expireLeases() {
	m := n.mem
	now := m.mc.Mono()
	retry := time.Duration(n.cl.cfg.ElectionTicks) * n.cl.cfg.Tick
	for _, id := range m.kv.leaseIDs() {
		at, ok := m.expiry[id]
		if !ok || now < at {
			continue
		}
		if p, ok := m.expiring[id]; ok && now < p+retry {
			continue
		}
		m.expiring[id] = now
		m.seq++
		data := m.tag + " " + strconv.FormatUint(m.seq, 10) + " " + opExpire + " " + strconv.FormatInt(id, 10)
		_ = m.rn.Propose([]byte(data)) // dropped only if leadership is being transferred: retried
	}
}

// prunePending forgets requests whose entries never applied (a proposal
// lost with a leader change) after pendingMax.
func (n *Node) prunePending() {
	m := n.mem
	now := m.mc.Mono()
	for seq, p := range m.pending {
		if now-p.at > pendingMax {
			delete(m.pending, seq) // no reply: the client's call timed out
		}
	}
}

// Leader reports whether the node is up and believes it leads, and its
// term.
func (n *Node) Leader() (bool, uint64) {
	if n.mem == nil {
		return false, 0
	}
	st := n.mem.rn.BasicStatus()
	return st.RaftState == raft.StateLeader, st.GetTerm()
}
