package report

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

// Why a run held: the events that kept each client out of another's
// critical section or kept a stale write out of the resource, read from
// the history, never assumed from the design's name. Each item names the
// events (with their times and replies) and says why they mattered; a
// cost the run paid (the lock unobtainable for a while) is told as well,
// since a design that stays safe by never granting the lock is not what
// a student should copy unawares.

// heldItem is one reason a run held, or one cost it paid.
type heldItem struct {
	Text string `json:"text"`
	// Seqs are the events it names.
	Seqs []int `json:"seqs"`
	// Cost marks an availability cost rather than a saving event.
	Cost bool `json:"cost,omitempty"`
}

// whyHeld returns the saving events of a run without violations, in the
// order of their first event, and the costs after them.
func (t *timeline) whyHeld(r *model.Result) []heldItem {
	if r.Err != nil || r.Vacuous() || r.NoFaultFired() || len(r.Violations) > 0 {
		return nil
	}
	var items, costs []heldItem
	items = append(items, t.rejectedWrites()...)
	items = append(items, t.refusedReads()...)
	items = append(items, t.clientChecks()...)
	items = append(items, t.releasesThatSpared()...)
	items = append(items, t.renewals()...)
	items = append(items, t.freedByExpiry()...)
	items = append(items, t.keptThroughPause()...)
	items = append(items, t.keptThroughRestart()...)
	w, c := t.waits()
	items = append(items, w...)
	costs = append(costs, c...)
	items = append(items, t.refusals()...)
	costs = append(costs, t.gaveUp()...)
	costs = append(costs, t.keyOutlivedRelease()...)
	sortItems(items)
	sortItems(costs)
	return append(items, costs...)
}

func sortItems(items []heldItem) {
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && first(items[j]) < first(items[j-1]); j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
}

func first(it heldItem) int {
	if len(it.Seqs) == 0 {
		return 1 << 30
	}
	return it.Seqs[0]
}

// rejectedWrites: the resource turned a write away for its token or
// version.
func (t *timeline) rejectedWrites() []heldItem {
	var out []heldItem
	for _, e := range t.h {
		if e.Kind != history.KindResWrite || e.Reply == resp.IntReply(1).String() {
			continue
		}
		s := "the resource rejected " + e.Peer + "'s write of " + itoa(history.ValueOf(e))
		if e.Token != 0 {
			s += " with token " + itoa(e.Token)
		}
		s += " at " + fmtT(e.At)
		if e.Note != "" {
			s += " (" + e.Note + ")"
		}
		seqs := []int{e.Seq}
		// What raised the bar: the first event that brought the resource
		// a newer token it counted (a write, or under strict-reads a read).
		for _, p := range t.h[:e.Seq] {
			if e.Token == 0 || p.Token <= e.Token {
				continue
			}
			if p.Kind == history.KindResRead && !strings.HasPrefix(p.Reply, "(error)") {
				s += "; " + p.Peer + "'s read with token " + itoa(p.Token) + " at " + fmtT(p.At) + " had raised the bar"
				seqs = append(seqs, p.Seq)
				break
			}
			if p.Kind == history.KindResWrite && p.Reply == resp.IntReply(1).String() {
				s += "; " + p.Peer + "'s write with token " + itoa(p.Token) + " at " + fmtT(p.At) + " had raised the bar"
				seqs = append(seqs, p.Seq)
				break
			}
		}
		s += ": the stale write never reached the data"
		out = append(out, heldItem{Text: s, Seqs: seqs})
	}
	return out
}

// refusedReads: a strict-reads resource refused a read with an old token.
func (t *timeline) refusedReads() []heldItem {
	var out []heldItem
	for _, e := range t.h {
		if e.Kind != history.KindResRead || !strings.HasPrefix(e.Reply, "(error)") {
			continue
		}
		s := "the resource refused " + e.Peer + " a read at " + fmtT(e.At)
		if e.Note != "" {
			s += " (" + e.Note + ")"
		}
		out = append(out, heldItem{Text: s + ": " + e.Peer + " never worked from a value it could not safely write back", Seqs: []int{e.Seq}})
	}
	return out
}

