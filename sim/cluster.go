package sim

import (
	"crypto/sha1"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/sim/resp"
)

// ClusterConfig makes the groups one Redis Cluster (cluster.go): each
// group is a shard, its primary serving the hash slots assigned to it and
// redirecting commands on other slots as Redis Cluster does.
type ClusterConfig struct {
	// Enabled turns the groups into a cluster. Sentinel must then be off:
	// a cluster fails over by itself.
	Enabled bool
	// Slots assigns slot ranges to groups. Empty: the 16384 slots are
	// split into len(Groups) consecutive ranges in group order, as
	// redis-cli --cluster create does (3 groups: 0-5460, 5461-10922,
	// 10923-16383). A slot no range names is not served (CLUSTERDOWN).
	Slots []SlotRange `json:",omitempty"`
	// NodeTimeout is Redis's cluster-node-timeout: how long a majority of
	// the primaries must fail to reach a primary before its replicas run
	// for election, and how long a primary that cannot reach a majority
	// keeps serving (cluster_failover.go). 0 takes DefaultNodeTimeout,
	// 15s; it must not be negative.
	NodeTimeout time.Duration `json:",omitempty"`
}

// SlotRange assigns the slots First..Last (both included, 0..16383) to
// the group Group.
type SlotRange struct {
	Group       string
	First, Last int
}

// validate checks the cluster settings against the configured groups.
func (cc ClusterConfig) validate(c *Config) error {
	if !cc.Enabled {
		if len(cc.Slots) > 0 {
			return errors.New("cluster.slots is set but the cluster is not enabled")
		}
		for i, f := range c.Faults {
			if f.Kind == FaultSlotMigrate || f.Kind == FaultClusterFailover {
				return errors.Errorf("faults[%d] (%s) needs a cluster (cluster.enabled)", i, f.Kind)
			}
		}
		return nil
	}
	if c.Sentinel.Enabled {
		return errors.New("cluster and sentinel are both enabled; a cluster fails over by itself")
	}
	if len(c.Groups) == 0 {
		return errors.New("cluster is enabled but there are no groups to be its shards")
	}
	if cc.NodeTimeout < 0 {
		return errors.Errorf("cluster.node_timeout %v is negative", cc.NodeTimeout)
	}
	groups := map[string]bool{}
	for _, g := range c.Groups {
		groups[g.Name] = true
	}
	var taken [ClusterSlots]bool
	for i, r := range cc.Slots {
		switch {
		case !groups[r.Group]:
			return errors.Errorf("cluster.slots[%d] names unknown group %q", i, r.Group)
		case r.First < 0 || r.Last >= ClusterSlots || r.First > r.Last:
			return errors.Errorf("cluster.slots[%d] (%d-%d) is not a range within 0-%d", i, r.First, r.Last, ClusterSlots-1)
		}
		for s := r.First; s <= r.Last; s++ {
			if taken[s] {
				return errors.Errorf("cluster.slots[%d] assigns slot %d, which an earlier range assigned already", i, s)
			}
			taken[s] = true
		}
	}
	return nil
}

// EvenSlots splits the 16384 slots among groups as redis-cli --cluster
// create does: consecutive ranges of 16384/len(groups) slots, rounded.
func EvenSlots(groups []string) []SlotRange {
	var rs []SlotRange
	per := float64(ClusterSlots) / float64(len(groups))
	first := 0
	for i, g := range groups {
		last := int(math.Round(float64(i)*per + per - 1)) // redis-cli: lround(cursor+per-1)
		if i == len(groups)-1 {
			last = ClusterSlots - 1
		}
		rs = append(rs, SlotRange{Group: g, First: first, Last: last})
		first = last + 1
	}
	return rs
}

// cluster is the cluster's slot map: which group owns each slot and which
// slots are being migrated. Every node reads the same map (limits: the
// cluster bus's gossip and per-node views are not modelled; see
// docs/limits.md).
type cluster struct {
	w      *World
	groups []*group // config order
	owner  [ClusterSlots]int16
	// initial is owner at the run's start: the slot map clients read when
	// they connect (cluster_client.go).
	initial [ClusterSlots]int16
	// moving maps a slot being migrated to the group importing it: the
	// owner is MIGRATING it, the target IMPORTING it.
	moving map[int]int
	// paused maps a slot an atomic migration is handing over to it: its
	// owner holds the writes to it (cluster_migrate.go).
	paused map[int]*migration
	// conns is each node connection's cluster state, by node then
	// connection key.
	conns map[string]map[string]*clusterConn
	epoch int64
	// nodeTimeout is ClusterConfig.NodeTimeout with its default;
	// health the failover state (cluster_failover.go).
	nodeTimeout time.Duration
	health      clusterHealth
	// full is whether every slot is assigned: with Redis's default
	// cluster-require-full-coverage yes, a cluster missing one refuses
	// every keyed command.
	full bool
}

