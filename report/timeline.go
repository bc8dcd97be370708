package report

import (
	"slices"
	"strings"
	"time"

	"locksim/model"
	"locksim/sim"
)

// The lane kinds of a timeline.
const (
	laneClient   = "client"
	laneNode     = "node"
	laneResource = "resource"
	laneNet      = "net"
)

// Span kinds: something that lasts from From to To.
const (
	spanAcquiring = "acquiring" // acquire-start until acquired or given up
	spanHeld      = "held"      // critical section: acquired until release
	spanLease     = "lease"     // the lease the client believes it has
	spanPaused    = "paused"    // the process is frozen
	spanCrashed   = "crashed"   // the process is dead
	spanKey       = "key"       // a node holds the lock key with one value
	spanDown      = "down"      // a node is down
	spanPartition = "partition" // a network partition
)

// Mark kinds: something that happens at one instant.
const (
	markAcquired      = "acquired"
	markReacquired    = "reacquired"
	markAcquireFailed = "acquire-failed"
	markLeaseLost     = "lease-lost"
	markWrite         = "write"          // a write with no outcome recorded
	markWriteOK       = "write-ok"       // the resource accepted it
	markWriteRejected = "write-rejected" // the resource rejected it
	markRelease       = "release"
	markReleased      = "released"
	markRenew         = "renew"
	markRenewFailed   = "renew-failed"
	markWatchdogStop  = "watchdog-stop"
	markCrash         = "crash"
	markRestart       = "restart"
	markClockJump     = "clock-jump"
	markClockDrift    = "clock-drift"
	markError         = "error"
	markKeySet        = "key-set"
	markExpired       = "expired"
	markDeleted       = "deleted"
	markEvicted       = "evicted"
	markNodeCrash     = "node-crash"
	markNodeUp        = "node-up"
	markPromote       = "promote"
	markDemote        = "demote"
	markResOK         = "res-ok"
	markResRejected   = "res-rejected"
	markHeal          = "heal"
	markNetDelay      = "net-delay"
	markNetDrop       = "net-drop"
)

// span is something that lasts, drawn as a bar. Times are true time.
type span struct {
	Kind string        `json:"kind"`
	From time.Duration `json:"from_ns"`
	To   time.Duration `json:"to_ns"`
	// Open is set when the span was still going when the history ended.
	Open bool `json:"open,omitempty"`
	// Owner is the client a hold, lease or key value belongs to.
	Owner  string `json:"owner,omitempty"`
	Label  string `json:"label,omitempty"`
	Detail string `json:"detail"`
	// Seq is the event that started the span.
	Seq int `json:"seq"`
}

// mark is an instant, drawn as a glyph.
type mark struct {
	Kind   string        `json:"kind"`
	At     time.Duration `json:"at_ns"`
	Owner  string        `json:"owner,omitempty"`
	Label  string        `json:"label,omitempty"`
	Detail string        `json:"detail"`
	Seq    int           `json:"seq"`
	// Cited is set when a violation names this event.
	Cited bool `json:"cited,omitempty"`
}

// row is one line of a lane.
type row struct {
	Name  string `json:"name"`
	Spans []span `json:"spans"`
	Marks []mark `json:"marks"`
}

// lane is one actor: a client, a node, the resource or the network.
type lane struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Rows []row  `json:"rows"`
}

// window is a violation's window in true time.
type window struct {
	Index     int           `json:"index"`
	Invariant string        `json:"invariant"`
	Clients   []string      `json:"clients,omitempty"`
	From      time.Duration `json:"from_ns"`
	To        time.Duration `json:"to_ns"`
}

// keyEvent is one line of the key-events list.
type keyEvent struct {
	Seq   int           `json:"seq"`
	At    time.Duration `json:"at_ns"`
	Actor string        `json:"actor"`
	Kind  string        `json:"kind"`
	Text  string        `json:"text"`
	Cited bool          `json:"cited,omitempty"`
}

// timeline is the drawable form of a run, shared by Text and HTML.
type timeline struct {
	End     time.Duration `json:"end_ns"`
	Lanes   []lane        `json:"lanes"`
	Windows []window      `json:"windows"`
	Key     []keyEvent    `json:"key_events"`

	clients  []string
	nodes    []string
	lockKeys map[string]bool
	values   map[string]string // lock value -> client
	cited    map[int]bool
	paused   map[string][]span // client -> paused and crashed spans
	h        sim.History
}

