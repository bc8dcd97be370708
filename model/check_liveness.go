package model

import (
	"maps"
	"time"

	"locksim/sim"
)

// faultKinds are the event kinds that start, end or repair a fault. The
// last of them in a history is when the faults healed; a fault that never
// ends (a crash with no restart) counts from its start. Promotion and
// demotion are the deployment repairing itself after a node fault
// (Sentinel failover), so they count too: a failover that takes
// down-after is not a liveness failure of the lock.
var faultKinds = map[string]bool{
	sim.KindPause: true, sim.KindResume: true,
	sim.KindCrash: true, sim.KindRestart: true,
	sim.KindNodeCrash: true, sim.KindNodeUp: true,
	sim.KindPartition: true, sim.KindHeal: true,
	sim.KindNetDelay: true, sim.KindNetDrop: true,
	sim.KindClockJump: true, sim.KindClockDrift: true,
	sim.KindEvict:   true,
	sim.KindPromote: true, sim.KindDemote: true,
}

// checkLiveness reports when, after the last fault healed, the lock was
// wanted and free-or-orphaned for longer than bound with no client
// acquiring it (InvLiveness).
//
// A gap starts at the first instant at or after the heal when some client
// is trying to acquire (an acquire-start not yet answered by acquired,
// acquire-failed, a crash or the end of its task) and no live client is
// in a critical section (a live holder is not a liveness failure; its
// release starts the clock). The gap ends at the next acquired event. A
// gap longer than bound is a violation over [start, start+bound]; when the
// history ends before start+bound there is no verdict. Giving up does not
// end a gap: a client that wanted a free lock and never got it is the
// failure (the setnx-expire deadlock: A crashes between SETNX and
// PEXPIRE, the key never expires, B keeps failing).
func checkLiveness(ix *historyIndex, bound time.Duration) []Violation {
	healPos := -1
	for pos, e := range ix.h {
		if faultKinds[e.Kind] {
			healPos = pos
		}
	}
	heal := time.Duration(0)
	if healPos >= 0 {
		heal = ix.h[healPos].At
	}
	opens := map[int]bool{}
	closes := map[int][]string{}
	for _, s := range ix.sections {
		opens[s.acq] = true
		if s.endPos >= 0 {
			closes[s.endPos] = append(closes[s.endPos], s.client)
		}
	}
	trying := map[string]int{} // client -> pos of its unanswered acquire-start
	holding := map[string]bool{}
	var vs []Violation
	var g *livenessGap
	suppressed := false // a gap was reported: wait for the next acquire
	for pos, e := range ix.h {
		if g != nil && e.At > g.from+bound {
			vs = append(vs, ix.livenessViolation(*g, healPos, bound))
			g, suppressed = nil, true
		}
		for _, c := range closes[pos] {
			delete(holding, c)
		}
		if opens[pos] {
			holding[e.Actor] = true
		}
		switch e.Kind {
		case KindAcquireStart:
			trying[e.Actor] = pos
		case KindAcquired, KindAcquireFailed, sim.KindCrash:
			delete(trying, e.Actor)
		case sim.KindTaskEnd:
			if p, ok := trying[e.Actor]; ok && sameTaskName(ix.h[p].Task, e.Task) {
				delete(trying, e.Actor)
			}
		}
		if e.Kind == KindAcquired {
			g, suppressed = nil, false
		}
		wanted := len(trying) > 0 && len(holding) == 0
		switch {
		case pos <= healPos:
			// Before the heal only the state at the heal matters.
			g = nil
			if wanted {
				g = &livenessGap{from: heal, pos: healPos, trying: maps.Clone(trying)}
			}
		case g == nil && !suppressed && wanted:
			g = &livenessGap{from: e.At, pos: pos, trying: maps.Clone(trying)}
		}
	}
	if g != nil && ix.end >= g.from+bound {
		vs = append(vs, ix.livenessViolation(*g, healPos, bound))
	}
	return vs
}

// livenessGap is a stretch with the lock wanted and nobody holding it.
type livenessGap struct {
	from   time.Duration
	pos    int            // the event at which the gap began (the heal, or later)
	trying map[string]int // clients trying then -> their acquire-start
}

// livenessViolation explains a gap: the last fault, who was trying, and
// what the lock key held on each node when the gap began.
func (ix *historyIndex) livenessViolation(g livenessGap, healPos int, bound time.Duration) Violation {
	var facts []explFact
	var clients []string
	cited := []int{}
	if healPos >= 0 {
		e := ix.h[healPos]
		who := ""
		if e.Actor != "fault" {
			who = e.Actor + " "
		}
		note := ""
		if e.Note != "" {
			note = " (" + e.Note + ")"
		}
		facts = append(facts, explFact{pos: healPos, text: "the last fault event was " + who + e.Kind + note + " at " + sim.FormatTime(e.At)})
		cited = append(cited, healPos)
	} else {
		facts = append(facts, explFact{pos: -1, text: "there were no faults"})
	}
	keys := map[string]bool{}
	for _, c := range sortedClientKeys(g.trying) {
		p := g.trying[c]
		facts = append(facts, explFact{pos: p, text: c + " was trying to acquire since " + sim.FormatTime(ix.h[p].At)})
		cited = append(cited, p)
		clients = append(clients, c)
		keys[ix.h[p].Key] = true
	}
	held := false
	for _, k := range sortedNodeKeys(ix.keys) {
		if !keys[k.key] {
			continue
		}
		ch := ix.keys[k]
		i := lastChangeBefore(ch, g.pos+1)
		if i < 0 || ch[i].value == "" {
			continue
		}
		held = true
		c := ch[i]
		e := ix.h[c.pos]
		owner := ix.owner[c.value]
		what := "the value " + c.value
		if owner != "" {
			what = owner + "'s value " + c.value
			clients = append(clients, owner)
		}
		ttl := "no TTL"
		if e.Dur > 0 {
			ttl = "TTL " + sim.FormatTime(e.Dur)
		}
		facts = append(facts, explFact{pos: c.pos, text: "the key " + k.key + " on " + k.node + " held " + what +
			" (set at " + sim.FormatTime(e.At) + " with " + ttl + ")"})
		cited = append(cited, c.pos)
	}
	if !held {
		facts = append(facts, explFact{pos: g.pos, text: "no node held the key"})
	}
	return Violation{
		Invariant: InvLiveness,
		Clients:   distinctClients(clients...),
		From:      g.from,
		To:        g.from + bound,
		Events:    ix.seqs(cited...),
		Explanation: "no client acquired the lock in the " + sim.FormatTime(bound) + " after " + sim.FormatTime(g.from) +
			", when it was wanted and nobody held it: " + renderFacts(facts),
	}
}
