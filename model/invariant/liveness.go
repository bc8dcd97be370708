package invariant

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"locksim/model/history"
	"locksim/sim"
)

// checkLiveness reports when, after the last fault healed, the lock was
// wanted and nobody held it for longer than bound without anyone
// acquiring it.
//
// The heal is when the last fault was over (history.Index.Heal); a run
// whose faults never end (the only node down for good, a partition for
// good) has no liveness verdict: no design could be live there.
//
// A gap starts at the first instant at or after the heal when some client
// is trying to acquire (an attempt not yet answered) and no client is in a
// critical section (history.Section: a holder past its own deadline no
// longer holds). The gap ends at the next acquired event; giving up does
// not end it: a client that wanted a free lock and never got it is the
// failure (the setnx-expire deadlock: A crashes between SETNX and PEXPIRE,
// the key never expires, B keeps failing). A gap longer than bound is a
// violation over [start, start+bound]; when the history ends before
// start+bound there is no verdict. After a violation the next gap waits
// for an acquisition.
func checkLiveness(ix *history.Index, bound time.Duration, cfg Config) []Violation {
	vs, _, _, _ := scanLiveness(ix, bound, cfg)
	return vs
}

// LivenessUndecided says why a run without a liveness violation has no
// liveness verdict either, and ok is false when it has one: a fault never
// ended, or the lock was wanted and free when the history ended, for less
// than the bound, so whether it would have been acquired in time is not
// known. A report says "no verdict" then, not "held".
func LivenessUndecided(ix *history.Index, cfg Config) (why string, ok bool) {
	if cfg.LivenessBound <= 0 {
		return "", false
	}
	vs, open, heal, healed := scanLiveness(ix, cfg.LivenessBound, cfg)
	switch {
	case len(vs) > 0, cfg.PerClient && len(checkRefusedWhileFree(ix, cfg)) > 0:
		return "", false
	case !healed:
		return "a fault never ended (a node down for good that nobody replaced, or a partition for good)", true
	case heal > ix.End:
		return "the faults were over only at " + sim.FormatTime(heal) + ", after the run ended at " + sim.FormatTime(ix.End), true
	case open != nil:
		return "the lock was wanted and free from " + sim.FormatTime(open.from) + " until the run ended at " + sim.FormatTime(ix.End) +
			", less than the bound of " + sim.FormatTime(cfg.LivenessBound), true
	}
	return "", false
}

// scanLiveness finds the violations, the gap still open when the history
// ended (nil if none), when the faults healed and whether they did at all.
func scanLiveness(ix *history.Index, bound time.Duration, cfg Config) (vs []Violation, open *gap, heal time.Duration, healed bool) {
	heal, healed = ix.Heal(cfg.ClientWall)
	if !healed {
		return nil, nil, heal, false
	}
	healPos := -1 // the last fault event at or before the heal, for explanations
	for _, p := range ix.Faults {
		if ix.H[p].At <= heal {
			healPos = p
		}
	}
	// g is the gap being timed when inGap (a value: a pointer per gap
	// was an allocation per acquisition).
	var g gap
	inGap, suppressed := false, false
	trying, holding := 0, 0
	for _, p := range livenessPoints(ix) {
		if inGap && p.at > g.from+bound {
			vs = append(vs, livenessViolation(ix, g, heal, healPos, bound, cfg.LockKeys))
			inGap, suppressed = false, true
		}
		trying += int(p.trying)
		holding += int(p.holding)
		if p.acquired {
			inGap, suppressed = false, false
		}
		wanted := trying > 0 && holding == 0
		switch {
		case p.at < heal || p.at == heal && p.pos <= healPos:
			// Up to the heal only the state at the heal matters.
			inGap = wanted
			if wanted {
				g = gap{from: heal, pos: healPos}
			}
		case !inGap && !suppressed && wanted:
			g, inGap = gap{from: p.at, pos: p.pos}, true
			if p.pos < 0 { // a deadline: the last event at or before it
				g.pos = sort.Search(len(ix.H), func(i int) bool { return ix.H[i].At > p.at }) - 1
			}
		}
	}
	if inGap && ix.End >= g.from+bound {
		vs = append(vs, livenessViolation(ix, g, heal, healPos, bound, cfg.LockKeys))
		inGap = false
	}
	if inGap {
		open = &g
	}
	return vs, open, heal, true
}