// nodeKinds are the sim kinds only Redis nodes record.
var nodeKinds = map[string]bool{
	sim.KindExec: true, sim.KindExpire: true, sim.KindKey: true, sim.KindReplApply: true,
	sim.KindPromote: true, sim.KindDemote: true, sim.KindNodeCrash: true, sim.KindNodeUp: true,
	sim.KindEvict: true,
}

// build turns a result into lanes, windows and key events.
func build(r *model.Result) *timeline {
	t := &timeline{
		Lanes:    []lane{},
		Windows:  []window{},
		Key:      []keyEvent{},
		lockKeys: map[string]bool{},
		values:   map[string]string{},
		cited:    map[int]bool{},
		paused:   map[string][]span{},
		h:        r.History,
	}
	for _, v := range r.Violations {
		for _, s := range v.Events {
			t.cited[s] = true
		}
	}
	t.findActors(r)
	for _, e := range r.History {
		t.End = max(t.End, e.At)
	}
	for _, c := range t.clients {
		t.Lanes = append(t.Lanes, t.clientLane(c))
	}
	for _, n := range t.nodes {
		t.Lanes = append(t.Lanes, t.nodeLane(n))
	}
	if l, ok := t.resourceLane(); ok {
		t.Lanes = append(t.Lanes, l)
	}
	if l, ok := t.netLane(); ok {
		t.Lanes = append(t.Lanes, l)
	}
	for i, v := range r.Violations {
		w := window{Index: i + 1, Invariant: v.Invariant, Clients: v.Clients, From: v.From, To: v.To}
		if w.To < w.From {
			w.From, w.To = w.To, w.From
		}
		t.Windows = append(t.Windows, w)
		t.End = max(t.End, w.To)
	}
	for _, l := range t.Lanes {
		for _, rw := range l.Rows {
			for _, s := range rw.Spans {
				if !s.Open {
					t.End = max(t.End, s.To)
				}
			}
		}
	}
	// Open spans run to the end of the picture.
	for li := range t.Lanes {
		for ri := range t.Lanes[li].Rows {
			for si := range t.Lanes[li].Rows[ri].Spans {
				if s := &t.Lanes[li].Rows[ri].Spans[si]; s.Open {
					s.To = t.End
				}
			}
		}
	}
	if t.End <= 0 {
		t.End = time.Millisecond
	}
	t.keyEvents()
	return t
}

// findActors collects the clients (spec order first), the Redis nodes
// (natural order), the lock keys and the lock values of each client.
func (t *timeline) findActors(r *model.Result) {
	isClient := map[string]bool{}
	for _, c := range r.Spec.Clients {
		if !isClient[c] {
			isClient[c] = true
			t.clients = append(t.clients, c)
		}
	}
	isNode := map[string]bool{}
	var extra, nodes []string
	for _, e := range r.History {
		switch e.Kind {
		case model.KindAcquireStart, model.KindAcquired, model.KindAcquireFailed, model.KindLeaseLost,
			model.KindWrite, model.KindRelease, model.KindReleased, model.KindRenew, model.KindRead:
			if e.Key != "" {
				t.lockKeys[e.Key] = true
			}
			if e.Value != "" {
				t.values[e.Value] = e.Actor
			}
			if !isClient[e.Actor] {
				isClient[e.Actor] = true
				extra = append(extra, e.Actor)
			}
		case sim.KindPause, sim.KindCrash, sim.KindRestart:
			if !isClient[e.Actor] {
				isClient[e.Actor] = true
				extra = append(extra, e.Actor)
			}
		}
		if nodeKinds[e.Kind] && e.Actor != model.ResourceName && !isNode[e.Actor] {
			isNode[e.Actor] = true
			nodes = append(nodes, e.Actor)
		}
	}
	slices.SortFunc(extra, cmpNat)
	t.clients = append(t.clients, extra...)
	slices.SortFunc(nodes, cmpNat)
	for _, n := range nodes {
		if !isClient[n] {
			t.nodes = append(t.nodes, n)
		}
	}
	if len(t.lockKeys) == 0 {
		t.lockKeys["lock"] = true
	}
}

func cmpNat(a, b string) int {
	switch {
	case a == b:
		return 0
	case natLess(a, b):
		return -1
	default:
		return 1
	}
}

// owner returns the client a lock value belongs to.
func (t *timeline) owner(v string) string { return ownerOf(t.values, v) }

