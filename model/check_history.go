package model

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"locksim/sim"
)

// historyIndex is what the checkers need to know about a history,
// computed once. Positions (pos) are indexes into the history slice, which
// is in (time, sequence) order; violations report the events' Seq numbers.
type historyIndex struct {
	h   sim.History
	end time.Duration // At of the last event (0 for an empty history)

	// keys holds every change of a key's value on a node, in history
	// order: each KindKey event and each KindExpire event (value "").
	keys map[keyOnNode][]keyChange
	// acqs are the acquired events, history order.
	acqs []acqRecord
	// sections are the clients' critical sections, ordered by start.
	sections []critSection
	// pauses are every client's pauses, by client, history order.
	pauses map[string][]pauseSpan
	// owner maps a lock value to the client that acquired (or tried to
	// acquire) with it.
	owner map[string]string
	// promotes are the positions of promotion events, history order.
	promotes []int
	// marked are the positions of every event but request/reply traffic
	// (see isTraffic), history order: what the checkers scan. Skipping
	// the traffic, about half of a history, halves the memory they read.
	marked []int
}

type keyOnNode struct{ node, key string }

// keyChange is one change of a key on a node.
type keyChange struct {
	pos   int
	was   string // the value before: an expiry's Value, else the previous change's
	value string // the value after the change; "" = gone
}

// acqRecord is one acquired event and the acquire-start it completed.
type acqRecord struct {
	pos    int // the acquired event
	start  int // its acquire-start, -1 if none (nested reentrant acquires)
	client string
}

// critSection is a client's critical section: from an acquired event (hold
// count 1) to the release that leaves count 0, the client's crash, the
// end of the task that acquired, or the end of the history.
type critSection struct {
	client string
	acq    int           // pos of the acquired event that opened it
	from   time.Duration // At of acq
	to     time.Duration
	endPos int    // pos of the event that closed it; -1 at the end of the history
	endHow string // "released", "crashed", "stopped", "acquired again", "" at the end
}

// pauseSpan is an interval of true time shown by an event, e.g. a pause.
type pauseSpan struct {
	pos      int
	from, to time.Duration
}

// newIndex indexes h.
func newIndex(h sim.History) *historyIndex {
	ix := &historyIndex{h: h, marked: make([]int, 0, len(h)/2+16), keys: map[keyOnNode][]keyChange{}, pauses: map[string][]pauseSpan{}, owner: map[string]string{}}
	if len(h) > 0 {
		ix.end = h[len(h)-1].At
	}
	pending := map[string]int{} // client -> pos of its unfinished acquire-start
	open := map[string]*critSection{}
	var done []critSection
	closeSection := func(c string, pos int, how string) {
		s := open[c]
		if s == nil {
			return
		}
		s.to, s.endPos, s.endHow = h[pos].At, pos, how
		done = append(done, *s)
		delete(open, c)
	}
	for pos, e := range h {
		if !isTraffic(e.Kind) {
			ix.marked = append(ix.marked, pos)
		}
		switch e.Kind {
		case sim.KindKey, sim.KindExpire:
			k := keyOnNode{e.Actor, e.Key}
			ch := ix.keys[k]
			c := keyChange{pos: pos, value: e.Value}
			if n := len(ch); n > 0 {
				c.was = ch[n-1].value
			}
			if e.Kind == sim.KindExpire {
				c.was, c.value = e.Value, ""
			}
			ix.keys[k] = append(ch, c)
		case sim.KindPromote:
			ix.promotes = append(ix.promotes, pos)
		case sim.KindPause:
			ix.pauses[e.Actor] = append(ix.pauses[e.Actor], pauseSpan{pos: pos, from: e.At, to: ix.resumeAfter(pos)})
		case KindAcquireStart:
			pending[e.Actor] = pos
			if e.Value != "" {
				ix.setOwner(e.Value, e.Actor)
			}
		case KindAcquired:
			ix.setOwner(e.Value, e.Actor)
			start := -1
			if p, ok := pending[e.Actor]; ok && (h[p].Value == "" || h[p].Value == e.Value) {
				start = p
				delete(pending, e.Actor)
			}
			ix.acqs = append(ix.acqs, acqRecord{pos: pos, start: start, client: e.Actor})
			if e.N <= 1 || open[e.Actor] == nil {
				closeSection(e.Actor, pos, "acquired again")
				open[e.Actor] = &critSection{client: e.Actor, acq: pos, from: e.At}
			}
		case KindAcquireFailed:
			delete(pending, e.Actor)
		case KindRelease:
			if e.N <= 0 {
				closeSection(e.Actor, pos, "released")
			}
		case sim.KindCrash:
			delete(pending, e.Actor)
			closeSection(e.Actor, pos, "crashed")
		case sim.KindTaskEnd:
			if p, ok := pending[e.Actor]; ok && sameTaskName(h[p].Task, e.Task) {
				delete(pending, e.Actor)
			}
			if s := open[e.Actor]; s != nil && sameTaskName(h[s.acq].Task, e.Task) {
				closeSection(e.Actor, pos, "stopped")
			}
		}
	}
	for _, c := range sortedClientKeys(open) {
		s := open[c]
		s.to, s.endPos = ix.end, -1
		done = append(done, *s)
	}
	slices.SortFunc(done, func(a, b critSection) int { return a.acq - b.acq })
	ix.sections = done
	return ix
}