// clientChecks: a client saw its lease gone and did not write.
func (t *timeline) clientChecks() []heldItem {
	var out []heldItem
	for _, e := range t.h {
		if e.Kind != history.KindLeaseLost {
			continue
		}
		out = append(out, heldItem{Text: e.Actor + " did not write at " + fmtT(e.At) + noteSuffix(e.Note), Seqs: []int{e.Seq}})
	}
	return out
}

// releasesThatSpared: a compare-and-delete release that returned 0, so it
// did not delete a key that was no longer the client's.
func (t *timeline) releasesThatSpared() []heldItem {
	var out []heldItem
	for pos, e := range t.h {
		if e.Kind != history.KindRelease || history.Release(e).HoldsLeft() > 0 {
			continue
		}
		for _, c := range t.callsUntil(pos, history.KindReleased) {
			if c.pos < 0 || c.reply != resp.IntReply(0).String() || len(c.args) == 0 {
				continue
			}
			x := t.execOf(e.Actor, c)
			held := t.keyHeldText(c.peer, e.Key, x, e.Actor)
			if o := t.owner(t.ix.ValueAt(c.peer, e.Key, x)); o == "" || o == e.Actor {
				continue // nothing of another's to spare: a key gone, or a 0 for the script's own reason
			}
			out = append(out, heldItem{
				Text: e.Actor + "'s release (" + commandName(c.args) + " to " + c.peer + ") returned 0 at " + fmtT(t.h[c.pos].At) +
					": " + held + ", so " + e.Actor + " deleted nothing that was not its own",
				Seqs: []int{t.h[c.pos].Seq}})
		}
	}
	return out
}

// callsUntil returns the calls (with replies) the actor's task that
// recorded the event at pos sent after it, up to its next event of kind
// end.
func (t *timeline) callsUntil(pos int, end sim.Kind) []renewCall {
	e := t.h[pos]
	var calls []renewCall
	for i := pos + 1; i < len(t.h); i++ {
		p := t.h[i]
		if p.Actor != e.Actor || p.Task != e.Task {
			continue
		}
		if p.Kind == end {
			break
		}
		switch p.Kind {
		case sim.KindCall:
			calls = append(calls, renewCall{args: p.Args, peer: p.Peer, pos: -1})
		case sim.KindReply:
			if n := len(calls); n > 0 && calls[n-1].pos < 0 {
				calls[n-1].reply, calls[n-1].pos = p.Reply, i
			}
		}
	}
	return calls
}

// renewals: a watchdog kept a lease alive past its ttl while its client
// worked.
func (t *timeline) renewals() []heldItem {
	var out []heldItem
	for _, s := range t.ix.Sections {
		var seqs []int
		var last time.Duration
		for i := s.Acq + 1; i < len(t.h) && (s.EndPos < 0 || i <= s.EndPos); i++ {
			e := t.h[i]
			if e.Actor == s.Client && e.Kind == history.KindRenew && history.Renew(e).Extended() {
				seqs = append(seqs, e.Seq)
				last = e.At
			}
		}
		if len(seqs) == 0 {
			continue
		}
		txt := s.Client + "'s watchdog renewed " + s.Key + " " + timesWord(len(seqs)) + " (" + fmtT(t.h[seqs[0]].At)
		if len(seqs) > 1 {
			txt += " to " + fmtT(last)
		}
		txt += ") while " + s.Client + " held it from " + fmtT(s.From) + " to " + fmtT(s.To) +
			", so the key stayed " + s.Client + "'s for as long as " + s.Client + " worked"
		out = append(out, heldItem{Text: txt, Seqs: seqs})
	}
	return out
}