// trueAt maps a client's monotonic reading to true time by interpolating
// between the client's own events (extrapolating at rate 1 past them).
func (t *timeline) trueAt(client string, local time.Duration) time.Duration {
	var prev *sim.Event
	for i := range t.h {
		e := &t.h[i]
		if e.Actor != client {
			continue
		}
		if e.Local >= local {
			if prev == nil || e.Local == prev.Local {
				return e.At - (e.Local - local)
			}
			f := float64(local-prev.Local) / float64(e.Local-prev.Local)
			return prev.At + time.Duration(f*float64(e.At-prev.At)+0.5)
		}
		prev = e
	}
	if prev == nil {
		return local
	}
	return prev.At + (local - prev.Local)
}

func (t *timeline) mk(kind string, e sim.Event, owner, label, detail string) mark {
	return mark{Kind: kind, At: e.At, Owner: owner, Label: label, Detail: detail, Seq: e.Seq, Cited: t.cited[e.Seq]}
}

// clientLane draws a client: its holds, believed leases, pauses and writes.
func (t *timeline) clientLane(c string) lane {
	var lock, lease, pause row
	lock.Name, lease.Name, pause.Name = "lock", "lease", "paused"
	acquiring, held, crashed, leaseAt := -1, -1, -1, -1
	closeSpan := func(rw *row, i *int, at time.Duration) {
		if *i >= 0 {
			rw.Spans[*i].To = at
			rw.Spans[*i].Open = false
			*i = -1
		}
	}
	open := func(rw *row, s span) int {
		s.Open = true
		rw.Spans = append(rw.Spans, s)
		return len(rw.Spans) - 1
	}
	used := map[int]bool{} // res-write events already matched to a write
	for _, e := range t.h {
		if e.Actor != c {
			continue
		}
		switch e.Kind {
		case model.KindAcquireStart:
			if acquiring < 0 && held < 0 {
				acquiring = open(&lock, span{Kind: spanAcquiring, From: e.At, Owner: c, Seq: e.Seq,
					Detail: c + " tries to acquire " + e.Key + " with value " + e.Value})
			}
		case model.KindAcquired:
			if held >= 0 && e.N > 1 {
				lock.Marks = append(lock.Marks, t.mk(markReacquired, e, c, "", describe(t, e)))
				continue
			}
			closeSpan(&lock, &acquiring, e.At)
			endLease(&lease, &leaseAt, e.At, "acquired again")
			label := ""
			if e.Token != 0 {
				label = "token " + itoa(e.Token)
			}
			held = open(&lock, span{Kind: spanHeld, From: e.At, Owner: c, Label: label, Seq: e.Seq,
				Detail: c + " holds " + e.Key + " (critical section)" + tokenNote(e.Token)})
			lock.Marks = append(lock.Marks, t.mk(markAcquired, e, c, label, describe(t, e)))
			if e.Dur > 0 {
				to := t.trueAt(c, e.Local+e.Dur)
				lease.Spans = append(lease.Spans, span{Kind: spanLease, From: e.At, To: to, Owner: c, Seq: e.Seq,
					Detail: c + " believes its lease runs until " + fmtT(to) + " (monotonic " + fmtT(e.Local+e.Dur) + ")"})
				leaseAt = len(lease.Spans) - 1
			}
		case model.KindAcquireFailed:
			closeSpan(&lock, &acquiring, e.At)
			lock.Marks = append(lock.Marks, t.mk(markAcquireFailed, e, c, "", describe(t, e)))
		case model.KindLeaseLost:
			closeSpan(&lock, &acquiring, e.At)
			lock.Marks = append(lock.Marks, t.mk(markLeaseLost, e, c, "", describe(t, e)))
		case model.KindWrite:
			kind, detail := markWrite, describe(t, e)
			if i, ok := t.outcome(e, used); ok {
				used[i] = true
				o := t.h[i]
				kind = markWriteOK
				if o.N == 0 {
					kind = markWriteRejected
				}
				detail += "; " + describe(t, o) + " at " + fmtT(o.At)
			}
			label := ""
			if e.Token != 0 {
				label = "token " + itoa(e.Token)
			}
			sent := e
			sent.At = t.sendTime(e) // the mark sits where the request left
			lock.Marks = append(lock.Marks, t.mk(kind, sent, c, label, detail))
		case model.KindRelease:
			if e.N > 0 {
				lock.Marks = append(lock.Marks, t.mk(markRelease, e, c, "", describe(t, e)))
				continue
			}
			closeSpan(&lock, &held, e.At)
			endLease(&lease, &leaseAt, e.At, "released")
			lock.Marks = append(lock.Marks, t.mk(markRelease, e, c, "", describe(t, e)))
		case model.KindReleased:
			lock.Marks = append(lock.Marks, t.mk(markReleased, e, c, "", describe(t, e)))
		case model.KindRenew:
			kind := markRenew
			if e.N == 0 {
				kind = markRenewFailed
			} else if e.Dur > 0 && len(lease.Spans) > 0 {
				// A renewal that reports its new lease extends the belief.
				last := &lease.Spans[len(lease.Spans)-1]
				last.To = t.trueAt(c, e.Local+e.Dur)
				last.Detail = c + " believes its lease runs until " + fmtT(last.To) + " (renewed)"
			}
			lock.Marks = append(lock.Marks, t.mk(kind, e, c, "", describe(t, e)))
		case model.KindWatchdogStop:
			lock.Marks = append(lock.Marks, t.mk(markWatchdogStop, e, c, "", describe(t, e)))
		case sim.KindPause:
			s := span{Kind: spanPaused, From: e.At, To: e.At + e.Dur, Owner: c, Seq: e.Seq,
				Label: short(e.Dur), Detail: describe(t, e)}
			pause.Spans = append(pause.Spans, s)
			t.paused[c] = append(t.paused[c], s)
		case sim.KindCrash:
			closeSpan(&lock, &acquiring, e.At)
			closeSpan(&lock, &held, e.At)
			endLease(&lease, &leaseAt, e.At, "crashed")
			crashed = open(&pause, span{Kind: spanCrashed, From: e.At, Owner: c, Seq: e.Seq, Detail: describe(t, e)})
			lock.Marks = append(lock.Marks, t.mk(markCrash, e, c, "", describe(t, e)))
		case sim.KindRestart:
			closeSpan(&pause, &crashed, e.At)
			lock.Marks = append(lock.Marks, t.mk(markRestart, e, c, "", describe(t, e)))
		case sim.KindClockJump:
			lock.Marks = append(lock.Marks, t.mk(markClockJump, e, c, "", describe(t, e)))
		case sim.KindClockDrift:
			lock.Marks = append(lock.Marks, t.mk(markClockDrift, e, c, "", describe(t, e)))
		case sim.KindTaskEnd:
			if e.Note != "" {
				lock.Marks = append(lock.Marks, t.mk(markError, e, c, "", describe(t, e)))
			}
		}
	}
	for _, s := range pause.Spans {
		if s.Kind == spanCrashed {
			t.paused[c] = append(t.paused[c], s)
		}
	}
	l := lane{ID: c, Kind: laneClient, Rows: []row{lock}}
	if len(lease.Spans) > 0 {
		l.Rows = append(l.Rows, lease)
	}
	if len(pause.Spans) > 0 {
		l.Rows = append(l.Rows, pause)
	}
	return l
}

