package sim

import "strings"

// Kind names what an Event records. The simulator's own kinds are below;
// package model/history adds the lock protocol's (acquire, write, ...).
// Every kind has exactly one meaning, documented in its KindInfo.
type Kind string

// Recorders is the set of actors that may record a kind.
type Recorders uint8

// The actors that record events.
const (
	ByClient  Recorders = 1 << iota // a client process (Actor "A")
	ByNode                          // a Redis node (Actor "r1")
	ByService                       // a service such as the resource
	ByFault                         // fault bookkeeping (Actor "fault")
)

// Has reports whether r includes all of o.
func (r Recorders) Has(o Recorders) bool { return r&o == o }

// String lists the recorders: "client", "client or node".
func (r Recorders) String() string {
	var ws []string
	for _, x := range []struct {
		r    Recorders
		name string
	}{{ByClient, "client"}, {ByNode, "node"}, {ByService, "service"}, {ByFault, "fault"}} {
		if r.Has(x.r) {
			ws = append(ws, x.name)
		}
	}
	return strings.Join(ws, " or ")
}

// KindInfo documents one event kind: who records it, what it means and
// which Event fields carry what. Fields not listed are zero. Every kind
// also sets Seq, At (true time) and Actor; Local is the actor's clock (a
// client's monotonic reading, a node's wall clock since clock.Epoch, true
// time for services and faults).
type KindInfo struct {
	Kind     Kind
	Recorder Recorders
	Meaning  string
	Fields   string
}

// The simulator's event kinds. Kinds lists them with their fields.
const (
	KindCall       Kind = "call"
	KindReply      Kind = "reply"
	KindTimeout    Kind = "timeout"
	KindRefused    Kind = "refused"
	KindLateReply  Kind = "late-reply"
	KindLost       Kind = "lost"
	KindExec       Kind = "exec"
	KindExpire     Kind = "expire"
	KindKey        Kind = "key"
	KindReplApply  Kind = "repl-apply"
	KindPromote    Kind = "promote"
	KindDemote     Kind = "demote"
	KindDiscover   Kind = "discover"
	KindPause      Kind = "pause"
	KindResume     Kind = "resume"
	KindCrash      Kind = "crash"
	KindRestart    Kind = "restart"
	KindNodeCrash  Kind = "node-crash"
	KindNodeUp     Kind = "node-up"
	KindNodeStall  Kind = "node-stall"
	KindNodeResume Kind = "node-resume"
	KindStarve     Kind = "starve"
	KindStarveEnd  Kind = "starve-end"
	KindPartition  Kind = "partition"
	KindHeal       Kind = "heal"
	KindNetDelay   Kind = "net-delay"
	KindNetDrop    Kind = "net-drop"
	KindClockJump  Kind = "clock-jump"
	KindClockDrift Kind = "clock-drift"
	KindEvict      Kind = "evict"
	KindTaskEnd    Kind = "task-end"
	KindMessage    Kind = "message"
	KindDial       Kind = "dial"
	KindDialed     Kind = "dialed"
	KindReset      Kind = "reset"
	KindClose      Kind = "close"
	KindInvalidate Kind = "invalidate"
	KindPush       Kind = "push"
)

// KindMemoryPressure is a memory-pressure fault's burst of other data
// (pressure.go).
const KindMemoryPressure Kind = "memory-pressure"