// livenessPoint is an instant the liveness state changes.
type livenessPoint struct {
	at       time.Duration
	pos      int  // the event, -1 for a deadline (it comes before events at its instant)
	trying   int8 // +1 an attempt starts, -1 it ends (int8: a point is 24 bytes, not 40)
	holding  int8 // +1 a section starts, -1 it ends
	acquired bool
}

// livenessPointsKey names the liveness points among an index's derived
// views (history.Index.Derived).
type livenessPointsKey struct{}

// livenessPoints lists the changes of who tries and who holds, in time
// order, computed once per indexed history: the liveness and availability
// checks and LivenessUndecided read the same list, which the caller must
// not change.
func livenessPoints(ix *history.Index) []livenessPoint {
	return ix.DerivedReusing(livenessPointsKey{}, func(prev any) any {
		var buf []livenessPoint
		if p, ok := prev.(livenessList); ok {
			buf = p.buf // the last history's, which nobody reads any more
		}
		return listLivenessPoints(ix, buf)
	}).(livenessList).points
}

// livenessList is the derived value of livenessPoints: the points and the
// whole buffer they are in, for the next history's (Index.Reuse).
type livenessList struct{ points, buf []livenessPoint }

// listLivenessPoints computes livenessPoints in buf's memory when it is
// large enough: three lists (the attempts'
// points, the sections', the acquisitions'), each nearly in time order
// already, each sorted stably on its own, then merged with ties going to
// the earlier list: the order a stable sort of the three lists one after
// the other gives, at a fraction of its cost (that sort's merges took a
// fifth of the checkers' time).
func listLivenessPoints(ix *history.Index, buf []livenessPoint) livenessList {
	nt, ns := 2*len(ix.Attempts), 2*len(ix.Sections)
	if need := 2 * (nt + ns + len(ix.Acquisitions)); cap(buf) >= need {
		buf = buf[:0]
	} else {
		buf = make([]livenessPoint, 0, need)
	}
	for _, a := range ix.Attempts {
		buf = append(buf, livenessPoint{at: ix.H[a.Start].At, pos: a.Start, trying: 1})
		if a.EndPos >= 0 {
			buf = append(buf, livenessPoint{at: ix.H[a.EndPos].At, pos: a.EndPos, trying: -1})
		}
	}
	tries := buf[:len(buf):len(buf)]
	for _, s := range ix.Sections {
		// A revived section (a renewal reported after the belief lapsed)
		// holds the lock again without an acquired event: it ends a gap as
		// an acquisition does.
		buf = append(buf, livenessPoint{at: s.From, pos: s.Acq, holding: 1, acquired: s.Revived})
		switch {
		case s.End == history.EndDeadline:
			buf = append(buf, livenessPoint{at: s.To, pos: -1, holding: -1})
		case s.EndPos >= 0:
			buf = append(buf, livenessPoint{at: s.To, pos: s.EndPos, holding: -1})
		}
	}
	holds := buf[len(tries):len(buf):len(buf)]
	for _, a := range ix.Acquisitions {
		buf = append(buf, livenessPoint{at: ix.H[a.Pos].At, pos: a.Pos, acquired: true})
	}
	return livenessList{points: orderPoints(buf, len(tries), len(holds)), buf: buf[:cap(buf)]}
}