// clusterConn is the per-connection state of a cluster node: the ASKING
// flag (for the next command only), READONLY, and the MULTI a node checks
// as a whole at EXEC.
type clusterConn struct {
	inc      int // the node's incarnation the state belongs to
	asking   bool
	readonly bool
	multi    bool
	dirty    bool // a queued command was redirected: EXEC aborts
	slot     int  // slot of the queued commands' keys, -1 none yet
	cross    bool // queued commands span slots
}

func newCluster(w *World) *cluster {
	cl := &cluster{w: w, moving: map[int]int{}, paused: map[int]*migration{}, conns: map[string]map[string]*clusterConn{}, epoch: int64(len(w.cfg.Groups))}
	idx := map[string]int{}
	var names []string
	for i, gc := range w.cfg.Groups {
		cl.groups = append(cl.groups, w.groups[gc.Name])
		idx[gc.Name] = i
		names = append(names, gc.Name)
	}
	for s := range cl.owner {
		cl.owner[s] = -1
	}
	slots := w.cfg.Cluster.Slots
	if len(slots) == 0 {
		slots = EvenSlots(names)
	}
	assigned := 0
	for _, r := range slots {
		for s := r.First; s <= r.Last; s++ {
			cl.owner[s] = int16(idx[r.Group])
			assigned++
		}
	}
	cl.full = assigned == ClusterSlots
	cl.initial = cl.owner
	cl.nodeTimeout = w.cfg.Cluster.NodeTimeout
	if cl.nodeTimeout == 0 {
		cl.nodeTimeout = DefaultNodeTimeout
	}
	cl.health = clusterHealth{failingSince: map[int]time.Duration{}, failed: map[int]bool{},
		minoritySince: map[string]time.Duration{}, down: map[string]bool{}}
	return cl
}

// nodeID is a node's 40-character cluster id: derived from its name, so
// that it is the same in every run.
func nodeID(name string) string {
	h := sha1.Sum([]byte("locksim-cluster-node/" + name))
	return hex.EncodeToString(h[:])
}

// addr is the address clients reach a node at (realclient's dialer maps
// "r1:6379" to node r1).
func nodeAddr(name string) string { return name + ":6379" }

// conn returns node n's cluster state for connection key.
func (cl *cluster) conn(n *node, key string) *clusterConn {
	m := cl.conns[n.name]
	if m == nil {
		m = map[string]*clusterConn{}
		cl.conns[n.name] = m
	}
	c := m[key]
	if c == nil || c.inc != n.incarnation {
		c = &clusterConn{inc: n.incarnation, slot: -1}
		m[key] = c
	}
	return c
}

// The replies of a cluster node, as Redis 7's cluster.c gives them.
const (
	msgCrossSlot      = "CROSSSLOT Keys in request don't hash to the same slot"
	msgTryAgain       = "TRYAGAIN Multiple keys request during rehashing of slot"
	msgClusterDown    = "CLUSTERDOWN The cluster is down"
	msgExecAbort      = "EXECABORT Transaction discarded because of previous errors."
	msgSelectCluster  = "ERR SELECT is not allowed in cluster mode"
	msgScriptNonLocal = "ERR Script attempted to access a non local key in a cluster node"
	msgScriptSlots    = "ERR Script attempted to access keys that do not hash to the same slot"
)

// route decides what node n does with a command on a cluster: serve it
// (ok false, and slot is the slot of its keys or -1), or answer it itself
// (ok true): a redirect, a refusal, or a cluster command.
func (cl *cluster) route(n *node, key, cmd string, args []string) (r resp.Reply, ok bool) {
	cc := cl.conn(n, key)
	asking := cc.asking
	cc.asking = false // ASKING holds for the next command only
	n.clusterTop, n.clusterSlot, n.clusterAsking = cmd, -1, asking
	switch cmd {
	case "CLUSTER":
		return cl.command(n, args), true
	case "ASKING":
		cc.asking = true
		return resp.OK, true
	case "READONLY":
		cc.readonly = true
		return resp.OK, true
	case "READWRITE":
		cc.readonly = false
		return resp.OK, true
	case "SELECT":
		if len(args) == 2 && args[1] != "0" {
			return resp.ErrorReply(msgSelectCluster), true
		}
	case "MULTI":
		cc.multi, cc.dirty, cc.slot, cc.cross = true, false, -1, false
		return resp.Reply{}, false
	case "DISCARD":
		cc.multi = false
		return resp.Reply{}, false
	case "EXEC":
		if !cc.multi {
			return resp.Reply{}, false
		}
		cc.multi = false
		msg := ""
		switch {
		case cc.dirty:
			msg = msgExecAbort
		case cc.cross:
			msg = msgCrossSlot
		}
		if msg == "" {
			if cc.slot >= 0 {
				// Redis checks the transaction's keys again at EXEC: the
				// slot may have moved since they were queued.
				if red := cl.redirect(n, cc, cmd, []int{cc.slot}, nil, asking); red != "" {
					msg = red
				}
			}
		}
		if msg == "" {
			return resp.Reply{}, false
		}
		n.do(key, []string{"DISCARD"})
		return resp.ErrorReply(msg), true
	}
	if !n.knownCommand(cmd) {
		return resp.Reply{}, false // miniredis's path gives the unknown-command reply
	}
	keys, known := clusterCommandKeys(cmd, args)
	if !known {
		return resp.ErrorReply("ERR locksim's cluster nodes do not know where the keys of '" + strings.ToLower(cmd) + "' are, so they cannot route it"), true
	}
	if len(keys) == 0 {
		return resp.Reply{}, false
	}
	slot := KeySlot(keys[0])
	for _, k := range keys[1:] {
		if KeySlot(k) != slot {
			if cc.multi {
				cc.dirty = true
			}
			return resp.ErrorReply(msgCrossSlot), true
		}
	}
	if cc.multi {
		// Queued: Redis checks each queued command as it arrives and the
		// whole transaction again at EXEC.
		switch {
		case cc.slot < 0:
			cc.slot = slot
		case cc.slot != slot:
			cc.cross = true
		}
	}
	if msg := cl.redirect(n, cc, cmd, []int{slot}, keys, asking); msg != "" {
		if cc.multi {
			cc.dirty = true
		}
		return resp.ErrorReply(msg), true
	}
	n.clusterSlot = slot
	return resp.Reply{}, false
}