// waits: WAIT's replica counts, per client: the acquisitions it undid and
// the one it confirmed. A client whose WAITs all fell short after the
// others stopped is a cost (the lock could not be had).
func (t *timeline) waits() (items, costs []heldItem) {
	type tally struct {
		short, ok []int
		asked     string
	}
	by := map[string]*tally{}
	var order []string
	var pending = map[string]int{} // actor/task -> call pos
	for pos, e := range t.h {
		switch e.Kind {
		case sim.KindCall:
			if len(e.Args) > 1 && strings.EqualFold(e.Args[0], "WAIT") {
				pending[e.Actor+"/"+e.Task] = pos
			}
		case sim.KindReply:
			cp, ok := pending[e.Actor+"/"+e.Task]
			if !ok {
				continue
			}
			delete(pending, e.Actor+"/"+e.Task)
			want, _ := strconv.Atoi(t.h[cp].Args[1])
			got, err := strconv.Atoi(strings.TrimPrefix(e.Reply, "(integer) "))
			if err != nil || e.Task != "main" {
				continue // the watchdog's WAITs are told as renewals
			}
			tl := by[e.Actor]
			if tl == nil {
				tl = &tally{asked: t.h[cp].Args[1]}
				by[e.Actor] = tl
				order = append(order, e.Actor)
			}
			if got >= want {
				tl.ok = append(tl.ok, e.Seq)
			} else {
				tl.short = append(tl.short, e.Seq)
			}
		}
	}
	for _, c := range order {
		tl := by[c]
		if len(tl.short) == 0 {
			continue
		}
		txt := c + "'s WAIT " + tl.asked + " came back short (fewer replicas acknowledged the lock than the " + tl.asked + " it asked for) " + timesWord(len(tl.short)) +
			", from " + fmtT(t.h[tl.short[0]].At) + " to " + fmtT(t.h[tl.short[len(tl.short)-1]].At) + ", and each time " + c + " gave the key back"
		seqs := tl.short
		if len(tl.ok) > 0 {
			okAt := t.h[tl.ok[0]].At
			txt += "; WAIT confirmed at " + fmtT(okAt) + ", and only then did " + c + " hold the lock"
			seqs = append(append([]int{}, tl.short...), tl.ok[0])
			items = append(items, heldItem{Text: txt, Seqs: seqs})
			continue
		}
		txt += "; it never confirmed, so " + c + " never held the lock. " + c + "'s SET did take the key each time (the node rows show " +
			c + "'s value until it gave the key back), but " + c + " never believed it held the lock"
		costs = append(costs, heldItem{Text: "the cost: " + txt, Seqs: seqs, Cost: true})
	}
	return items, costs
}

// refusals: another client's acquire was turned away while a client held
// the lock: the lock doing its plain job. Holds of one client that were
// refused to the same others are told once.
func (t *timeline) refusals() []heldItem {
	var out []heldItem
	type agg struct {
		n        int
		from, to time.Duration
		seq      int
		at       int // index in out
	}
	seenPair := map[string]*agg{}
	for _, s := range t.ix.Sections {
		if s.Shared {
			continue
		}
		who := map[string]bool{}
		var names []string
		for _, a := range t.ix.Attempts {
			if a.Client == s.Client || a.Key != s.Key {
				continue
			}
			from := t.h[a.Start].At
			to := t.End
			if a.EndPos >= 0 {
				to = t.h[a.EndPos].At
			}
			if from < s.To && to > s.From && !who[a.Client] {
				who[a.Client] = true
				names = append(names, a.Client)
			}
		}
		if len(names) == 0 {
			continue
		}
		was := "was"
		if len(names) > 1 {
			was = "were"
		}
		if q := t.quorumNote(s); q != "" {
			out = append(out, heldItem{Text: joinAnd(names) + " tried to acquire " + s.Key + " while " + s.Client + " held it (" + holdSpan(s.From, s) +
				"), and " + was + " not granted it during that hold" + q, Seqs: []int{t.h[s.Acq].Seq}})
			continue
		}
		k := s.Client + "|" + s.Key + "|" + strings.Join(names, ",")
		if g, ok := seenPair[k]; ok {
			g.n++
			g.to = s.To
			out[g.at].Text = joinAnd(names) + " tried to acquire " + s.Key + " during " + count(g.n) + " of " + s.Client + "'s holds (" + holdSpan(g.from, s) +
				") and " + was + " not granted it during any of them"
			continue
		}
		seenPair[k] = &agg{n: 1, from: s.From, to: s.To, seq: t.h[s.Acq].Seq, at: len(out)}
		out = append(out, heldItem{Text: joinAnd(names) + " tried to acquire " + s.Key + " while " + s.Client + " held it (" + holdSpan(s.From, s) +
			"), and " + was + " not granted it during that hold", Seqs: []int{t.h[s.Acq].Seq}})
	}
	return out
}

