package consensus

import (
	pb "go.etcd.io/raft/v3/raftpb"
)

// Elections, driven deterministically. raft's own randomized election
// timeout comes from crypto/rand (raft.go's globalRand in v3.7.0), which
// would make a run depend on more than its seed. So the RawNode's
// ElectionTick is out of reach and this driver does what raft's
// tickElection would: it counts ticks since the node last heard from a
// leader of its term (an append, a heartbeat or a snapshot) or granted a
// vote, and at a timeout drawn from the node's seeded generator in
// [ElectionTicks, 2*ElectionTicks) it calls Campaign. PreVote and
// CheckQuorum stay off (they use the same unreachable timeout): a leader
// cut off from a quorum keeps believing it leads until it hears a higher
// term, but it can commit nothing, so it can grant, renew or expire
// nothing either.

// resetElection restarts the election timer with a fresh draw.
func (n *Node) resetElection() {
	m := n.mem
	e := n.cl.cfg.ElectionTicks
	m.elapsed, m.timeout = 0, e+m.mc.Rand().IntN(e)
}

// electionTick counts one tick for a follower or candidate and campaigns
// at the timeout.
func (n *Node) electionTick() {
	m := n.mem
	m.elapsed++
	if m.elapsed < m.timeout {
		return
	}
	n.resetElection()
	_ = m.rn.Campaign() // never fails for a voter
}

// heard restarts the election timer when msg comes from a leader whose
// term is at least the node's.
func (n *Node) heard(msg *pb.Message) {
	m := n.mem
	switch msg.GetType() {
	case pb.MessageType_MsgApp, pb.MessageType_MsgHeartbeat, pb.MessageType_MsgSnap:
		if msg.GetTerm() >= m.rn.BasicStatus().GetTerm() {
			m.elapsed = 0
		}
	}
}
