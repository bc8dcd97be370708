package sim

import (
	"slices"
	"strings"
	"time"

	"locksim/sim/resp"
)

// Cluster failover (Redis Cluster's own, no sentinel), as the cluster
// specification describes it, on the reachability the world knows (a
// node is reachable from another when both are up, neither is stalled
// and the network passes both ways; the cluster bus's gossip is not
// modelled message by message):
//
//   - A shard's primary fails when a majority of the cluster's primaries
//     are up and cannot reach it for ClusterConfig.NodeTimeout (their
//     PFAIL agreed into FAIL). A cluster of fewer than three shards thus
//     never fails over automatically, as in Redis.
//   - Its replicas then run for election: a replica that a majority of the
//     primaries can reach (their votes) starts after 500ms + a random
//     0-500ms + its rank x 1s, its rank being its place by replication
//     offset (the most advanced first). The first that still qualifies
//     when its delay ends wins: the cluster's epoch grows, it is promoted
//     with what it had applied (asynchronous replication loses the rest),
//     the other replicas resynchronise from it, and MOVED replies name it.
//   - A primary that cannot reach a majority of the primaries for
//     NodeTimeout stops serving keyed commands (CLUSTERDOWN The cluster is
//     down), as a minority-side primary does; it serves again once it
//     reaches a majority, and is demoted then if its shard failed over.
//   - CLUSTER FAILOVER on a replica promotes it by hand: by default once it
//     has applied all its primary sent (within 5s), with FORCE or TAKEOVER
//     at once; the old primary, if reachable, is demoted at once.

// DefaultNodeTimeout is Redis's cluster-node-timeout default.
const DefaultNodeTimeout = 15 * time.Second

// clusterHealth is the failover state of a cluster.
type clusterHealth struct {
	failingSince  map[int]time.Duration // shard -> since when a majority cannot reach its primary
	failed        map[int]bool          // shard -> its primary is FAIL, an election runs
	minoritySince map[string]time.Duration
	down          map[string]bool // primaries in cluster state fail (minority side)
}

// reach reports whether nodes a and b can talk both ways now.
func (cl *cluster) reach(a, b *node) bool {
	if !a.up || !b.up || a.stalled || b.stalled {
		return false
	}
	x, _ := cl.w.net.Blocked(a.name, b.name, cl.w.now)
	y, _ := cl.w.net.Blocked(b.name, a.name, cl.w.now)
	return !x && !y
}

// primaries returns the shards' current primaries.
func (cl *cluster) primaries() []*node {
	ps := make([]*node, len(cl.groups))
	for i, g := range cl.groups {
		ps[i] = cl.w.nodes[g.primary]
	}
	return ps
}

// quorum is a majority of the shards' primaries.
func (cl *cluster) quorum() int { return len(cl.groups)/2 + 1 }

// reachedBy counts the primaries other than n that reach n.
func (cl *cluster) reachedBy(n *node) int {
	c := 0
	for _, p := range cl.primaries() {
		if p != n && cl.reach(p, n) {
			c++
		}
	}
	return c
}

// missedBy counts the primaries other than n that are up and cannot reach
// n: the PFAIL reports that agree into FAIL (a crashed primary reports
// nothing).
func (cl *cluster) missedBy(n *node) int {
	c := 0
	for _, p := range cl.primaries() {
		if p != n && p.up && !cl.reach(p, n) {
			c++
		}
	}
	return c
}

// reevaluate is called whenever reachability may have changed (the hooks
// that call the sentinel's): it starts and stops the timers of failure
// detection and of the minority side.
func (cl *cluster) reevaluate() {
	w := cl.w
	h := &cl.health
	for gi, g := range cl.groups {
		p := w.nodes[g.primary]
		unreachable := cl.missedBy(p) >= cl.quorum()
		switch {
		case !unreachable:
			delete(h.failingSince, gi)
		case !h.failed[gi]:
			if _, ok := h.failingSince[gi]; !ok {
				since := w.now
				h.failingSince[gi] = since
				w.schedule(since+cl.nodeTimeout, func() { cl.markFailed(gi, since) })
			}
		}
	}
	// Primaries (current or deposed) that cannot reach a majority.
	for _, n := range w.nodeList {
		if n.group == nil || n.role != rolePrimary {
			continue
		}
		minority := len(cl.groups) > 1 && cl.reachedBy(n)+1 < cl.quorum()
		switch {
		case !minority:
			delete(h.minoritySince, n.name)
			if h.down[n.name] {
				delete(h.down, n.name)
				w.record(&Event{Actor: n.name, Kind: KindClusterState, Local: n.local(), Note: "ok: reaches a majority of primaries"})
			}
			if g := n.group; g.primary != n.name {
				n.demote(w.nodes[g.primary]) // its shard failed over meanwhile
			}
		case n.up:
			if _, ok := h.minoritySince[n.name]; !ok {
				since := w.now
				h.minoritySince[n.name] = since
				w.schedule(since+cl.nodeTimeout, func() { cl.markDown(n, since) })
			}
		}
	}
}