// orderPoints returns buf's points in the order a stable sort by
// pointBefore gives: buf is three lists one after the other (the first
// nTries points, the next nHolds, the rest), each sorted on its own and
// merged; buf must have room for as many points again.
func orderPoints(buf []livenessPoint, nTries, nHolds int) []livenessPoint {
	tries, holds, acqs := buf[:nTries:nTries], buf[nTries:nTries+nHolds:nTries+nHolds], buf[nTries+nHolds:]
	sortPointsStable(tries)
	sortPointsStable(holds)
	sortPointsStable(acqs)
	out := buf[len(buf):len(buf)]
	for len(tries)+len(holds)+len(acqs) > 0 {
		// The earliest head; on a tie the earlier list's.
		src := &tries
		if len(*src) == 0 || len(holds) > 0 && pointBefore(holds[0], (*src)[0]) {
			src = &holds
		}
		if len(*src) == 0 || len(acqs) > 0 && pointBefore(acqs[0], (*src)[0]) {
			src = &acqs
		}
		out = append(out, (*src)[0])
		*src = (*src)[1:]
	}
	return out
}

// pointBefore orders liveness points by instant, then event (a deadline,
// -1, before the events at its instant).
func pointBefore(a, b livenessPoint) bool {
	return a.at < b.at || a.at == b.at && a.pos < b.pos
}

// sortPointsStable sorts ps by pointBefore, keeping the order of equal
// points: by insertion, about linear on a list nearly in order, and by
// the library's stable sort when it turns out not to be.
func sortPointsStable(ps []livenessPoint) {
	budget := 8 * len(ps) // element moves before giving up on insertion
	for i := 1; i < len(ps); i++ {
		if !pointBefore(ps[i], ps[i-1]) {
			continue
		}
		x := ps[i]
		j := i
		for j > 0 && pointBefore(x, ps[j-1]) {
			ps[j] = ps[j-1]
			j--
		}
		ps[j] = x
		if budget -= i - j; budget < 0 {
			slices.SortStableFunc(ps, func(a, b livenessPoint) int {
				return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.pos, b.pos))
			})
			return
		}
	}
}

// configuredLosses counts the messages the links' configured loss (a
// network setting, "loss" in a lost event's note, not a fault) lost up to
// time until, and the first one's position.
func configuredLosses(ix *history.Index, until time.Duration) (n, first int) {
	first = -1
	for i := range ix.H {
		e := &ix.H[i]
		if e.At > until {
			break
		}
		if e.Kind == sim.KindLost && strings.HasPrefix(e.Note, "loss ") {
			if n++; first < 0 {
				first = i
			}
		}
	}
	return n, first
}

// gap is a stretch with the lock wanted and nobody holding it.
type gap struct {
	from time.Duration
	pos  int // the event at which the gap began (the heal, or later)
}