// Kinds is the table of the simulator's event kinds, in the order of the
// constants: the one place that says who records each and what its fields
// mean. Package model/history has the lock protocol's table.
var Kinds = []KindInfo{
	{KindCall, ByClient, "a task sent a request", "Task; Peer: the endpoint (a node or service; a group is resolved to the primary the client believes in); Args: the command"},
	{KindReply, ByClient, "a task received the reply to its request", "Task; Peer: who replied; Reply: the rendered reply"},
	{KindTimeout, ByClient, "a task stopped waiting for a reply: the outcome is unknown", "Task; Peer: the endpoint; Args: the command"},
	{KindRefused, ByClient, "a request reached a node that is down; it did not execute", "Task; Peer: the node; Reply: the error"},
	{KindLateReply, ByClient, "a reply arrived after its task stopped waiting; it is dropped", "Task; Peer; Reply"},
	{KindLost, ByClient | ByNode | ByService, "the network lost a message the actor sent", "Task (requests); Peer: the receiver; Note: why, and whether it was a request, a reply or a pub/sub message"},
	{KindExec, ByNode, "a node executed a command", "Peer: the client served; Args: the command; Reply: the rendered reply"},
	{KindExpire, ByNode, "a key ran out of time on a node's clock", "Key; Value: the value it had"},
	{KindKey, ByNode, "a key's value changed on a node", "Key; Value: the new value, \"\" when gone; Dur: its TTL, 0 for none; Note: the cause (a command name, expire, node crashed, restart, replication, full resync, clock change, evicted, expired before promotion)"},
	{KindReplApply, ByNode, "a replica applied the replication stream", "Peer: the primary; N: the offset applied; Note: \"full resync\" for a whole copy"},
	{KindPromote, ByNode, "the sentinel promoted this replica to primary of its group", "Key: the group; Peer: the primary it replaces; N: its replication offset"},
	{KindDemote, ByNode, "an old primary rejoined its group as a replica, losing its own writes", "Key: the group; Peer: the new primary"},
	{KindDiscover, ByClient, "a client learned a group's new primary", "Key: the group; Peer: the new primary"},
	{KindPause, ByClient, "the process froze (every task); its messages and timers queue", "Dur: the pause asked for (a later pause may extend it; resume says when it ended)"},
	{KindResume, ByClient, "a paused process resumed", ""},
	{KindCrash, ByClient, "the process stopped; its tasks are gone", "Dur: when it restarts, 0 for never"},
	{KindRestart, ByClient, "a crashed process started again with no memory", ""},
	{KindNodeCrash, ByNode, "a Redis node stopped; what it held is unreachable until it restarts", "Dur: how long it stays down, 0 for good"},
	{KindNodeUp, ByNode, "a Redis node restarted with what its persistence kept", "N: keys kept; Note: \"persistence <mode>\""},
	{KindNodeStall, ByNode, "a Redis node's one thread blocked (a slow command, a fork): it serves nothing, what reaches it waits, its clock runs on", "Dur: how long it stays blocked"},
	{KindNodeResume, ByNode, "a stalled node serves again: keys that expired meanwhile are gone, then what waited runs in arrival order", "N: the requests and replication messages that waited"},
	{KindStarve, ByClient, "one task of the process gets no CPU: its wake-ups and operations wait while its other tasks run on", "Task: the task starved; Dur: how long"},
	{KindStarveEnd, ByClient, "a starved task runs again: what it was held from runs now, in order", "Task; N: the wake-ups and operations that waited"},
	{KindMemoryPressure, ByNode, "another application wrote a burst of data to a node under maxmemory (the memory-pressure fault): what the node evicts for it follows as evict events", "N: the memory the burst adds (bytes, the documented formula); Dur: how long the pressure lasts, 0 for good: its keys' TTL, or 0 when they stay or when the fault capped the node (the cap stays); Note: \"maxmemory BYTES POLICY\", \", capped at its use\" when the fault set the limit, and how long its keys live"},
	{KindSlotMigrate, ByNode, "a cluster primary starts importing a hash slot from the slot's owner: legacy (the keys move now, the owner answers ASK for them) or atomic (the owner holds writes to the slot)", "Dur: until the hand-over; N: the slot; Key: the key that named it; Note: \"legacy from r1\" or \"atomic from r1\""},
	{KindSlotMoved, ByNode, "a hash slot was handed over: its importer owns it and the old owner answers MOVED", "N: the slot; Note: \"from r1\", and for an atomic migration the keys it moved and the writes that waited"},
	{KindClusterState, ByNode, "a cluster node's view changed: a primary marked FAIL (its replicas run for election), a primary on the minority side stopped serving keyed commands or serves again, a manual failover timed out", "Note: what changed"},
	{KindClusterFailover, ByNode, "an operator sent CLUSTER FAILOVER to this cluster replica (a promotion event follows when it takes over)", "Note: \"force\" for FORCE"},
	{KindPartition, ByFault, "a network partition started", "Dur: its length, 0 for good; Note: the sides, \"A | B\", \"(one-way)\" if only A->B is cut"},
	{KindHeal, ByFault, "a partition healed", "Note: the sides"},
	{KindNetDelay, ByFault, "a window of extra network delay started: messages sent within it arrive later", "Dur: the window's length, 0 for good; N: the extra delay in nanoseconds; Note: the link, from->to"},
	{KindNetDrop, ByFault, "a window of message loss started", "Dur: the window's length, 0 for good; N: how many messages it drops; Note: the link, from->to"},
	{KindClockJump, ByClient | ByNode, "a wall clock stepped (a client's monotonic clock does not jump)", "Dur: the step, negative backward"},
	{KindClockDrift, ByClient | ByNode, "a clock's rate changed", "N: the new rate in ppm"},
	{KindEvict, ByNode, "a node evicted a key: the evict fault (a key with a TTL, as a volatile-* policy) or maxmemory's policy", "Key; Note: the maxmemory-policy, \"\" for the evict fault; N: the memory used after it (maxmemory)"},
	{KindTaskEnd, ByClient, "a task returned", "Task; Note: its error, if any"},
	{KindMessage, ByClient, "a client received a pub/sub message", "Peer: the node; Key: the channel"},
	// The streams of external processes (real client libraries, package
	// realclient), recorded by the world as the client.
	{KindDial, ByClient, "an external client opened a stream (a TCP connection) to a node", "Peer: the node; N: the stream's id"},
	{KindDialed, ByClient, "an external client learned its stream is open", "Peer: the node; N: the stream's id"},
	{KindReset, ByClient, "an external client learned its stream broke (a lost message, a crashed node)", "Peer: the node; N: the stream's id; Note: why"},
	{KindClose, ByClient, "an external client closed a stream", "Peer: the node; N: the stream's id"},
	{KindInvalidate, ByNode, "a node sent a client-tracking invalidation (a RESP3 push) on a client's stream", "Peer: the client; Args: the keys; N: the stream's id; Note: \"flush\" for FLUSHALL's (no keys)"},
	{KindPush, ByClient, "an external client received a push (an invalidation) on a stream", "Peer: the node; N: the stream's id; Reply: the push"},
}