// redirect returns the redirect or refusal node n gives a command on slot
// (Redis's getNodeByQuery), or "" when n serves it. keys are the command's
// keys, checked for presence while the slot is migrating.
func (cl *cluster) redirect(n *node, cc *clusterConn, cmd string, slots []int, keys []string, asking bool) string {
	slot := slots[0]
	if !cl.full || cl.health.down[n.name] {
		return msgClusterDown // cluster-require-full-coverage yes, Redis's default
	}
	oi := cl.owner[slot]
	if oi < 0 {
		return msgClusterDown // every slot is assigned (full): not reached
	}
	owner := cl.groups[oi]
	myself := n.group == owner && n.role == rolePrimary
	target, migrating := cl.moving[slot]
	importing := migrating && n.group == cl.groups[target] && n.role == rolePrimary && asking
	if (myself && migrating) || importing {
		missing, existing := 0, 0
		for _, k := range keys {
			if n.m.Exists(k) {
				existing++
			} else {
				missing++
			}
		}
		if myself && missing > 0 {
			if existing > 0 {
				return msgTryAgain
			}
			return "ASK " + strconv.Itoa(slot) + " " + nodeAddr(cl.groups[target].primary)
		}
		if importing {
			if len(keys) > 1 && missing > 0 {
				return msgTryAgain
			}
			return ""
		}
	}
	if myself {
		return ""
	}
	if cc.readonly && n.role == roleReplica && n.group == owner && n.m.IsReadOnlyCommand(cmd) {
		return ""
	}
	return "MOVED " + strconv.Itoa(slot) + " " + nodeAddr(owner.primary)
}

// scriptAccess checks a command a script on node n runs (preHook): its
// keys must be served by n and share one slot with the keys the script
// touched before. args are the command's arguments after its name, as
// preHook gets them. It returns the error the command gets, or "".
func (cl *cluster) scriptAccess(n *node, cmd string, args []string) string {
	keys, _ := clusterCommandKeys(cmd, append([]string{cmd}, args...))
	for _, k := range keys {
		slot := KeySlot(k)
		if n.clusterSlot < 0 {
			n.clusterSlot = slot
		} else if slot != n.clusterSlot {
			return msgScriptSlots
		}
		if cl.redirect(n, cl.conn(n, ""), cmd, []int{slot}, []string{k}, n.clusterAsking) != "" {
			return msgScriptNonLocal // Redis would redirect: not local
		}
	}
	return ""
}

// isScriptCommand reports whether cmd runs a script whose redis.call
// commands the cluster checks (scriptAccess).
func isScriptCommand(cmd string) bool {
	k, ok := clusterKeySpecs[cmd]
	return ok && k.numkeys > 0
}

// ClusterSeeds returns the addresses a cluster client starts from: the
// configured primary of each shard ("r1:6379"), or nil when the world is
// not a cluster. It reads only the configuration, so any goroutine may
// call it while the world runs.
func (w *World) ClusterSeeds() []string {
	if !w.cfg.Cluster.Enabled {
		return nil
	}
	var addrs []string
	for _, g := range w.cfg.Groups {
		addrs = append(addrs, nodeAddr(g.Primary))
	}
	return addrs
}

// The event kinds of a cluster (their KindInfo rows are in kinds.go).
const (
	KindSlotMigrate     Kind = "slot-migrate"
	KindSlotMoved       Kind = "slot-moved"
	KindClusterState    Kind = "cluster-state"
	KindClusterFailover Kind = "cluster-failover"
)