// endLease ends the current believed-lease span at a release or crash if
// the lease would outlast it: past the critical section the belief no
// longer matters.
func endLease(rw *row, i *int, at time.Duration, why string) {
	if *i < 0 {
		return
	}
	if s := &rw.Spans[*i]; s.To > at {
		s.Detail += "; " + why + " at " + fmtT(at)
		s.To = at
	}
	*i = -1
}

// outcome finds the resource's answer to a client's write: the first
// unmatched res-write for the same client and lock value at or after it.
func (t *timeline) outcome(w sim.Event, used map[int]bool) (int, bool) {
	for i, e := range t.h {
		if e.Kind == model.KindResWrite && e.Peer == w.Actor && e.At >= w.At && !used[i] &&
			(e.Value == w.Value || e.Value == "") && (w.Token == 0 || e.Token == w.Token) {
			return i, true
		}
	}
	return 0, false
}

// sendTime is when the client actually sent the write it prepared at w (a
// pause can hold the request back): its next WRITE call to the resource.
func (t *timeline) sendTime(w sim.Event) time.Duration {
	for _, e := range t.h[w.Seq+1:] {
		if e.Actor == w.Actor && e.Kind == sim.KindCall && e.Peer == model.ResourceName && len(e.Args) > 0 && e.Args[0] == "WRITE" {
			return e.At
		}
	}
	return w.At
}

