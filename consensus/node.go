package consensus

import (
	"io"
	"log"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"locksim/sim"
	"locksim/sim/resp"
)

// Node is one member of a consensus cluster: raft's RawNode driven by the
// simulated world (a sim.Machine). Its disk survives a crash; everything
// else (the RawNode, its MemoryStorage, the applied state, pending
// requests, the leader's lease clock) is memory and is rebuilt at boot by
// replaying the log from the disk.
type Node struct {
	cl   *Cluster
	name string
	id   uint64 // raft ID: its place in the cluster, from 1
	disk *disk

	mem *memory // nil while the node is down
}

// memory is a running node's volatile state.
type memory struct {
	mc    *sim.MachineCtx
	rn    *raft.RawNode
	store *raft.MemoryStorage
	kv    *kv

	state raft.StateType
	lead  uint64

	// elapsed counts ticks since the node last heard from a leader (or
	// granted a vote); at timeout it campaigns. The driver, not raft,
	// decides elections: see campaign.go.
	elapsed, timeout int

	pending map[uint64]pendingReq // request seq -> the client waiting
	seq     uint64
	tag     string // this boot's request tag: "name/boots"

	expiry   map[int64]time.Duration // lease -> when it runs out on this node's monotonic clock
	expiring map[int64]time.Duration // lease -> when an expire was proposed (monotonic)

}

type pendingReq struct {
	r  sim.Request
	at time.Duration // when it was proposed, monotonic
}

// The timer tags.
const tagTick = 1

// pendingMax is how long a proposal waits for its entry to apply before
// the node forgets the request (the client timed out long before).
const pendingMax = time.Minute

// quietLogger drops raft's log output; raft still panics on its own bugs.
var quietLogger = &raft.DefaultLogger{Logger: log.New(io.Discard, "", 0)}

// Boot starts the node from its disk (sim.Machine).
func (n *Node) Boot(mc *sim.MachineCtx) {
	defer n.guard(mc)
	n.disk.boots++
	store := raft.NewMemoryStorage()
	mustStore(store.ApplySnapshot(n.disk.snap))
	mustStore(store.SetHardState(n.disk.hard))
	mustStore(store.Append(n.disk.ents))
	rn, err := raft.NewRawNode(&raft.Config{
		ID:      n.id,
		Storage: store,
		Applied: n.disk.snap.GetMetadata().GetIndex(),
		// raft draws its randomized election timeout from crypto/rand, so
		// it must never time out by itself: its timeout is out of reach
		// and the driver campaigns on a seeded draw (campaign.go).
		ElectionTick:    math.MaxInt32,
		HeartbeatTick:   n.cl.cfg.HeartbeatTicks,
		MaxSizePerMsg:   1 << 20,
		MaxInflightMsgs: 256,
		Logger:          quietLogger,
	})
	if err != nil {
		panic("consensus: " + err.Error()) // the disk is ours: a programmer bug
	}
	n.mem = &memory{
		mc: mc, rn: rn, store: store, kv: newKV(), state: raft.StateFollower,
		pending: map[uint64]pendingReq{}, tag: n.name + "/" + strconv.FormatUint(n.disk.boots, 10),
		expiry: map[int64]time.Duration{}, expiring: map[int64]time.Duration{},
	}
	n.resetElection()
	if n.disk.boots == 1 && n.id == 1 {
		// A fresh cluster is taken as already running when the clients
		// start: its first member campaigns at once, so the first leader
		// is r1 (elected within a few round trips), not whoever's seeded
		// timeout fires first a second later.
		_ = rn.Campaign()
	}
	n.ready() // after a restart: replays the log up to the commit on disk
	mc.After(n.cl.cfg.Tick, tagTick)
}

// guard turns a panic of raft (which panics when its log is inconsistent
// with its disk) or of this package into an error that stops the run, so a
// bug shows as a failed run naming the node, not a crashed process.
func (n *Node) guard(mc *sim.MachineCtx) {
	if p := recover(); p != nil {
		n.mem = nil
		mc.Fail(errors.Errorf("consensus node %s: %v; the run cannot go on", n.name, p))
	}
}

func mustStore(err error) {
	if err != nil {
		panic("consensus: storage: " + err.Error())
	}
}

// Crash drops the node's memory (sim.Machine); the disk stays.
func (n *Node) Crash() { n.mem = nil }

// Wake runs a tick (sim.Machine).
func (n *Node) Wake(mc *sim.MachineCtx, tag int) {
	defer n.guard(mc)
	m := n.mem
	if m == nil || tag != tagTick {
		return
	}
	m.rn.Tick()
	if m.state == raft.StateLeader {
		n.expireLeases()
	} else {
		n.electionTick()
	}
	n.prunePending()
	n.ready()
	if mc.ClientsDone() {
		// The clients are gone and the world only drains what is in
		// flight: the cluster stops ticking (messages still land), which
		// spares a run ten seconds of heartbeats nobody observes.
		return
	}
	mc.After(n.cl.cfg.Tick, tagTick)
}

