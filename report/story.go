package report

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// maxClauses bounds a story's length.
const maxClauses = 12

// story retells a violation from the history in one sentence: the
// acquisitions, pauses, expiries, faults and writes of the clients it
// involves, from their last acquisition before the window to its end.
func (t *timeline) story(v invariant.Violation) string {
	from, to := v.From, v.To
	if to < from {
		from, to = to, from
	}
	involved := map[string]bool{}
	for _, c := range v.Clients {
		involved[c] = true
	}
	// The story runs from the involved clients' last acquisitions before
	// the window to the end of their critical sections that overlap it, so
	// it tells what became of their writes.
	lo := from
	for _, c := range v.Clients {
		if at, ok := t.lastAcquired(c, from); ok {
			lo = min(lo, at)
			if end, ok := t.releaseAfter(c, from); ok {
				to = max(to, end)
			}
		}
	}
	cited := map[int]bool{}
	for _, s := range v.Events {
		cited[s] = true
	}
	var clauses []string
	more := 0
	used := map[int]bool{}
	// Faults that started earlier and still last at lo set the scene.
	for _, e := range t.h {
		if e.At >= lo {
			break
		}
		if faultViews[e.Kind].scene && (e.Dur == 0 || e.At+e.Dur > lo) {
			clauses = append(clauses, describe(t, e)+" from "+fmtT(e.At))
		}
	}
	for _, pos := range t.order() {
		e := t.h[pos]
		in := e.At >= lo && e.At <= to
		if !in && !cited[e.Seq] {
			continue
		}
		c, ok := t.clause(e, involved, cited, used)
		if !ok {
			continue
		}
		clauses = append(clauses, c)
	}
	// Leave out what the checker's explanation already says: a clause
	// whose every time appears there; then keep at most maxClauses.
	kept := clauses[:0]
	for _, c := range clauses {
		if !told(c, v.Explanation) {
			kept = append(kept, c)
		}
	}
	dropped := len(kept) < len(clauses)
	clauses = kept
	if len(clauses) > maxClauses {
		more = len(clauses) - maxClauses
		clauses = clauses[:maxClauses]
	}
	if len(clauses) == 0 {
		return ""
	}
	s := "From the history: "
	if dropped {
		s = "Also in the history: "
	}
	for i, c := range clauses {
		if i > 0 {
			s += "; "
		}
		s += c
	}
	if more > 0 {
		s += "; and " + strconv.Itoa(more) + " more event"
		if more > 1 {
			s += "s"
		}
	}
	return s + "."
}

// lastAcquired returns when client c's last critical section before at
// started.
func (t *timeline) lastAcquired(c string, at time.Duration) (time.Duration, bool) {
	found, ok := time.Duration(0), false
	for _, s := range t.ix.Sections {
		if s.From > at {
			break
		}
		if s.Client == c {
			found, ok = s.From, true
		}
	}
	return found, ok
}

// releaseAfter returns when client c's critical section that covers or
// follows at ended (as the checkers judged it).
func (t *timeline) releaseAfter(c string, at time.Duration) (time.Duration, bool) {
	for _, s := range t.ix.Sections {
		if s.Client == c && s.To >= at && s.End != history.EndHistory {
			return s.To, true
		}
	}
	return 0, false
}