// isTraffic reports whether an event kind is request/reply traffic, which
// no checker's scan reads (explanations look traffic up by position).
func isTraffic(kind string) bool {
	switch kind {
	case sim.KindCall, sim.KindReply, sim.KindExec, sim.KindTimeout, sim.KindRefused,
		sim.KindLateReply, sim.KindLost, sim.KindReplApply, sim.KindDiscover, sim.KindMessage:
		return true
	}
	return false
}

// sameTaskName compares task names, "" standing for "main".
func sameTaskName(a, b string) bool {
	if a == "" {
		a = "main"
	}
	if b == "" {
		b = "main"
	}
	return a == b
}

// setOwner records the first client seen with a lock value.
func (ix *historyIndex) setOwner(value, client string) {
	if _, ok := ix.owner[value]; !ok && value != "" {
		ix.owner[value] = client
	}
}

// resumeAfter returns when the pause at pos ended: the client's next
// resume, else its crash, else the pause's own length.
func (ix *historyIndex) resumeAfter(pos int) time.Duration {
	p := ix.h[pos]
	for _, e := range ix.h[pos+1:] {
		if e.Actor == p.Actor && (e.Kind == sim.KindResume || e.Kind == sim.KindCrash) {
			return e.At
		}
	}
	return p.At + p.Dur
}

// pausedAt returns the client's pause covering true time t.
func (ix *historyIndex) pausedAt(client string, t time.Duration) (pauseSpan, bool) {
	for _, p := range ix.pauses[client] {
		if p.from <= t && t < p.to {
			return p, true
		}
	}
	return pauseSpan{}, false
}

// holdsLease reports whether a key's rendered value holds lock value v: equal
// to it, or, for a reentrant hash rendered "field=count,...", with v as a
// field.
func holdsLease(rendered, v string) bool {
	if v == "" || rendered == "" {
		return false
	}
	if rendered == v {
		return true
	}
	for _, f := range strings.Split(rendered, ",") {
		if strings.HasPrefix(f, v+"=") {
			return true
		}
	}
	return false
}

// lastChangeBefore returns the index in changes of the last change before
// pos, or -1 if there is none.
func lastChangeBefore(changes []keyChange, pos int) int {
	return sort.Search(len(changes), func(i int) bool { return changes[i].pos >= pos }) - 1
}

// valueAt returns the value key had on node just before the event at pos.
func (ix *historyIndex) valueAt(node, key string, pos int) string {
	ch := ix.keys[keyOnNode{node, key}]
	if i := lastChangeBefore(ch, pos); i >= 0 {
		return ch[i].value
	}
	return ""
}

// lastLoss returns the index (in the node's changes of key) of the last
// change before pos that took lock value v away from the node, or -1.
func (ix *historyIndex) lastLoss(node, key, v string, pos int) int {
	ch := ix.keys[keyOnNode{node, key}]
	for i := lastChangeBefore(ch, pos); i >= 0; i-- {
		if holdsLease(ch[i].was, v) && !holdsLease(ch[i].value, v) {
			return i
		}
	}
	return -1
}

// grantors returns the nodes that granted the acquisition at pos: its
// Peer list, or, when the design recorded none, the nodes that held its
// value at that moment.
func (ix *historyIndex) grantors(pos int) []string {
	e := ix.h[pos]
	var out []string
	for _, n := range strings.Split(e.Peer, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, k := range sortedNodeKeys(ix.keys) {
		if k.key == e.Key && holdsLease(ix.valueAt(k.node, k.key, pos), e.Value) {
			out = append(out, k.node)
		}
	}
	return out
}

// acquisitionOf returns the last acquired event of client with value v
// before pos, or -1.
func (ix *historyIndex) acquisitionOf(client, v string, pos int) int {
	// Start at the last acquisition before pos: a writer's own is usually
	// one of the last few.
	i := sort.Search(len(ix.acqs), func(i int) bool { return ix.acqs[i].pos >= pos })
	for i--; i >= 0; i-- {
		if a := ix.acqs[i]; a.client == client && ix.h[a.pos].Value == v {
			return a.pos
		}
	}
	return -1
}

// explFact is one sentence of an explanation, anchored at a history
// position so facts print in history order.
type explFact struct {
	pos  int
	text string
}

// renderFacts joins facts in history order with "; ".
func renderFacts(fs []explFact) string {
	slices.SortStableFunc(fs, func(a, b explFact) int { return a.pos - b.pos })
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.text
	}
	return strings.Join(parts, "; ")
}