// Deliver steps a raft message from a peer (sim.Machine).
func (n *Node) Deliver(mc *sim.MachineCtx, from string, msg any) {
	defer n.guard(mc)
	m := n.mem
	if m == nil {
		return
	}
	rm, ok := msg.(*pb.Message)
	if !ok {
		return
	}
	n.heard(rm)
	_ = m.rn.Step(rm) // a message from an old term or an unknown peer is dropped, as raft does
	n.ready()
}

// Request proposes a client's command (sim.Machine): the reply comes when
// its entry applies on this node. A node that knows no leader refuses at
// once, as etcd's "etcdserver: no leader".
func (n *Node) Request(mc *sim.MachineCtx, r sim.Request) {
	defer n.guard(mc)
	m := n.mem
	if m == nil {
		return
	}
	args := slices.Clone(r.Args)
	if len(args) > 0 {
		args[0] = strings.ToUpper(args[0])
	}
	if rep, ok := validate(args); !ok {
		mc.Reply(r, rep)
		return
	}
	if args[0] == opGrant {
		args[1] = strconv.FormatInt(max(mustInt(args[1]), int64(n.cl.minTTL()/time.Millisecond)), 10)
	}
	if m.lead == raft.None {
		mc.Reply(r, resp.ErrorReply(ErrNoLeader))
		return
	}
	m.seq++
	data := m.tag + " " + strconv.FormatUint(m.seq, 10) + " " + strings.Join(args, " ")
	if err := m.rn.Propose([]byte(data)); err != nil {
		mc.Reply(r, resp.ErrorReply(ErrNoLeader))
		return
	}
	m.pending[m.seq] = pendingReq{r: r, at: mc.Mono()}
	n.ready()
}

// ErrNoLeader is the error reply of a node that knows no leader.
const ErrNoLeader = "ERR no leader"

// ready persists, sends and applies what raft has ready, until it has
// nothing more. Order as raft requires: the disk first, then messages,
// then committed entries.
func (n *Node) ready() {
	m := n.mem
	for m.rn.HasReady() {
		rd := m.rn.Ready()
		if rd.SoftState != nil {
			n.softState(rd.SoftState)
		}
		if !raft.IsEmptySnap(rd.Snapshot) {
			mustStore(m.store.ApplySnapshot(rd.Snapshot))
			n.disk.setSnap(rd.Snapshot)
		}
		if len(rd.Entries) > 0 {
			mustStore(m.store.Append(rd.Entries))
			n.disk.append(rd.Entries)
		}
		if !raft.IsEmptyHardState(rd.HardState) {
			mustStore(m.store.SetHardState(rd.HardState))
			n.disk.setHard(rd.HardState)
		}
		for _, msg := range rd.Messages {
			n.send(msg)
		}
		for _, e := range rd.CommittedEntries {
			n.applyEntry(e)
		}
		m.rn.Advance(rd)
	}
}

// send hands a message to the network. The message itself travels, not
// a copy: raft builds every outgoing message afresh for the Ready that
// carries it, with its own scalar fields (raft.go sets them with
// new(value), never a pointer into its state), keeps no reference to it
// after Ready, and never changes an entry once it is made; so the receiver
// shares nothing mutable with the sender, as over a real transport.
// Copying every message (proto.Clone) was a fifth of a run's time.
func (n *Node) send(msg *pb.Message) {
	m := n.mem
	if msg.GetType() == pb.MessageType_MsgVoteResp && !msg.GetReject() {
		m.elapsed = 0 // granting a vote restarts the election timer, as raft does
	}
	to := msg.GetTo()
	if to < 1 || int(to) > len(n.cl.nodes) || to == n.id {
		return
	}
	m.mc.Send(n.cl.nodes[to-1].name, msg)
}

// softState notes a change of leader or role.
func (n *Node) softState(ss *raft.SoftState) {
	m := n.mem
	was := m.state
	m.state, m.lead = ss.RaftState, ss.Lead
	if ss.RaftState == raft.StateLeader && was != raft.StateLeader {
		n.promote()
	}
	if ss.RaftState != raft.StateLeader {
		clear(m.expiring)
	}
}

// minTTL is the shortest lease a node grants, as etcd's: one and a half
// election timeouts, so a lease can outlive a leader change. A shorter
// request is granted this TTL; the reply says so.
func (cl *Cluster) minTTL() time.Duration {
	return cl.cfg.Tick * time.Duration(cl.cfg.ElectionTicks) * 3 / 2
}

// mustInt parses a validated integer argument.
func mustInt(s string) int64 {
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}