// gaveUp: a client gave up acquiring while nobody held the lock: safety
// kept at the price of the lock itself.
func (t *timeline) gaveUp() []heldItem {
	var out []heldItem
	for _, e := range t.h {
		if e.Kind != history.KindAcquireFailed {
			continue
		}
		busy := false
		for _, s := range t.ix.Sections {
			if s.Client != e.Actor && s.From <= e.At && (s.To >= e.At || s.End == history.EndHistory) {
				busy = true
			}
		}
		if busy {
			continue
		}
		free := t.freeSince(e.At)
		out = append(out, heldItem{
			Text: "the cost: " + e.Actor + " gave up acquiring " + e.Key + " at " + fmtT(e.At) + noteSuffix(e.Note) +
				", though no client had held the lock since " + fmtT(free) + ": the lock stayed safe by being unobtainable",
			Seqs: []int{e.Seq}, Cost: true})
	}
	return out
}

// freeSince returns when the last critical section before at ended.
func (t *timeline) freeSince(at time.Duration) time.Duration {
	free := time.Duration(0)
	for _, s := range t.ix.Sections {
		if s.To <= at && s.To > free {
			free = s.To
		}
	}
	return free
}

// fencingTraps explains each write a token-checking resource accepted
// from a client whose lease was gone: the resource compares a token only
// with the tokens that have reached it, so an old token is accepted when
// the newer holder has not written (or, under strict-reads, read) yet.
func (t *timeline) fencingTraps(r *model.Result) []heldItem {
	f := r.Spec.Fencing
	if f != model.FenceStrict && f != model.FenceNonstrict && f != model.FenceStrictReads && f != model.FenceLockValue {
		return nil
	}
	var out []heldItem
	seen := map[int]bool{}
	for _, v := range r.Violations {
		if v.Invariant != "stale-write" {
			continue
		}
		for _, seq := range v.Events {
			e := t.h[seq]
			if e.Kind != history.KindResWrite || seen[seq] || e.Reply != resp.IntReply(1).String() {
				continue
			}
			seen[seq] = true
			if f == model.FenceLockValue {
				if it, ok := t.remarked(e); ok {
					out = append(out, it)
				}
				continue
			}
			if e.Token == 0 {
				continue
			}
			if it, ok := t.trap(e, f); ok {
				out = append(out, it)
			}
		}
	}
	return out
}

// trap tells why the resource accepted the stale write e.
func (t *timeline) trap(e sim.Event, f model.Fencing) (heldItem, bool) {
	highest, highSeq := int64(0), -1
	for _, p := range t.h[:e.Seq] {
		counts := p.Kind == history.KindResWrite && p.Reply == resp.IntReply(1).String() ||
			f == model.FenceStrictReads && p.Kind == history.KindResRead && !strings.HasPrefix(p.Reply, "(error)")
		if counts && p.Token > highest {
			highest, highSeq = p.Token, p.Seq
		}
	}
	// The newest token granted before the write landed.
	var newer *history.Section
	for i := range t.ix.Sections {
		s := &t.ix.Sections[i]
		if s.Token > e.Token && t.h[s.Acq].At <= e.At && (newer == nil || s.Token > newer.Token) {
			newer = s
		}
	}
	if newer == nil || highest >= newer.Token {
		return heldItem{}, false
	}
	txt := "the resource accepted " + e.Peer + "'s token " + itoa(e.Token) + " at " + fmtT(e.At) +
		" because the highest token it had counted was " + itoa(highest)
	if highSeq < 0 {
		txt = "the resource accepted " + e.Peer + "'s token " + itoa(e.Token) + " at " + fmtT(e.At) +
			" because no token had been counted there yet"
	}
	txt += "; " + newer.Client + "'s token " + itoa(newer.Token) + " was granted at " + fmtT(newer.From)
	seqs := []int{e.Seq, t.h[newer.Acq].Seq}
	// What the resource made of the newer holder's reads before the write.
	read := -1
	for _, p := range t.h[newer.Acq:e.Seq] {
		if p.Kind == history.KindResRead && p.Peer == newer.Client && !strings.HasPrefix(p.Reply, "(error)") {
			read = p.Seq
			break
		}
	}
	switch {
	case read < 0:
		txt += ", but " + newer.Client + " had neither written nor read at the resource yet. " +
			"A fence compares only the tokens that reach it (the fencing trap)"
	default:
		p := t.h[read]
		seqs = append(seqs, read)
		carried := readToken(t.h, read)
		switch {
		case carried == "":
			txt += "; " + newer.Client + "'s read reached the resource at " + fmtT(p.At) + " without a token, and " +
				newer.Client + " had not written yet. A fence compares only the tokens that reach it (the fencing trap)"
		case p.Token == 0:
			txt += "; " + newer.Client + "'s read carried token " + carried + " to the resource at " + fmtT(p.At) +
				", but a --fencing " + string(f) + " resource checks tokens on writes only: it served that read without recording its token, and " +
				newer.Client + " had not written yet. A fence compares only the tokens it counts (the fencing trap); " +
				"with --fencing strict-reads the resource records the token of that read, which raises the bar to " + carried +
				" and refuses " + e.Peer + "'s write"
		default:
			txt += "; " + newer.Client + "'s read at " + fmtT(p.At) + " was recorded with token " + itoa(p.Token) +
				". A fence compares only the tokens it counts (the fencing trap)"
		}
	}
	return heldItem{Text: txt, Seqs: seqs}, true
}