// clause renders one event of a story, or reports that it does not belong.
func (t *timeline) clause(e sim.Event, involved map[string]bool, cited, used map[int]bool) (string, bool) {
	all := len(involved) == 0
	mine := all || involved[e.Actor]
	at := " at " + fmtT(e.At)
	switch e.Kind {
	case history.KindAcquired:
		if !mine || history.Acquired(e).HoldCount() > 1 {
			return "", false
		}
		s := e.Actor + " acquired " + e.Key + grantsText(e)
		s += at + tokenNote(e.Token) + t.whilePaused(e.At, e.Actor, involved)
		return s, true
	case history.KindLeaseLost, history.KindAcquireFailed:
		if !mine {
			return "", false
		}
		return describe(t, e) + at, true
	case sim.KindPause:
		if !mine {
			return "", false
		}
		if p, ok := t.ix.PausedAt(e.Actor, e.At); ok && p.FromPos == e.Seq {
			return e.Actor + " was paused from " + fmtT(p.From) + " to " + fmtT(p.To), true
		}
		return "", false // a pause while paused only extends the first
	case sim.KindCrash, sim.KindRestart:
		if !mine {
			return "", false
		}
		return describe(t, e) + at, true
	case sim.KindExpire, sim.KindEvict:
		o := t.owner(e.Value)
		if !all && !involved[o] && !cited[e.Seq] {
			return "", false
		}
		s := "the key on " + e.Actor + " expired" + at
		if e.Kind == sim.KindEvict {
			s = e.Actor + " evicted the key" + at
		}
		if o != "" {
			s += " (" + o + "'s value)"
			if p, ok := t.pausedAt(o, e.At); ok {
				s += " while " + o + " was " + pausedWord(p)
			}
		}
		return s, true
	case sim.KindKey:
		if !cited[e.Seq] {
			return "", false
		}
		return describe(t, e) + at, true
	case history.KindRelease:
		if !mine || history.Release(e).HoldsLeft() > 0 || !cited[e.Seq] {
			return "", false
		}
		return e.Actor + " released " + e.Key + at, true
	case history.KindResWrite:
		// The write's own clause tells its outcome.
		if (all || involved[e.Peer]) && used[e.Seq] {
			return "", false
		}
		if !cited[e.Seq] {
			return "", false
		}
		return describe(t, e) + at, true
	case history.KindWrite:
		if !mine {
			return "", false
		}
		s := e.Actor + " wrote"
		if e.Token != 0 {
			s += " with token " + itoa(e.Token)
		}
		w, ok := t.writeOf(e.Seq)
		if ok && w.Sent >= 0 && t.h[w.Sent].At-e.At > time.Millisecond {
			s += " (prepared" + at + ", sent at " + fmtT(t.h[w.Sent].At) + ")"
		} else {
			s += at
		}
		if ok && w.Applied >= 0 {
			used[t.h[w.Applied].Seq] = true
			verdict := " and the resource accepted it"
			if !w.Accepted {
				verdict = " and the resource rejected it"
			}
			s += verdict + " at " + fmtT(t.h[w.Applied].At)
		} else {
			s += " (no answer from the resource recorded)"
		}
		return s, true
	case sim.KindPromote, sim.KindDemote:
		return describe(t, e) + at, true
	}
	if faultViews[e.Kind].story {
		return describe(t, e) + at, true
	}
	if cited[e.Seq] {
		return describe(t, e) + at, true
	}
	return "", false
}

// whilePaused says which other involved client was paused or crashed at
// true time at, if any: " while A was paused".
func (t *timeline) whilePaused(at time.Duration, self string, involved map[string]bool) string {
	for _, c := range t.clients {
		if c == self || (len(involved) > 0 && !involved[c]) {
			continue
		}
		if p, ok := t.pausedAt(c, at); ok {
			return " while " + c + " was " + pausedWord(p)
		}
	}
	return ""
}

// timeRE matches a time as fmtT prints it.
var timeRE = regexp.MustCompile(`\d+\.\d{6}s`)

// told reports whether every time a clause mentions appears in text.
func told(clause, text string) bool {
	ts := timeRE.FindAllString(clause, -1)
	if len(ts) == 0 || text == "" {
		return false
	}
	for _, t := range ts {
		if !strings.Contains(text, t) {
			return false
		}
	}
	return true
}

// writeOf returns the write the client prepared at pos.
func (t *timeline) writeOf(pos int) (history.Write, bool) {
	if t.writeAt == nil { // once: the report stays linear in the writes
		t.writeAt = make(map[int]int, len(t.ix.Writes))
		for i, w := range t.ix.Writes {
			if _, dup := t.writeAt[w.Prepared]; !dup {
				t.writeAt[w.Prepared] = i
			}
		}
	}
	i, ok := t.writeAt[pos]
	if !ok {
		return history.Write{}, false
	}
	return t.ix.Writes[i], true
}