// markFailed marks shard gi's primary FAIL if a majority has not reached it
// since `since`, and starts its replicas' election.
func (cl *cluster) markFailed(gi int, since time.Duration) {
	h := &cl.health
	if s, ok := h.failingSince[gi]; !ok || s != since || h.failed[gi] {
		return
	}
	h.failed[gi] = true
	g := cl.groups[gi]
	cl.w.record(&Event{Actor: g.primary, Kind: KindClusterState, Local: cl.w.nodes[g.primary].local(), Note: "FAIL: a majority of primaries has not reached it for the node timeout"})
	cl.election(gi)
}

// election schedules the replicas of shard gi that could win.
func (cl *cluster) election(gi int) {
	w := cl.w
	g := cl.groups[gi]
	var cands []*node
	for _, m := range g.members {
		n := w.nodes[m]
		if m != g.primary && n.role == roleReplica && n.cfg.Priority > 0 && n.up {
			cands = append(cands, n)
		}
	}
	slices.SortStableFunc(cands, func(a, b *node) int { return int(b.applied - a.applied) })
	rng := w.rng("cluster/election/" + g.name)
	for rank, n := range cands {
		delay := 500*time.Millisecond + time.Duration(rng.Int64N(int64(500*time.Millisecond))) + time.Duration(rank)*time.Second
		w.schedule(w.now+delay, func() { cl.tryPromote(gi, n) })
	}
}

// tryPromote promotes replica n of shard gi if the shard is still failed
// and a majority of primaries votes for it (reaches it).
func (cl *cluster) tryPromote(gi int, n *node) {
	h := &cl.health
	g := cl.groups[gi]
	if !h.failed[gi] || n.role != roleReplica || !n.up || n.stalled || n.group != g {
		return
	}
	if cl.reachedBy(n) < cl.quorum() {
		return // no majority of votes; a later reachability change does not restart it
	}
	cl.failover(gi, n)
}

// failover makes n the primary of shard gi.
func (cl *cluster) failover(gi int, n *node) {
	w := cl.w
	h := &cl.health
	g := cl.groups[gi]
	old := g.primary
	cl.epoch++
	g.primary = n.name
	delete(h.failed, gi)
	delete(h.failingSince, gi)
	n.promote(old)
	for _, m := range g.members {
		r := w.nodes[m]
		if r != n && r.role == roleReplica {
			r.following = n.name
			r.requestSync(n)
		}
	}
	if o := w.nodes[old]; o.role == rolePrimary && cl.reach(o, n) {
		o.demote(n)
	}
	cl.reevaluate()
}

// markDown puts primary n in cluster state fail if it has not reached a
// majority since `since`.
func (cl *cluster) markDown(n *node, since time.Duration) {
	h := &cl.health
	if s, ok := h.minoritySince[n.name]; !ok || s != since || !n.up || n.role != rolePrimary {
		return
	}
	h.down[n.name] = true
	cl.w.record(&Event{Actor: n.name, Kind: KindClusterState, Local: n.local(), Note: "fail: cannot reach a majority of primaries; keyed commands get CLUSTERDOWN"})
}

func (w *World) applyClusterFailover(i int, f Fault, _ time.Duration) {
	n := w.nodes[f.Target]
	if w.cluster == nil || n.group == nil || n.role != roleReplica || !n.up || n.stalled {
		w.faultOut[i] = FaultNoTarget
		return
	}
	args := []string{"CLUSTER", "FAILOVER"}
	note := ""
	if f.Force {
		args, note = append(args, "FORCE"), "force"
	}
	w.record(&Event{Actor: n.name, Kind: KindClusterFailover, Local: n.local(), Note: note})
	if w.cluster.manualFailover(n, args).IsError() {
		w.faultOut[i] = FaultNoTarget // its primary is unreachable: only FORCE would do
	}
}

// manualFailover serves CLUSTER FAILOVER [FORCE|TAKEOVER] on node n.
func (cl *cluster) manualFailover(n *node, args []string) resp.Reply {
	mode := ""
	if len(args) == 3 {
		mode = strings.ToUpper(args[2])
	}
	if len(args) > 3 || (mode != "" && mode != "FORCE" && mode != "TAKEOVER") {
		return resp.ErrorReply("ERR syntax error")
	}
	if n.role != roleReplica || n.group == nil {
		return resp.ErrorReply("ERR You should send CLUSTER FAILOVER to a replica")
	}
	gi := slices.Index(cl.groups, n.group)
	if mode != "" {
		cl.failover(gi, n)
		return resp.OK
	}
	p := cl.w.nodes[n.following]
	if !cl.reach(n, p) {
		return resp.ErrorReply("ERR Master is down or failed, please use CLUSTER FAILOVER FORCE")
	}
	target, deadline := p.offset, cl.w.now+5*time.Second
	var check func()
	check = func() {
		switch {
		case n.role != roleReplica || n.group.primary != p.name:
		case n.applied >= target:
			cl.failover(gi, n)
		case cl.w.now < deadline:
			cl.w.schedule(cl.w.now+time.Millisecond, check)
		default:
			cl.w.record(&Event{Actor: n.name, Kind: KindClusterState, Local: n.local(), Note: "manual failover timed out"})
		}
	}
	cl.w.schedule(cl.w.now, check)
	return resp.OK
}