// readToken returns the token the client's READ answered by the
// resource's event at seq carried ("" when it carried none): the
// argument of the client's last READ call to the resource before it.
func readToken(h sim.History, seq int) string {
	c := h[seq].Peer
	for i := seq - 1; i >= 0; i-- {
		x := h[i]
		if x.Kind == sim.KindCall && x.Actor == c && x.Peer == history.ResourceName && len(x.Args) > 0 && strings.EqualFold(x.Args[0], "READ") {
			if len(x.Args) > 1 && x.Args[1] != "0" {
				return x.Args[1]
			}
			return ""
		}
	}
	return ""
}

// stillHeld returns, for a run with violations, the events that kept
// some of it safe all the same (a write rejected for its token, a read
// refused, a client that did not write), and the fencing traps.
func (t *timeline) stillHeld(r *model.Result) []heldItem {
	if r.Err != nil || len(r.Violations) == 0 {
		return nil
	}
	var items []heldItem
	items = append(items, t.rejectedWrites()...)
	items = append(items, t.refusedReads()...)
	items = append(items, t.clientChecks()...)
	sortItems(items)
	return items
}

// freedByExpiry: a key whose holder had crashed or was paused expired,
// so the lock came free without it.
func (t *timeline) freedByExpiry() []heldItem {
	var out []heldItem
	for _, e := range t.h {
		if e.Kind != sim.KindExpire {
			continue
		}
		o := t.owner(e.Value)
		p, ok := t.pausedAt(o, e.At)
		if o == "" || !ok || p.Kind != spanCrashed {
			continue
		}
		out = append(out, heldItem{Text: e.Key + " on " + e.Actor + " expired at " + fmtT(e.At) + " after " + o +
			" crashed at " + fmtT(p.From) + ": the ttl freed the lock its holder could no longer release", Seqs: []int{e.Seq}})
	}
	return out
}

// keptThroughPause and keyOutlivedRelease are the two sides of a pause.

// keyOutlivedRelease: a holder's release did not reach the node in time
// (it paused, or its message was held up), so its key lived on until it
// expired, with nobody holding the lock, while other clients waited.
func (t *timeline) keyOutlivedRelease() []heldItem {
	var out []heldItem
	for _, s := range t.ix.Sections {
		if s.End != history.EndReleased || len(s.Grants) != 1 || s.EndPos < 0 {
			continue
		}
		g := s.Grants[0]
		for _, c := range t.ix.Keys[history.NodeKey{Node: g.Node, Key: g.Key}] {
			if c.Pos <= s.EndPos || c.Value == s.Value {
				continue
			}
			e := t.h[c.Pos]
			if e.Kind != sim.KindExpire {
				break
			}
			// Who waited across the expiry: started before it, acquired after.
			var waited []string
			next := time.Duration(-1)
			for _, a := range t.ix.Acquisitions {
				ae := t.h[a.Pos]
				if a.Client == s.Client || ae.At < e.At || slices.Contains(waited, a.Client) {
					continue
				}
				if st := t.startBefore(a.Pos); st >= 0 && t.h[st].At < e.At {
					waited = append(waited, a.Client)
					if next < 0 {
						next = ae.At
					}
				}
			}
			if len(waited) == 0 {
				break
			}
			slices.Sort(waited)
			out = append(out, heldItem{Text: "the cost: from " + s.Client + "'s release at " + fmtT(s.To) + " the lock had no holder until " + fmtT(next) +
				": " + s.Client + "'s key on " + g.Node + " lived on until it expired at " + fmtT(e.At) + " and kept " + joinAnd(waited) + " waiting",
				Seqs: []int{c.Pos}, Cost: true})
			break
		}
	}
	return out
}