// nodeLane draws a Redis node: the lock key's lifetime, crashes, roles.
func (t *timeline) nodeLane(n string) lane {
	keys := make([]string, 0, len(t.lockKeys))
	for k := range t.lockKeys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([]row, len(keys))
	cur := make([]int, len(keys))
	for i, k := range keys {
		rows[i].Name = k
		cur[i] = -1
	}
	rowOf := func(k string) int { return slices.Index(keys, k) }
	down := -1
	closeKey := func(i int, at time.Duration) {
		if cur[i] >= 0 {
			rows[i].Spans[cur[i]].To = at
			rows[i].Spans[cur[i]].Open = false
			cur[i] = -1
		}
	}
	for _, e := range t.h {
		if e.Actor != n {
			continue
		}
		switch e.Kind {
		case sim.KindKey:
			i := rowOf(e.Key)
			if i < 0 {
				continue
			}
			closeKey(i, e.At)
			if e.Value == "" {
				if e.Note != "node crashed" {
					rows[i].Marks = append(rows[i].Marks, t.mk(markDeleted, e, "", "", describe(t, e)))
				}
				continue
			}
			o := t.owner(e.Value)
			rows[i].Spans = append(rows[i].Spans, span{Kind: spanKey, From: e.At, Open: true, Owner: o,
				Label: e.Value, Seq: e.Seq, Detail: describe(t, e)})
			cur[i] = len(rows[i].Spans) - 1
		case sim.KindExpire:
			i := rowOf(e.Key)
			if i < 0 {
				continue
			}
			closeKey(i, e.At)
			rows[i].Marks = append(rows[i].Marks, t.mk(markExpired, e, t.owner(e.Value), "", describe(t, e)))
		case sim.KindEvict:
			if i := rowOf(e.Key); i >= 0 {
				closeKey(i, e.At)
				rows[i].Marks = append(rows[i].Marks, t.mk(markEvicted, e, "", "", describe(t, e)))
			}
		case sim.KindNodeCrash:
			for i := range rows {
				closeKey(i, e.At)
			}
			rows[0].Spans = append(rows[0].Spans, span{Kind: spanDown, From: e.At, Open: true, Seq: e.Seq,
				Label: "down", Detail: describe(t, e)})
			down = len(rows[0].Spans) - 1
			rows[0].Marks = append(rows[0].Marks, t.mk(markNodeCrash, e, "", "", describe(t, e)))
		case sim.KindNodeUp:
			if down >= 0 {
				rows[0].Spans[down].To = e.At
				rows[0].Spans[down].Open = false
				down = -1
			}
			rows[0].Marks = append(rows[0].Marks, t.mk(markNodeUp, e, "", "", describe(t, e)))
		case sim.KindPromote:
			rows[0].Marks = append(rows[0].Marks, t.mk(markPromote, e, "", "", describe(t, e)))
		case sim.KindDemote:
			rows[0].Marks = append(rows[0].Marks, t.mk(markDemote, e, "", "", describe(t, e)))
		case sim.KindClockJump:
			rows[0].Marks = append(rows[0].Marks, t.mk(markClockJump, e, "", "", describe(t, e)))
		case sim.KindClockDrift:
			rows[0].Marks = append(rows[0].Marks, t.mk(markClockDrift, e, "", "", describe(t, e)))
		}
	}
	return lane{ID: n, Kind: laneNode, Rows: rows}
}

// resourceLane draws the protected resource's accepted and rejected writes.
func (t *timeline) resourceLane() (lane, bool) {
	rw := row{Name: "writes"}
	for _, e := range t.h {
		if e.Kind != model.KindResWrite {
			continue
		}
		kind := markResOK
		if e.N == 0 {
			kind = markResRejected
		}
		label := ""
		if e.Token != 0 {
			label = "token " + itoa(e.Token)
		}
		rw.Marks = append(rw.Marks, t.mk(kind, e, e.Peer, label, describe(t, e)))
	}
	if len(rw.Marks) == 0 {
		return lane{}, false
	}
	return lane{ID: model.ResourceName, Kind: laneResource, Rows: []row{rw}}, true
}

