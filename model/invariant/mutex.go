package invariant

import (
	"strconv"
	"strings"
	"time"

	"locksim/model/history"
	"locksim/sim"
)

// checkMutex reports every pair of exclusive critical sections
// (history.Section) of different clients that overlap in true time.
// Sections are half-open [From, To): a release or a deadline and an
// acquire at the same instant do not overlap. A section ends at the first
// of release invoked, crash, the end of its task, and the instant the
// client's own deadline passed. A shared hold (a read lock) is not judged
// here: readers overlap by design; rw-exclusion judges them.
func checkMutex(ix *history.Index) []Violation {
	return overlaps(ix, MutualExclusion, func(a, b *history.Section) bool { return !a.Shared && !b.Shared })
}

// overlaps reports, as invariant id, every pair of sections of different
// clients that overlap in true time and that judged says must not.
func overlaps(ix *history.Index, id ID, judged func(a, b *history.Section) bool) []Violation {
	var vs []Violation
	ss := ix.Sections
	for i := range ss {
		for j := i + 1; j < len(ss); j++ {
			a, b := &ss[i], &ss[j]
			if b.From >= a.To {
				break // sections are ordered by start: no later one overlaps a
			}
			if a.Client == b.Client || !judged(a, b) {
				continue
			}
			to := min(a.To, b.To)
			if to <= b.From {
				continue
			}
			vs = append(vs, mutexViolation(ix, id, a, b, to))
		}
	}
	return vs
}

// mutexViolation explains the overlap of a and b (a started first) from
// b's acquire to `to`, as invariant id (mutual-exclusion or rw-exclusion).
func mutexViolation(ix *history.Index, id ID, a, b *history.Section, to time.Duration) Violation {
	x := &explanation{ix: ix, keyNames: len(a.Nodes) < len(a.Grants) || len(b.Nodes) < len(b.Grants)}
	x.add(a.Acq, holdText(ix, a), a.Acq)
	x.add(b.Acq, holdText(ix, b), b.Acq)
	if a.Deadline != history.NoDeadline {
		x.add(a.Acq, a.Client+" believed its lease lasted until "+sim.FormatTime(a.Deadline), a.DeadlinePos)
	}
	// Why b could acquire while a held, or why either held a lease already
	// gone: the loss of its value on its granting nodes before the overlap.
	lost := map[string]bool{}
	for _, s := range []*history.Section{a, b} {
		for _, g := range s.Grants {
			if _, ok := x.addLoss(g.Node, g.Key, s.Value, s.Acq, b.Acq, false); ok {
				lost[s.Client] = true
			}
		}
	}
	// Partitions that started while a held and b waited.
	for p := a.Acq + 1; p < b.Acq; p++ {
		if e := ix.H[p]; e.Kind == sim.KindPartition {
			x.add(p, "a partition "+e.Note+" started at "+sim.FormatTime(e.At), p)
		}
	}
	// A promotion or restart that let b's node grant it.
	for _, n := range b.Nodes {
		for p := b.Acq - 1; p > a.Acq; p-- {
			e := ix.H[p]
			if e.Actor != n {
				continue
			}
			if e.Kind == sim.KindPromote {
				if citedAlready(x, p) {
					break
				}
				x.add(p, n+" was promoted to primary at "+sim.FormatTime(e.At), p)
				break
			}
			if e.Kind == sim.KindNodeUp {
				if citedAlready(x, p) {
					break // a loss already tells of this restart
				}
				x.add(p, n+" restarted at "+sim.FormatTime(e.At)+" with "+strconv.FormatInt(e.N, 10)+" keys ("+e.Note+")", p)
				break
			}
		}
	}
	// Pauses of either client between a's acquire and the end of the
	// overlap that no loss already named.
	for _, s := range []*history.Section{a, b} {
		for _, p := range ix.Pauses[s.Client] {
			if p.To <= a.From || p.From >= to || citedAlready(x, p.FromPos) {
				continue
			}
			x.addPause(s.Client, p)
		}
		x.addStarves(ix, s.Client, a.From, to)
	}
	// Who ended the overlap.
	end := a
	if b.To < a.To || (b.To == a.To && a.End == history.EndHistory) {
		end = b
	}
	verb := end.Client + " held it"
	if lost[end.Client] {
		verb = end.Client + " still believed it held the lock"
	}
	switch {
	case a.End == history.EndHistory && b.End == history.EndHistory:
		x.add(len(ix.H), "both still held it when the history ended at "+sim.FormatTime(ix.End))
	case end.End == history.EndHistory:
		x.add(len(ix.H), verb+" until the history ended at "+sim.FormatTime(end.To))
	case end.End == history.EndDeadline:
		x.add(len(ix.H), end.Client+" held it until its lease ran out on its own clock at "+sim.FormatTime(end.To), end.DeadlinePos)
	default:
		how := map[history.SectionEnd]string{
			history.EndReleased:   " until it released at ",
			history.EndCrashed:    " until it crashed at ",
			history.EndTaskEnded:  " until its task ended at ",
			history.EndReacquired: " until it acquired again at ",
		}[end.End]
		x.add(end.EndPos, verb+how+sim.FormatTime(end.To), end.EndPos)
	}
	return Violation{
		Invariant: id,
		Clients:   []string{a.Client, b.Client},
		From:      b.From,
		To:        to,
		Tokens:    nonzero(a.Token, b.Token),
		Events:    x.seqs(),
		Explanation: a.Client + holdKind(id, a) + " and " + b.Client + holdKind(id, b) + " both held the lock from " + sim.FormatTime(b.From) +
			" to " + sim.FormatTime(to) + " (" + sim.FormatTime(to-b.From) + "): " + x.text(),
	}
}

// holdKind names a section's hold in rw-exclusion's explanations:
// " (reading)" for a shared hold, " (writing)" for an exclusive one;
// nothing for mutual-exclusion, whose holds are all exclusive.
func holdKind(id ID, s *history.Section) string {
	switch {
	case id != RWExclusion:
		return ""
	case s.Shared:
		return " (reading)"
	}
	return " (writing)"
}

func citedAlready(x *explanation, pos int) bool {
	for _, c := range x.cited {
		if c == pos {
			return true
		}
	}
	return false
}

// holdText says how s's client came to hold: it acquired, or its belief
// had run out and its library then reported a successful extension, with
// what the key held on the granting nodes at that moment.
func holdText(ix *history.Index, s *history.Section) string {
	if !s.Revived {
		return s.Client + " acquired at " + sim.FormatTime(s.From) + granted(ix, s.Acq, s.Nodes)
	}
	text := s.Client + "'s extension at " + sim.FormatTime(s.From) + " reported success after its lease had run out, so it held the lock again"
	var held []string
	for _, g := range s.Grants {
		v := ix.ValueAt(g.Node, g.Key, s.Acq)
		switch {
		case v == s.Value:
			continue
		case v == "":
			held = append(held, "free on "+g.Node)
		case ix.Owner(v) != "":
			held = append(held, ix.Owner(v)+"'s on "+g.Node)
		default:
			held = append(held, "held by "+v+" on "+g.Node)
		}
	}
	if len(held) > 0 {
		text += ", while the key was " + strings.Join(held, ", ")
	}
	return text
}
