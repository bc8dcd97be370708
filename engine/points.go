package engine

import (
	"slices"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// A Point is a moment of a run where a fault can take hold: one or more
// consecutive events of one actor, recorded in one scheduler step with
// nothing between them that the rest of the world could see. A fault that
// starts at any of them leads to the same world, so exhaustive mode tries
// each fault once per point, not once per event (the state dedup).
//
// The boundaries: a client's step ends at its next call into the world;
// its KindCall event starts a point of its own, because a pause triggered
// there takes hold after the request left (it holds the reply), while a
// pause triggered earlier in the step holds the request back. A node's
// KindExec starts a point too: before it the command has not run.
type Point struct {
	// Actor is the client or node whose events these are.
	Actor string
	// Client reports whether Actor is a client (else a node).
	Client bool
	// At is the point's true time.
	At time.Duration
	// First and Rep are history positions: the point's first event, and
	// the one that names it (its trigger): the last protocol event
	// (acquired, write, release-send...) if any, else the last event.
	First, Rep int
	// Kind is Rep's kind.
	Kind sim.Kind
	// Trigger fires at Rep in this run and in every run that shares its
	// prefix.
	Trigger sim.Trigger
	// Call is the request a KindCall point sends: its endpoint and
	// command; Reply is where the reply leaves the endpoint (the history
	// position of the endpoint's event serving it), -1 if it never does.
	Call  *sim.Event
	Reply int
	// Peers are the nodes the point's events talk to (a client's) or the
	// node itself: where node faults at this point aim.
	Peers []string
	// Cmd is the command word of the point's request (a client's call)
	// or of the command it executed (a node's exec), else "".
	Cmd string
	// Events counts the events the point stands for.
	Events int
}

// Name renders the point as "A acquired #1 at 0.002949s".
func (p Point) Name() string {
	return p.Trigger.String() + " at " + sim.FormatTime(p.At)
}

// roles says which actors are clients and which are nodes.
type roles struct {
	// Roster names the clients, nodes and groups (the spec's).
	model.Roster
	// sentinel is whether Sentinel fails groups over.
	sentinel bool
	// services are the other endpoints (the resource).
	services []string
}

func (r roles) isClient(a string) bool { return slices.Contains(r.Clients, a) }
func (r roles) isNode(a string) bool   { return slices.Contains(r.Nodes, a) }

// everyone lists every endpoint and client: the far side of an isolation.
func (r roles) everyone() []string {
	return slices.Concat(r.Clients, r.Nodes, r.services)
}

// pointsOf splits history h into points. steps[i] is the scheduler step
// that recorded h[i] (sim.World.Events as observed). Only events after
// position from are points (from -1: all); events of faults themselves
// (history.IsFault, but failovers count) are not.
func pointsOf(h sim.History, steps []int, from int, r roles) []Point {
	var pts []Point
	counts := map[[2]string]int{} // (actor, kind) -> events so far, for triggers
	cur := -1                     // index in pts of the point being grown, or -1
	for i, e := range h {
		key := [2]string{e.Actor, string(e.Kind)}
		counts[key]++
		client, node := r.isClient(e.Actor), r.isNode(e.Actor)
		if !client && !node || i <= from || !isPointKind(e.Kind) {
			cur = -1
			continue
		}
		fresh := cur < 0 || pts[cur].Actor != e.Actor || steps[pts[cur].First] != steps[i] ||
			e.Kind == sim.KindCall || e.Kind == sim.KindExec || pts[cur].Call != nil
		if fresh {
			pts = append(pts, Point{Actor: e.Actor, Client: client, At: e.At, First: i, Reply: -1})
			cur = len(pts) - 1
		}
		p := &pts[cur]
		p.Events++
		if isProtocol(e.Kind) || p.Events == 1 || !isProtocol(h[p.Rep].Kind) {
			p.Rep, p.Kind = i, e.Kind
			p.Trigger = sim.Trigger{Actor: e.Actor, Kind: e.Kind, Nth: counts[key]}
		}
		if e.Kind == sim.KindCall {
			c := e
			p.Call = &c
			p.Reply = replyOf(h, i)
		}
		if e.Kind == sim.KindCall || e.Kind == sim.KindExec {
			p.Cmd = command(e.Args)
		}
		if client && r.isNode(e.Peer) && !slices.Contains(p.Peers, e.Peer) {
			p.Peers = append(p.Peers, e.Peer)
		}
		if node && len(p.Peers) == 0 {
			p.Peers = []string{e.Actor}
		}
	}
	return pts
}

// isPointKind: every event a client or node records is a moment a fault
// can take hold, except the marks of faults themselves (a pause, a
// crash, a heal). A failover's promotion and demotion are moments too.
func isPointKind(k sim.Kind) bool {
	return !history.IsFault(k) || k == sim.KindPromote || k == sim.KindDemote
}

// isProtocol reports whether k is one of the lock protocol's kinds
// (package history's table), which name a point better than traffic.
func isProtocol(k sim.Kind) bool {
	return slices.ContainsFunc(history.Kinds, func(i sim.KindInfo) bool { return i.Kind == k })
}

// replyOf returns the position of the event at which the endpoint of the
// call at position i served it (a node's exec, the resource's read or
// write), or -1. The reply leaves the endpoint then.
func replyOf(h sim.History, i int) int {
	c := h[i]
	for j := i + 1; j < len(h); j++ {
		e := h[j]
		if e.Actor == c.Peer && e.Peer == c.Actor && (e.Kind == sim.KindExec || e.Kind == history.KindResRead || e.Kind == history.KindResWrite) {
			return j
		}
		if e.Actor == c.Actor && e.Task == c.Task && (e.Kind == sim.KindReply || e.Kind == sim.KindTimeout || e.Kind == sim.KindRefused || e.Kind == sim.KindLost) {
			return -1 // the call ended without the endpoint serving it
		}
	}
	return -1
}
