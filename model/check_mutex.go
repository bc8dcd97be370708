package model

import (
	"strconv"
	"strings"
	"time"

	"locksim/sim"
)

// checkMutex reports every pair of critical sections of different clients
// that overlap in true time (InvMutex). A section runs from the client's
// acquired event (hold count 1) to the release that leaves count 0, or to
// its crash, the end of its task or the end of the history; sections are
// half-open, so a release and an acquire at the same instant do not
// overlap.
func checkMutex(ix *historyIndex) []Violation {
	var vs []Violation
	ss := ix.sections
	for i := range ss {
		for j := i + 1; j < len(ss); j++ {
			a, b := ss[i], ss[j]
			if b.from >= a.to {
				break // sections are ordered by start: no later one overlaps a
			}
			if a.client == b.client {
				continue
			}
			to := min(a.to, b.to)
			if to <= b.from {
				continue
			}
			vs = append(vs, ix.mutexViolation(a, b, to))
		}
	}
	return vs
}

// mutexViolation explains the overlap of a and b (a started first) from
// b's acquire to `to`.
func (ix *historyIndex) mutexViolation(a, b critSection, to time.Duration) Violation {
	from := b.from
	ea, eb := ix.h[a.acq], ix.h[b.acq]
	cited := []int{a.acq, b.acq}
	facts := []explFact{
		{pos: a.acq, text: a.client + " acquired at " + sim.FormatTime(a.from) + grantedBy(ix, a.acq)},
		{pos: b.acq, text: b.client + " acquired at " + sim.FormatTime(b.from) + grantedBy(ix, b.acq)},
	}
	// Why b could acquire while a held, or why either held a lease that
	// was already gone: the loss of each one's value on its granting
	// nodes before the overlap began.
	lost := map[string]bool{}
	usedPause := map[int]bool{}
	for _, s := range []critSection{a, b} {
		e := ix.h[s.acq]
		for _, n := range ix.grantors(s.acq) {
			if holdsLease(ix.valueAt(n, e.Key, b.acq), e.Value) {
				continue
			}
			i := ix.lastLoss(n, e.Key, e.Value, b.acq)
			if i < 0 {
				continue
			}
			f, c := ix.lossFact(n, e.Key, e.Value, i)
			facts = append(facts, f)
			cited = append(cited, c...)
			lost[s.client] = true
			if p, ok := ix.pausedAt(s.client, ix.h[ix.keys[keyOnNode{n, e.Key}][i].pos].At); ok {
				usedPause[p.pos] = true
			}
		}
	}
	// Partitions that started while a held and b waited.
	for p := a.acq + 1; p < b.acq; p++ {
		if x := ix.h[p]; x.Kind == sim.KindPartition {
			facts = append(facts, explFact{pos: p, text: "a partition " + x.Note + " started at " + sim.FormatTime(x.At)})
			cited = append(cited, p)
		}
	}
	// A promotion or a restart that let a node grant b's lease.
	for _, n := range ix.grantors(b.acq) {
		for p := b.acq - 1; p > a.acq; p-- {
			x := ix.h[p]
			if x.Actor != n {
				continue
			}
			if x.Kind == sim.KindPromote {
				facts = append(facts, explFact{pos: p, text: n + " was promoted to primary at " + sim.FormatTime(x.At)})
				cited = append(cited, p)
				break
			}
			if x.Kind == sim.KindNodeUp {
				facts = append(facts, explFact{pos: p, text: n + " restarted at " + sim.FormatTime(x.At) + " with " + strconv.FormatInt(x.N, 10) + " keys (" + x.Note + ")"})
				cited = append(cited, p)
				break
			}
		}
	}
	// Other pauses of either client between a's acquire and the end of
	// the overlap.
	for _, s := range []critSection{a, b} {
		for _, p := range ix.pauses[s.client] {
			if usedPause[p.pos] || p.to <= a.from || p.from >= to {
				continue
			}
			facts = append(facts, ix.pauseFact(s.client, p))
			cited = append(cited, p.pos)
		}
	}
	// Who ended the overlap.
	end := a
	if b.to < a.to || (b.to == a.to && a.endPos < 0) {
		end = b
	}
	verb := end.client + " held it"
	if lost[end.client] {
		verb = end.client + " still believed it held the lock"
	}
	how := map[string]string{
		"released":       " until it released at ",
		"crashed":        " until it crashed at ",
		"stopped":        " until its task ended at ",
		"acquired again": " until it acquired again at ",
		"":               " until the history ended at ",
	}[end.endHow]
	switch {
	case a.endPos < 0 && b.endPos < 0:
		facts = append(facts, explFact{pos: len(ix.h), text: "both still held it when the history ended at " + sim.FormatTime(ix.end)})
	case end.endPos < 0:
		facts = append(facts, explFact{pos: len(ix.h), text: verb + how + sim.FormatTime(end.to)})
	default:
		facts = append(facts, explFact{pos: end.endPos, text: verb + how + sim.FormatTime(end.to)})
		cited = append(cited, end.endPos)
	}
	return Violation{
		Invariant: InvMutex,
		Clients:   []string{a.client, b.client},
		From:      from,
		To:        to,
		Tokens:    nonzeroTokens(ea.Token, eb.Token),
		Events:    ix.seqs(cited...),
		Explanation: a.client + " and " + b.client + " both held the lock from " + sim.FormatTime(from) +
			" to " + sim.FormatTime(to) + " (" + sim.FormatTime(to-from) + "): " + renderFacts(facts),
	}
}

// grantedBy renders " from r1" or " from r1,r2,r3", and the token, for
// the acquisition at pos.
func grantedBy(ix *historyIndex, pos int) string {
	s := fromNodes(ix, pos)
	if t := ix.h[pos].Token; t != 0 {
		s += " with token " + strconv.FormatInt(t, 10)
	}
	return s
}

// fromNodes renders " from r1,r2" for the acquisition at pos ("" if no
// node is known).
func fromNodes(ix *historyIndex, pos int) string {
	if ns := ix.grantors(pos); len(ns) > 0 {
		return " from " + strings.Join(ns, ",")
	}
	return ""
}
