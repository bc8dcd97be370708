package model

import (
	"slices"
	"time"

	"locksim/sim"
)

// isFaultKind reports whether an event kind starts, ends or repairs a
// fault. The last such event in a history is when the faults healed; a
// fault that never ends (a crash with no restart) counts from its start.
// Promotion and demotion are the deployment repairing itself after a node
// fault (Sentinel failover), so they count too: a failover that takes
// down-after is not a liveness failure of the lock.
func isFaultKind(kind string) bool {
	switch kind {
	case sim.KindPause, sim.KindResume,
		sim.KindCrash, sim.KindRestart,
		sim.KindNodeCrash, sim.KindNodeUp,
		sim.KindPartition, sim.KindHeal,
		sim.KindNetDelay, sim.KindNetDrop,
		sim.KindClockJump, sim.KindClockDrift,
		sim.KindEvict,
		sim.KindPromote, sim.KindDemote:
		return true
	}
	return false
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
	for pos := len(ix.h) - 1; pos >= 0; pos-- {
		if isFaultKind(ix.h[pos].Kind) {
			healPos = pos
			break
		}
	}
	heal := time.Duration(0)
	if healPos >= 0 {
		heal = ix.h[healPos].At
	}
	// Sections open at their acquired event (ix.sections is in that
	// order) and close at endPos: walk both with cursors.
	closes := make([]critSection, 0, len(ix.sections))
	for _, s := range ix.sections {
		if s.endPos >= 0 {
			closes = append(closes, s)
		}
	}
	slices.SortStableFunc(closes, func(a, b critSection) int { return a.endPos - b.endPos })
	nextOpen, nextClose := 0, 0
	trying := map[string]int{} // client -> pos of its unanswered acquire-start
	holding := map[string]bool{}
	var vs []Violation
	var g *livenessGap
	suppressed := false // a gap was reported: wait for the next acquire
	for _, pos := range ix.marked {
		e := ix.h[pos]
		if g != nil && e.At > g.from+bound {
			vs = append(vs, ix.livenessViolation(*g, healPos, bound))
			g, suppressed = nil, true
		}
		for ; nextClose < len(closes) && closes[nextClose].endPos == pos; nextClose++ {
			delete(holding, closes[nextClose].client)
		}
		for ; nextOpen < len(ix.sections) && ix.sections[nextOpen].acq == pos; nextOpen++ {
			holding[e.Actor] = true
		}
		ix.updateTrying(trying, pos)
		if e.Kind == KindAcquired {
			g, suppressed = nil, false
		}
		wanted := len(trying) > 0 && len(holding) == 0
		switch {
		case pos <= healPos:
			// Before the heal only the state at the heal matters.
			g = nil
			if wanted {
				g = &livenessGap{from: heal, pos: healPos}
			}
		case g == nil && !suppressed && wanted:
			g = &livenessGap{from: e.At, pos: pos}
		}
	}
	if g != nil && ix.end >= g.from+bound {
		vs = append(vs, ix.livenessViolation(*g, healPos, bound))
	}
	return vs
}

// updateTrying applies the event at pos to trying (client -> pos of its
// unanswered acquire-start).
func (ix *historyIndex) updateTrying(trying map[string]int, pos int) {
	e := ix.h[pos]
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
}

// tryingAfter returns who was trying to acquire once the event at pos had
// happened (replayed only when a gap is reported, so the scan above
// copies nothing).
func (ix *historyIndex) tryingAfter(pos int) map[string]int {
	trying := map[string]int{}
	for p := 0; p <= pos; p++ {
		ix.updateTrying(trying, p)
	}
	return trying
}

// livenessGap is a stretch with the lock wanted and nobody holding it.
type livenessGap struct {
	from time.Duration
	pos  int // the event at which the gap began (the heal, or later)
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
	trying := ix.tryingAfter(g.pos)
	for _, c := range sortedClientKeys(trying) {
		p := trying[c]
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
