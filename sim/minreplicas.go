package sim

import "time"

// Redis's min-replicas-to-write and min-replicas-max-lag (NodeConfig): a
// primary refuses every write command, from a client, a script or a MULTI,
// with NOREPLICAS while fewer than MinReplicasToWrite of its replicas are
// "good", that is, acknowledged within the last MinReplicasMaxLag. A
// primary cut off from its replicas thus stops acknowledging writes
// MinReplicasMaxLag after their last acknowledgement, which bounds what a
// failover loses (the Jepsen Sentinel test's minority primary) without
// closing the window.
//
// Acknowledgements are the simulator's REPLCONF ACKs (sendAck): after each
// applied entry and full resync, as always, and, when some node sets
// MinReplicasToWrite, also every ackInterval from every replica that is up
// and not resynchronising, as Redis replicas send them every second. They
// travel over the reliable replica -> primary link, so a partition holds
// them until it heals and a delay fault delays them. The primary stamps an
// acknowledgement with its own wall clock when it arrives, as Redis does
// with server.unixtime. Differences from Redis: the lag is compared in
// exact time, where Redis compares whole seconds and refreshes its count of
// good replicas once a second, so Redis starts refusing up to about two
// seconds later than the simulator; heartbeats run on true time, every
// replica at the same instants; a MULTI whose writes were queued while the
// primary had good replicas runs its writes one by one at EXEC, each refused
// if it has none by then, where Redis refuses the whole EXEC.

// msgNoReplicas is Redis's shared.noreplicaserr.
const msgNoReplicas = "NOREPLICAS Not enough good replicas to write."

// ackInterval is how often a replica acknowledges with no writes to apply
// (Redis's replicationCron sends REPLCONF ACK once a second).
const ackInterval = time.Second

// heartbeats reports whether any node counts good replicas, which is when
// replicas send their periodic acknowledgements. Without it a run's events
// stay exactly as they were before the setting existed.
func (w *World) heartbeats() bool {
	for _, n := range w.nodeList {
		if n.cfg.MinReplicasToWrite > 0 {
			return true
		}
	}
	return false
}

// startHeartbeats schedules every node's first heartbeat; a node that is
// not a replica when its heartbeat comes sends nothing, so a primary that is
// later demoted starts acknowledging without being rescheduled.
func (w *World) startHeartbeats() {
	if !w.heartbeats() {
		return
	}
	for _, n := range w.nodeList {
		w.schedule(w.now+ackInterval, n.heartbeat)
	}
}

// heartbeat sends REPLCONF ACK to the primary the replica follows, when it
// is up and online (not waiting for a full resync), and schedules the next.
func (n *node) heartbeat() {
	if n.up && n.role == roleReplica && n.syncing == "" {
		if p := n.w.nodes[n.following]; p != nil {
			n.sendAck(p)
		}
	}
	n.w.schedule(n.w.now+ackInterval, n.heartbeat)
}

// goodReplicas counts the current replicas whose last acknowledgement
// arrived at most MinReplicasMaxLag ago on the primary's wall clock.
func (n *node) goodReplicas() int {
	now := n.local()
	good := 0
	for _, r := range n.replicas() {
		if at, ok := n.ackAt[r.name]; ok && now-at <= n.cfg.MinReplicasMaxLag {
			good++
		}
	}
	return good
}

// refusesWrites reports whether the node refuses writes for want of good
// replicas. A replica refuses them anyway (READONLY).
func (n *node) refusesWrites() bool {
	return n.cfg.MinReplicasToWrite > 0 && n.role != roleReplica && n.goodReplicas() < n.cfg.MinReplicasToWrite
}

// connectReplicas stamps every replica of a primary as acknowledged now:
// at the start of a run its replicas are connected and in sync.
func (n *node) connectReplicas() {
	for _, r := range n.replicas() {
		n.ackAt[r.name] = n.local()
	}
}