// startBefore returns the position of the acquire-start of the attempt
// that the acquired event at pos ended, or -1.
func (t *timeline) startBefore(pos int) int {
	c := t.h[pos]
	for i := pos - 1; i >= 0; i-- {
		if x := t.h[i]; x.Actor == c.Actor && x.Task == c.Task && x.Kind == history.KindAcquireStart {
			return i
		}
	}
	return -1
}

// keptThroughPause: a holder paused during its hold whose key outlived
// the pause, so that its own release deleted it (a longer TTL, a shorter
// pause): the decisive fact of a run the pause did not break.
func (t *timeline) keptThroughPause() []heldItem {
	var out []heldItem
	for _, s := range t.ix.Sections {
		if s.End != history.EndReleased || len(s.Grants) != 1 || s.EndPos < 0 {
			continue
		}
		var paused time.Duration
		for _, p := range t.ix.Pauses[s.Client] {
			if p.From < s.To && p.To > s.From {
				paused += min(p.To, s.To) - max(p.From, s.From)
			}
		}
		if paused == 0 {
			continue
		}
		g := s.Grants[0]
		// The first change of the key away from the holder's value.
		for _, c := range t.ix.Keys[history.NodeKey{Node: g.Node, Key: g.Key}] {
			if c.Pos <= s.Acq || c.Value == s.Value {
				continue
			}
			e := t.h[c.Pos]
			if c.Pos > s.EndPos && c.Value == "" && e.Kind == sim.KindKey && t.execFor(c.Pos) == s.Client {
				out = append(out, heldItem{Text: s.Client + "'s key on " + g.Node + " never expired while " + s.Client + " held the lock, though " +
					s.Client + " was paused " + short(paused) + " of that hold: " + s.Client + "'s own release deleted it at " + fmtT(e.At),
					Seqs: []int{c.Pos}})
			}
			break
		}
	}
	return out
}

// keptThroughRestart: a node that granted a hold crashed during it and
// came back with the holder's key (its persistence kept it), so the grant
// there survived the crash: the decisive fact of a run whose restart would
// otherwise have lost the key (redsync-186 with --persistence aof-always).
func (t *timeline) keptThroughRestart() []heldItem {
	var out []heldItem
	for _, s := range t.ix.Sections {
		end := s.EndPos
		if end < 0 {
			end = len(t.h) - 1
		}
		for _, g := range s.Grants {
			for _, c := range t.ix.Keys[history.NodeKey{Node: g.Node, Key: g.Key}] {
				e := t.h[c.Pos]
				if c.Pos <= s.Acq || c.Pos > end || c.Value != s.Value || e.Kind != sim.KindKey || e.Note != "restart" {
					continue
				}
				// The crash and the restart before this key event.
				crash, up := -1, -1
				for i := c.Pos - 1; i > s.Acq && (crash < 0 || up < 0); i-- {
					switch x := t.h[i]; {
					case x.Actor == g.Node && x.Kind == sim.KindNodeUp && up < 0:
						up = i
					case x.Actor == g.Node && x.Kind == sim.KindNodeCrash && up >= 0:
						crash = i
					}
				}
				if crash < 0 || up < 0 || !t.ix.Alive(g.Node, g.Key, s.Value, end) {
					continue // the key did not stay the holder's to the hold's end
				}
				how := ""
				if n := t.h[up].Note; n != "" {
					how = " (" + n + ")"
				}
				out = append(out, heldItem{Text: g.Node + " crashed at " + fmtT(t.h[crash].At) + " while " + s.Client + " held the lock and restarted at " +
					fmtT(t.h[up].At) + " with " + s.Client + "'s key" + how + ": the grant there outlived the crash, so " + g.Node +
					" could not be taken from under " + s.Client, Seqs: []int{crash, up, c.Pos}})
			}
		}
	}
	return out
}