// seqs returns the distinct Seq numbers of the events at the given
// positions, sorted; negative positions are skipped.
func (ix *historyIndex) seqs(pos ...int) []int {
	var out []int
	for _, p := range pos {
		if p >= 0 {
			out = append(out, ix.h[p].Seq)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// lossFact explains change i of key on node, which took lock value v away:
// how the key went (expiry with the node's clock, deletion and by whom, a
// crash, an eviction, an overwrite), after which clock change, and while
// which pause of v's owner. It returns the fact and the positions of the
// events it cites.
func (ix *historyIndex) lossFact(node, key, v string, i int) (explFact, []int) {
	ch := ix.keys[keyOnNode{node, key}]
	c := ch[i]
	e := ix.h[c.pos]
	owner := ix.owner[v]
	who := "the key"
	if owner != "" {
		who = owner + "'s key"
	}
	at := sim.FormatTime(e.At)
	cited := []int{c.pos}
	var b strings.Builder
	b.WriteString(who + " on " + node)
	switch {
	case e.Kind == sim.KindExpire:
		b.WriteString(" expired at " + at + " (node clock " + sim.FormatTime(e.Local) + ")")
	case e.Note == "node crashed":
		b.WriteString(" was lost when " + node + " crashed at " + at)
	case e.Note == "evicted":
		b.WriteString(" was evicted at " + at)
	case c.value == "":
		b.WriteString(" was deleted at " + at)
		if x := ix.execBefore(c.pos); x >= 0 && len(ix.h[x].Args) > 0 {
			b.WriteString(" by " + ix.h[x].Peer + " (" + strings.ToUpper(ix.h[x].Args[0]) + ")")
			cited = append(cited, x)
		} else if e.Note != "" {
			b.WriteString(" (" + e.Note + ")")
		}
	default:
		b.WriteString(" was replaced at " + at + " by " + c.value)
		if e.Note != "" {
			b.WriteString(" (" + e.Note + ")")
		}
	}
	// A clock change on the node since the value was last written; the
	// simulator records a jump's event just after the expiries it caused.
	if p := ix.clockChange(node, ch, i); p >= 0 && e.Kind == sim.KindExpire {
		x := ix.h[p]
		if x.Kind == sim.KindClockJump {
			b.WriteString(" after " + node + "'s clock jumped by " + x.Dur.String() + " at " + sim.FormatTime(x.At))
		} else {
			ppm := strconv.FormatInt(x.N, 10)
			if x.N > 0 {
				ppm = "+" + ppm
			}
			b.WriteString(" with " + node + "'s clock running at " + ppm + " ppm since " + sim.FormatTime(x.At))
		}
		cited = append(cited, p)
	}
	if p, ok := ix.pausedAt(owner, e.At); ok {
		b.WriteString(" while " + owner + " was paused from " + sim.FormatTime(p.from) + " to " + sim.FormatTime(p.to))
		cited = append(cited, p.pos)
	}
	return explFact{pos: c.pos, text: b.String()}, cited
}

// clockChange returns the clock event of node that explains change i of
// a key: a jump or rate change at the instant of the change (recorded
// just after the expiries it caused) or since the key's previous change,
// else the node's last rate change (a drift lasts), or -1.
func (ix *historyIndex) clockChange(node string, ch []keyChange, i int) int {
	c := ch[i]
	at := ix.h[c.pos].At
	isClock := func(x sim.Event) bool {
		return x.Actor == node && (x.Kind == sim.KindClockJump || x.Kind == sim.KindClockDrift)
	}
	for p := c.pos + 1; p < len(ix.h) && ix.h[p].At == at; p++ {
		if isClock(ix.h[p]) {
			return p
		}
	}
	if i > 0 {
		for p := c.pos - 1; p > ch[i-1].pos; p-- {
			if isClock(ix.h[p]) {
				return p
			}
		}
	}
	for p := c.pos - 1; p >= 0; p-- {
		if x := ix.h[p]; x.Actor == node && x.Kind == sim.KindClockDrift {
			if x.N == 0 {
				return -1 // back to the nominal rate
			}
			return p
		}
	}
	return -1
}

// execBefore returns the exec event on the same node and instant that
// caused the key change at pos, or -1.
func (ix *historyIndex) execBefore(pos int) int {
	e := ix.h[pos]
	for p := pos - 1; p >= 0 && ix.h[p].At == e.At; p-- {
		if x := ix.h[p]; x.Actor == e.Actor && x.Kind == sim.KindExec {
			return p
		}
	}
	return -1
}

// pauseFact describes a pause.
func (ix *historyIndex) pauseFact(client string, p pauseSpan) explFact {
	return explFact{pos: p.pos, text: client + " was paused from " + sim.FormatTime(p.from) + " to " + sim.FormatTime(p.to)}
}

func sortedClientKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func sortedNodeKeys(m map[keyOnNode][]keyChange) []keyOnNode {
	ks := make([]keyOnNode, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b keyOnNode) int {
		if c := strings.Compare(a.node, b.node); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	return ks
}