// netLane draws partitions and network fault windows.
func (t *timeline) netLane() (lane, bool) {
	rw := row{Name: "faults"}
	openParts := map[string][]int{} // sides -> open partition spans
	for _, e := range t.h {
		switch e.Kind {
		case sim.KindPartition:
			s := span{Kind: spanPartition, From: e.At, Seq: e.Seq, Label: e.Note, Detail: describe(t, e)}
			if e.Dur > 0 {
				s.To = e.At + e.Dur
			} else {
				s.Open = true
			}
			rw.Spans = append(rw.Spans, s)
			openParts[e.Note] = append(openParts[e.Note], len(rw.Spans)-1)
		case sim.KindHeal:
			if ix := openParts[e.Note]; len(ix) > 0 {
				s := &rw.Spans[ix[0]]
				s.To, s.Open = e.At, false
				openParts[e.Note] = ix[1:]
			}
			rw.Marks = append(rw.Marks, t.mk(markHeal, e, "", "", describe(t, e)))
		case sim.KindNetDelay:
			rw.Marks = append(rw.Marks, t.mk(markNetDelay, e, "", "", describe(t, e)))
		case sim.KindNetDrop:
			rw.Marks = append(rw.Marks, t.mk(markNetDrop, e, "", "", describe(t, e)))
		}
	}
	if len(rw.Spans) == 0 && len(rw.Marks) == 0 {
		return lane{}, false
	}
	return lane{ID: "net", Kind: laneNet, Rows: []row{rw}}, true
}

// surprising reports whether a change of the lock key on a node is worth
// listing: not a client setting its own value or deleting its own value
// (its acquire and release say that), and not a crash (listed itself).
func (t *timeline) surprising(e sim.Event) bool {
	if e.Note == "node crashed" {
		return false
	}
	by := t.changedBy(e)
	if e.Value != "" {
		return by == "" || by != t.owner(e.Value)
	}
	old := t.keyBefore(e)
	return old == "" || by == "" || by != t.owner(old)
}

// changedBy returns the client whose command a node executed at the
// instant of a key event, or "" when the change came from no command.
func (t *timeline) changedBy(e sim.Event) string {
	for i := e.Seq - 1; i >= 0 && i < len(t.h); i-- {
		p := t.h[i]
		if p.At != e.At {
			break
		}
		if p.Actor == e.Actor && p.Kind == sim.KindExec {
			return p.Peer
		}
	}
	return ""
}

// keyBefore returns the value a key had on a node just before event e.
func (t *timeline) keyBefore(e sim.Event) string {
	for i := e.Seq - 1; i >= 0 && i < len(t.h); i-- {
		p := t.h[i]
		if p.Actor == e.Actor && p.Key == e.Key && (p.Kind == sim.KindKey || p.Kind == sim.KindExpire || p.Kind == sim.KindEvict) {
			if p.Kind == sim.KindKey {
				return p.Value
			}
			return ""
		}
	}
	return ""
}

// keyEvents selects the events worth listing: acquisitions, expiries,
// pauses, writes, faults, and every event a violation cites.
func (t *timeline) keyEvents() {
	for _, e := range t.h {
		if !t.isKey(e) && !t.cited[e.Seq] {
			continue
		}
		t.Key = append(t.Key, keyEvent{Seq: e.Seq, At: e.At, Actor: e.Actor, Kind: e.Kind,
			Text: describe(t, e), Cited: t.cited[e.Seq]})
	}
}

// isKey reports whether e belongs in the key-events list.
func (t *timeline) isKey(e sim.Event) bool {
	switch e.Kind {
	case model.KindAcquired, model.KindAcquireFailed, model.KindLeaseLost, model.KindWrite,
		model.KindResWrite, model.KindWatchdogStop,
		sim.KindExpire, sim.KindEvict, sim.KindPause, sim.KindResume, sim.KindCrash, sim.KindRestart,
		sim.KindNodeCrash, sim.KindNodeUp, sim.KindPartition, sim.KindHeal, sim.KindNetDelay,
		sim.KindNetDrop, sim.KindClockJump, sim.KindClockDrift, sim.KindPromote, sim.KindDemote:
		return true
	case model.KindRelease:
		return e.N == 0
	case model.KindRenew:
		return e.N == 0
	case sim.KindKey:
		return t.lockKeys[e.Key] && slices.Contains(t.nodes, e.Actor) && t.surprising(e)
	case sim.KindTaskEnd:
		return e.Note != ""
	}
	return false
}

// pausedAt returns the span during which client c was paused or crashed
// at true time at, if any.
func (t *timeline) pausedAt(c string, at time.Duration) (span, bool) {
	for _, s := range t.paused[c] {
		to := s.To
		if s.Open {
			to = t.End
		}
		if s.From <= at && at < to {
			return s, true
		}
	}
	return span{}, false
}

func tokenNote(tok int64) string {
	if tok == 0 {
		return ""
	}
	return " with token " + itoa(tok)
}

// joinAnd joins words as "A", "A and B", "A, B and C".
func joinAnd(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}