// livenessViolation explains a gap: the last fault, who was trying, and
// what the lock key held on each node over the gap.
func livenessViolation(ix *history.Index, g gap, heal time.Duration, healPos int, bound time.Duration, lockKeys []string) Violation {
	x := &explanation{ix: ix}
	if healPos >= 0 {
		e := ix.H[healPos]
		who := ""
		if e.Actor != sim.FaultActor {
			who = e.Actor + " "
		}
		note := ""
		if e.Note != "" {
			note = " (" + e.Note + ")"
		}
		text := "the last fault event was " + who + string(e.Kind) + note + " at " + sim.FormatTime(e.At)
		if heal > e.At {
			text += "; the faults were over at " + sim.FormatTime(heal)
		}
		x.add(healPos, text, healPos)
	} else if n, first := configuredLosses(ix, g.from+bound); n > 0 {
		// No fault, but the links' own loss (a run's network setting,
		// not a fault that heals) kept messages from arriving.
		x.add(-1, "there were no faults, but the links' configured loss lost "+strconv.Itoa(n)+" message(s) by then (the first at "+sim.FormatTime(ix.H[first].At)+")", first)
	} else {
		x.add(-1, "there were no faults")
	}
	end := g.from + bound
	var clients []string
	keys := map[string]bool{}
	for _, k := range lockKeys {
		keys[k] = true
	}
	for _, a := range ix.Attempts {
		// Who was trying once the gap began.
		if a.Start > g.pos || a.EndPos >= 0 && a.EndPos <= g.pos {
			continue
		}
		start := ix.H[a.Start].At
		x.add(a.Start, a.Client+" was trying to acquire since "+sim.FormatTime(start), a.Start)
		clients = append(clients, a.Client)
		keys[a.Key] = true
	}
	// What each node's key held over the gap: every value it held at some
	// instant in [from, end].
	held := false
	for _, k := range sortedNodeKeys(ix) {
		if !keys[k.Key] && !companionKey(keys, k.Key) {
			continue
		}
		ch := ix.Keys[k]
		for i, c := range ch {
			e := ix.H[c.Pos]
			until := ix.End
			if i+1 < len(ch) {
				until = ix.H[ch[i+1].Pos].At
			}
			if c.Value == "" || e.At > end || until < g.from {
				continue
			}
			o := ix.Owner(c.Value)
			if o != "" && i+1 < len(ch) && ch[i+1].By == o && releasedBy(ix, o, c.Value, g.pos) {
				continue // its holder had released and its own delete was on the way
			}
			if keys[k.Key] {
				held = true
			}
			what := "the value " + c.Value
			if o != "" {
				what = o + "'s value " + c.Value
				clients = append(clients, o)
			}
			ttl := "no TTL"
			if e.Dur > 0 {
				ttl = "TTL " + sim.FormatTime(e.Dur)
			}
			if !keys[k.Key] {
				// A companion (a fair lock's queue): its kind, and whose
				// command made it, not a lock value.
				by := ""
				if c.By != "" {
					by = " by " + c.By + "'s " + c.Cmd
					clients = append(clients, c.By)
				}
				x.add(c.Pos, k.Node+" kept "+k.Key+", a "+strings.Trim(c.Value, "()")+" made"+by+" at "+sim.FormatTime(e.At)+" ("+ttl+")", c.Pos)
				continue
			}
			x.add(c.Pos, "the key "+k.Key+" on "+k.Node+" held "+what+" (set at "+sim.FormatTime(e.At)+" with "+ttl+")", c.Pos)
		}
	}
	if !held {
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		slices.Sort(names)
		x.add(g.pos, "no node held the lock key "+strings.Join(names, ", "))
	}
	return Violation{
		Invariant: Liveness,
		Clients:   distinct(clients...),
		From:      g.from,
		To:        end,
		Events:    x.seqs(),
		Explanation: "no client acquired the lock in the " + sim.FormatTime(bound) + " after " + sim.FormatTime(g.from) +
			", when it was wanted and no client was in a critical section: " + x.text(),
	}
}

// companionKey reports whether key belongs to one of the lock keys as
// Redisson names its companions, with the lock key as a hash tag
// (redisson_lock_queue:{lock}: a fair lock's queue of waiters).
func companionKey(lockKeys map[string]bool, key string) bool {
	for k := range lockKeys {
		if strings.Contains(key, "{"+k+"}") {
			return true
		}
	}
	return false
}

// releasedBy reports whether client's critical section with lock value v
// ended by a release at or before pos.
func releasedBy(ix *history.Index, client, v string, pos int) bool {
	for _, s := range ix.Sections {
		if s.Client == client && history.HoldsLease(v, s.Value) && s.End == history.EndReleased && s.EndPos >= 0 && s.EndPos <= pos {
			return true
		}
	}
	return false
}

func sortedNodeKeys(ix *history.Index) []history.NodeKey {
	ks := make([]history.NodeKey, 0, len(ix.Keys))
	for k := range ix.Keys {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b history.NodeKey) int { return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Key, b.Key)) })
	return ks
}
