package sim

import (
	"slices"
	"time"
)

// sentinel promotes a replica when a group's primary has been unreachable
// from it (crashed, or partitioned away from the endpoint "sentinel") for
// Config.Sentinel.DownAfter, and demotes an old primary once it is
// reachable again. Clients learn of a promotion by a message from the
// sentinel, DiscoveryDelay later than the network would deliver it.
type sentinel struct {
	w         *World
	downSince map[string]time.Duration // group -> when its primary became unreachable
	down      map[string]bool
}

func newSentinel(w *World) *sentinel {
	return &sentinel{w: w, downSince: map[string]time.Duration{}, down: map[string]bool{}}
}

// reachable reports whether the sentinel and node can talk both ways now.
func (s *sentinel) reachable(n *node) bool {
	if !n.up || n.stalled {
		return false // a stalled node answers no PING
	}
	b1, _ := s.w.net.Blocked(SentinelName, n.name, s.w.now)
	b2, _ := s.w.net.Blocked(n.name, SentinelName, s.w.now)
	return !b1 && !b2
}

// reevaluate is called whenever reachability may have changed: a node
// crashed or restarted, a partition started or healed.
func (s *sentinel) reevaluate() {
	if s.w.cluster != nil {
		s.w.cluster.reevaluate() // the same moments drive a cluster's failover
	}
	if !s.w.cfg.Sentinel.Enabled {
		return
	}
	for _, gc := range s.w.cfg.Groups {
		g := s.w.groups[gc.Name]
		if len(g.members) < 2 {
			continue
		}
		p := s.w.nodes[g.primary]
		switch {
		case s.reachable(p):
			s.down[g.name] = false
		case !s.down[g.name]:
			s.down[g.name] = true
			since := s.w.now
			s.downSince[g.name] = since
			s.w.schedule(since+s.w.cfg.Sentinel.DownAfter, func() { s.check(g, since) })
		case s.w.now >= s.downSince[g.name]+s.w.cfg.Sentinel.DownAfter:
			// Down long enough, but no replica could be promoted when the
			// timer fired: try again now that reachability changed.
			s.check(g, s.downSince[g.name])
			p = s.w.nodes[g.primary]
		}
		if !s.reachable(p) {
			continue
		}
		for _, m := range g.members {
			n := s.w.nodes[m]
			if m == g.primary || !s.reachable(n) {
				continue
			}
			switch {
			case n.role == rolePrimary:
				// An old primary that is reachable again rejoins as a replica.
				n.demote(p)
			case n.role == roleReplica && n.following != p.name:
				// A replica that missed the failover follows the new primary.
				n.following = p.name
				n.requestSync(p)
			}
		}
	}
}

// check promotes a replica if the primary stayed unreachable since `since`.
func (s *sentinel) check(g *group, since time.Duration) {
	if !s.down[g.name] || s.downSince[g.name] != since {
		return
	}
	var cands []*node
	for _, m := range g.members {
		n := s.w.nodes[m]
		if m != g.primary && n.role == roleReplica && n.cfg.Priority > 0 && s.reachable(n) {
			cands = append(cands, n)
		}
	}
	if len(cands) == 0 {
		return // reevaluate tries again at the next reachability change
	}
	slices.SortStableFunc(cands, func(a, b *node) int {
		if a.cfg.Priority != b.cfg.Priority {
			return a.cfg.Priority - b.cfg.Priority
		}
		if a.applied != b.applied {
			if a.applied > b.applied {
				return -1
			}
			return 1
		}
		return 0
	})
	best := cands[0]
	old := g.primary
	g.primary = best.name
	s.down[g.name] = false
	best.promote(old)
	for _, r := range cands[1:] {
		r.following = best.name
		r.requestSync(best)
	}
	// The old primary keeps serving its side until it is reachable again,
	// when reevaluate demotes it.
	s.announce(g)
	s.w.publishSwitch(g, old) // to Sentinel clients (sentinel_endpoint.go)
	s.reevaluate()
}

// announce tells every client the group's new primary.
func (s *sentinel) announce(g *group) {
	w := s.w
	primary := g.primary
	for _, p := range w.procList {
		p := p
		f := w.net.Send(SentinelName, p.name, w.now, true)
		if !f.Delivered {
			continue
		}
		inc := p.incarnation
		w.schedule(f.At+w.cfg.Sentinel.DiscoveryDelay, func() {
			if p.dead || p.incarnation != inc || p.view[g.name] == primary {
				return
			}
			p.view[g.name] = primary
			w.record(&Event{Actor: p.name, Kind: KindDiscover, Local: p.clock.Mono(w.now), Peer: primary, Key: g.name})
		})
	}
}