// execFor returns the client whose command the node ran just before the
// key change at pos (its exec event at the same instant), or "".
func (t *timeline) execFor(pos int) string {
	e := t.h[pos]
	for i := pos - 1; i >= 0 && t.h[i].At == e.At; i-- {
		if x := t.h[i]; x.Kind == sim.KindExec && x.Actor == e.Actor {
			return x.Peer
		}
	}
	return ""
}

// holdSpan words a hold from from to the end of section s: its release,
// or the end of the lease it believed in.
func holdSpan(from time.Duration, s history.Section) string {
	if s.End == history.EndDeadline {
		return fmtT(from) + " until its lease ran out at " + fmtT(s.To)
	}
	return fmtT(from) + " to " + fmtT(s.To)
}

// quorumNote says, for a lock granted by several nodes that lost some of
// its keys during the hold, on which nodes it still lived when the hold
// ended: the majority that kept the others out.
func (t *timeline) quorumNote(s history.Section) string {
	if len(s.Grants) < 2 {
		return ""
	}
	pos := s.EndPos
	if pos < 0 {
		pos = len(t.h) - 1
	}
	var alive, lost []string
	for _, g := range s.Grants {
		if t.ix.Alive(g.Node, g.Key, s.Value, pos) {
			alive = append(alive, g.Node)
		} else {
			lost = append(lost, g.Node)
		}
	}
	if len(lost) == 0 || len(alive) == 0 {
		return ""
	}
	txt := ": when the hold ended " + s.Client + "'s key was gone on " + joinAnd(lost) + " but still lived on " + joinAnd(alive) +
		" (" + strconv.Itoa(len(alive)) + " of the " + strconv.Itoa(len(s.Grants)) + " nodes that granted it)"
	if 2*len(alive) > len(s.Grants) {
		txt += ", so nobody else could gather a majority"
	}
	return txt
}

// heldSection is a titled list of saving events: why a run held, what
// still held in a run that broke, why fencing did not stop a stale write.
type heldSection struct {
	Title string     `json:"title"`
	Items []heldItem `json:"items"`
}

// heldSections returns the report's saving-event sections, in the order
// the reports show them.
func (t *timeline) heldSections(r *model.Result) []heldSection {
	var out []heldSection
	add := func(title string, items []heldItem) {
		if len(items) > 0 {
			out = append(out, heldSection{Title: title, Items: items})
		}
	}
	add("Why it held", t.whyHeld(r))
	add("What still held", t.stillHeld(r))
	add("Why fencing did not stop it", t.fencingTraps(r))
	return out
}

// remarked tells why a lock-value resource accepted the stale write e:
// the writer's own read marked its value again after another client's
// read had marked theirs.
func (t *timeline) remarked(e sim.Event) (heldItem, bool) {
	mine, other := -1, -1
	for i := e.Seq - 1; i >= 0; i-- {
		p := t.h[i]
		if p.Kind != history.KindResRead || p.Value == "" {
			continue
		}
		if mine < 0 && p.Value == e.Value {
			mine = i
			continue
		}
		if mine >= 0 && p.Value != e.Value {
			other = i
			break
		}
	}
	if mine < 0 || other < 0 {
		return heldItem{}, false
	}
	m, o := t.h[mine], t.h[other]
	return heldItem{
		Text: "the resource accepted " + e.Peer + "'s write at " + fmtT(e.At) + " because " + m.Peer + "'s own read at " + fmtT(m.At) +
			" marked its lock value again, after " + o.Peer + "'s read at " + fmtT(o.At) + " had marked " + o.Peer +
			"'s: a random value has no order, so the resource cannot tell a stale holder from a new one (Kleppmann's answer to antirez)",
		Seqs: []int{m.Seq, o.Seq, e.Seq}}, true
}
