package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"locksim/model"
	"locksim/model/history"
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
	// A danger map's zones (danger.go): from a point of the fault-free run
	// to the actor's next, what one fault there breaks.
	spanDangerNone     = "danger-none"
	spanDangerLiveness = "danger-liveness"
	spanDangerLease    = "danger-lease"
	spanDangerData     = "danger-data"
)

// Mark kinds: something that happens at one instant.
const (
	markAcquired       = "acquired"
	markReacquired     = "reacquired"
	markAcquireFailed  = "acquire-failed"
	markLeaseLost      = "lease-lost"
	markWritePrepared  = "write-prepared" // a write prepared here, sent later
	markWrite          = "write"          // a write with no outcome recorded
	markWriteOK        = "write-ok"       // the resource accepted it
	markWriteRejected  = "write-rejected" // the resource rejected it
	markRelease        = "release"
	markReleased       = "released"
	markRenew          = "renew"
	markRenewFailed    = "renew-failed"
	markWatchdogStop   = "watchdog-stop"
	markCrash          = "crash"
	markRestart        = "restart"
	markClockJump      = "clock-jump"
	markClockDrift     = "clock-drift"
	markError          = "error"
	markExpired        = "expired"
	markDeleted        = "deleted"
	markEvicted        = "evicted"
	markNodeCrash      = "node-crash"
	markNodeUp         = "node-up"
	markPromote        = "promote"
	markDemote         = "demote"
	markResOK          = "res-ok"
	markResRejected    = "res-rejected"
	markResRead        = "res-read"
	markResReadRefused = "res-read-refused"
	markHeal           = "heal"
	markNetDelay       = "net-delay"
	markNetDrop        = "net-drop"
	markNodeStall      = "node-stall"
	markNodeResume     = "node-resume"
	markStarve         = "starve"
	markStarveEnd      = "starve-end"
)

// markMemoryPressure marks a memory-pressure fault's burst on its node.
const markMemoryPressure = "memory-pressure"

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
	// Lost, on a held span, is when its lease was gone (cause.go): from
	// then on the client believed it held the lock but did not.
	Lost time.Duration `json:"lost_ns,omitempty"`
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
	// rank is the event's place in the telling order plus one (order: a
	// fault before the expiries it caused at one instant); 0: Seq's.
	rank int
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

// link joins a write's instants: where the client prepared it, where its
// request left and where the resource answered it (its res-ok or
// res-rejected mark on the resource row). Only writes the resource
// answered have one.
type link struct {
	Client string `json:"client"`
	// Prepared equals Sent when the write event and the request share an
	// instant or the client recorded no write event.
	Prepared time.Duration `json:"prepared_ns"`
	Sent     time.Duration `json:"sent_ns"`
	Applied  time.Duration `json:"applied_ns"`
	Accepted bool          `json:"accepted"`
	Detail   string        `json:"detail"`
	// Seq is the write event (the request when there is none).
	Seq int `json:"seq"`
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

// timeline is the drawable form of a run, shared by Text and HTML. It is
// drawn from the run's history.Index, so its critical sections, pauses and
// key lifetimes are exactly those the checkers judged.
type timeline struct {
	// waitTexts words the WAIT replies listed as key events (waitReplies).
	waitTexts map[int]string
	End       time.Duration `json:"end_ns"`
	Lanes     []lane        `json:"lanes"`
	Windows   []window      `json:"windows"`
	Links     []link        `json:"links"`
	Key       []keyEvent    `json:"key_events"`
	// Hits are the commands that changed another client's key; Story the
	// span the violations' stories cover (cause.go).
	Hits  []hit      `json:"hits,omitempty"`
	Story *storySpan `json:"story,omitempty"`

	ix       *history.Index
	clients  []string
	nodes    []string
	lockKeys map[string]bool
	cited    map[int]bool
	h        sim.History
	writeAt  map[int]int // history position of a write event -> its index in ix.Writes (writeOf)
	ord      []int       // history positions in telling order (order)
	rank     []int       // history position -> place in ord + 1 (rankOf)
}

// build turns a result into lanes, windows and key events.
func build(r *model.Result) *timeline {
	ix := history.New(r.History)
	t := &timeline{
		Lanes:    []lane{},
		Windows:  []window{},
		Links:    []link{},
		Key:      []keyEvent{},
		ix:       ix,
		lockKeys: map[string]bool{},
		cited:    map[int]bool{},
		h:        r.History,
		End:      ix.End,
	}
	for _, v := range r.Violations {
		for _, s := range v.Events {
			t.cited[s] = true
		}
	}
	t.findActors(r)
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
		w := window{Index: i + 1, Invariant: string(v.Invariant), Clients: v.Clients, From: v.From, To: v.To}
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
	t.waitTexts = t.waitReplies()
	t.Key = t.keyEvents(nil)
	t.markLost(r)
	t.findHits()
	t.findStory(r)
	return t
}

// findActors collects the clients (spec order first), the Redis nodes
// (natural order) and the lock keys.
func (t *timeline) findActors(r *model.Result) {
	isClient := map[string]bool{}
	acted := t.ix.Clients()
	for _, c := range r.Spec.Clients {
		if isClient[c] {
			continue
		}
		// A real client's process run as several goroutines
		// (realclient.WithGoroutines) acts as A.1, A.2: their rows stand
		// in its place.
		var gs []string
		for _, a := range acted {
			if strings.HasPrefix(a, c+".") && !slices.Contains(acted, c) {
				gs = append(gs, a)
			}
		}
		slices.SortFunc(gs, cmpNat)
		if len(gs) == 0 {
			gs = []string{c}
		}
		for _, g := range gs {
			if !isClient[g] {
				isClient[g] = true
				t.clients = append(t.clients, g)
			}
		}
		isClient[c] = true
	}
	var extra []string
	for _, c := range t.ix.Clients() {
		if !isClient[c] {
			isClient[c] = true
			extra = append(extra, c)
		}
	}
	slices.SortFunc(extra, cmpNat)
	t.clients = append(t.clients, extra...)
	for _, a := range t.ix.Attempts {
		t.lockKeys[a.Key] = true
	}
	for _, s := range t.ix.Sections {
		t.lockKeys[s.Key] = true
		for _, g := range s.Grants {
			t.lockKeys[g.Key] = true // the keys of a lock of several keys on one node (lock1..lock3)
		}
	}
	delete(t.lockKeys, "")
	// Keys a node set to an attempt's value are lock keys too, acquired or
	// not (a lock of several keys on one node: lock1..lock3).
	onNode := map[string]bool{}
	for k, ch := range t.ix.Keys {
		onNode[k.Key] = true
		for _, c := range ch {
			if c.By != "" && t.ix.Owner(c.Value) != "" { // a lock value some attempt drew
				t.lockKeys[k.Key] = true
				break
			}
		}
	}
	// Draw only keys some node held, when any was: a lock of several keys
	// has no "lock".
	held := false
	for k := range t.lockKeys {
		held = held || onNode[k]
	}
	for k := range t.lockKeys {
		if held && !onNode[k] {
			delete(t.lockKeys, k)
		}
	}
	isNode := map[string]bool{}
	for _, e := range t.h {
		if info, ok := history.Info(e.Kind); ok && info.Recorder == sim.ByNode && !isNode[e.Actor] && !isClient[e.Actor] {
			isNode[e.Actor] = true
			t.nodes = append(t.nodes, e.Actor)
		}
	}
	slices.SortFunc(t.nodes, cmpNat)
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
func (t *timeline) owner(v string) string {
	if o := t.ix.Owner(v); o != "" {
		return o
	}
	return ownerOf(nil, v)
}

func (t *timeline) mk(kind string, e sim.Event, owner, label, detail string) mark {
	return mark{Kind: kind, At: e.At, Owner: owner, Label: label, Detail: detail, Seq: e.Seq, Cited: t.cited[e.Seq], rank: t.rankOf(e.Seq)}
}

func tokenLabel(tok int64) string {
	if tok == 0 {
		return ""
	}
	return "token " + itoa(tok)
}

// sectionEndText says how a critical section ended, for its detail.
func sectionEndText(s history.Section) string {
	switch s.End {
	case history.EndDeadline:
		return "; its lease ran out on its own clock at " + fmtT(s.To)
	case history.EndHistory:
		return "; still held when the history ended"
	}
	return "; " + string(s.End) + " at " + fmtT(s.To)
}

// clientLane draws a client: its attempts and critical sections (as the
// checkers judged them), believed leases, pauses and writes.
func (t *timeline) clientLane(c string) lane {
	ix := t.ix
	var lock, lease, pause row
	lock.Name, lease.Name, pause.Name = "lock", "lease", "paused"
	for _, a := range ix.Attempts {
		if a.Client != c {
			continue
		}
		e := t.h[a.Start]
		s := span{Kind: spanAcquiring, From: e.At, To: t.End, Open: true, Owner: c, Seq: e.Seq,
			Detail: c + " tries to acquire " + a.Key + " with value " + a.Value}
		if a.EndPos >= 0 {
			s.To, s.Open = t.h[a.EndPos].At, false
		}
		lock.Spans = append(lock.Spans, s)
	}
	for _, s := range ix.Sections {
		if s.Client != c {
			continue
		}
		e := t.h[s.Acq]
		label := tokenLabel(s.Token)
		lock.Spans = append(lock.Spans, span{Kind: spanHeld, From: s.From, To: s.To, Open: s.End == history.EndHistory,
			Owner: c, Label: label, Seq: e.Seq,
			Detail: c + " holds " + s.Key + " (critical section)" + tokenNote(s.Token) + sectionEndText(s)})
		lock.Marks = append(lock.Marks, t.mk(markAcquired, e, c, label, describe(t, e)))
		if s.Deadline != history.NoDeadline {
			to := s.Deadline
			if s.End != history.EndDeadline && s.End != history.EndHistory {
				to = min(to, s.To) // past the critical section the belief no longer matters
			}
			lease.Spans = append(lease.Spans, span{Kind: spanLease, From: s.From, To: to, Owner: c, Seq: e.Seq,
				Detail: c + " believes its lease runs until " + fmtT(s.Deadline)})
		}
	}
	for _, a := range ix.Acquisitions {
		if a.Client == c && a.Count > 1 {
			lock.Marks = append(lock.Marks, t.mk(markReacquired, t.h[a.Pos], c, "", describe(t, t.h[a.Pos])))
		}
	}
	for _, w := range ix.Writes {
		if w.Client != c || (w.Prepared < 0 && w.Sent < 0) {
			continue
		}
		kind, at := markWrite, w.Sent
		if at < 0 {
			at = w.Prepared
		}
		detail := ""
		if w.Prepared >= 0 {
			detail = describe(t, t.h[w.Prepared])
		} else {
			detail = c + " writes value " + itoa(w.N)
		}
		if w.Applied >= 0 {
			kind = markWriteOK
			if !w.Accepted {
				kind = markWriteRejected
			}
		}
		if times := t.writeTimes(w); times != "" {
			detail += times
		} else if w.Applied >= 0 {
			detail += "; " + describe(t, t.h[w.Applied]) + " at " + fmtT(t.h[w.Applied].At)
		}
		m := t.mk(kind, t.h[at], c, tokenLabel(w.Token), detail)
		if w.Prepared >= 0 {
			m.Seq, m.Cited = t.h[w.Prepared].Seq, t.cited[t.h[w.Prepared].Seq] || t.cited[t.h[at].Seq]
		}
		lock.Marks = append(lock.Marks, m) // drawn where the request left
		if delayedSend(t.h, w) {
			p := t.h[w.Prepared]
			lock.Marks = append(lock.Marks, t.mk(markWritePrepared, p, c, tokenLabel(w.Token), detail))
		}
		if w.Applied >= 0 {
			from := t.h[at].At
			if w.Prepared >= 0 {
				from = t.h[w.Prepared].At
			}
			t.Links = append(t.Links, link{Client: c, Prepared: from, Sent: t.h[at].At, Applied: t.h[w.Applied].At,
				Accepted: w.Accepted, Detail: detail, Seq: m.Seq})
		}
	}
	for _, p := range ix.Pauses[c] {
		e := t.h[p.FromPos]
		pause.Spans = append(pause.Spans, span{Kind: spanPaused, From: p.From, To: p.To, Owner: c, Seq: e.Seq,
			Label: short(p.To - p.From), Detail: describe(t, e) + pauseEnd(p)})
	}
	for _, p := range ix.Crashes[c] {
		e := t.h[p.FromPos]
		pause.Spans = append(pause.Spans, span{Kind: spanCrashed, From: p.From, To: p.To, Open: p.Open(), Owner: c, Seq: e.Seq, Detail: describe(t, e)})
	}
	// The row is named for what it shows: a client that only crashed was
	// never paused.
	switch n := len(ix.Crashes[c]); {
	case n > 0 && len(ix.Pauses[c]) == 0:
		pause.Name = "crashed"
	case n > 0:
		pause.Name = "down"
	}
	for _, pos := range ix.Marked {
		e := t.h[pos]
		if e.Actor != c {
			continue
		}
		kind := ""
		switch e.Kind {
		case history.KindAcquireFailed:
			kind = markAcquireFailed
		case history.KindLeaseLost:
			kind = markLeaseLost
		case history.KindRelease:
			kind = markRelease
		case history.KindReleased:
			kind = markReleased
		case history.KindRenew:
			kind = markRenew
			if !history.Renew(e).Extended() {
				kind = markRenewFailed
			}
		case history.KindWatchdogStop:
			kind = markWatchdogStop
		case sim.KindTaskEnd:
			if e.Note != "" {
				kind = markError
			}
		default:
			kind = faultMark(e, c)
		}
		if kind != "" {
			lock.Marks = append(lock.Marks, t.mk(kind, e, c, "", describe(t, e)))
		}
	}
	sortSpans(lock.Spans)
	sortMarks(lock.Marks)
	sortSpans(pause.Spans)
	l := lane{ID: c, Kind: laneClient, Rows: []row{lock}}
	if len(lease.Spans) > 0 {
		l.Rows = append(l.Rows, lease)
	}
	if len(pause.Spans) > 0 {
		l.Rows = append(l.Rows, pause)
	}
	return l
}

// delayedSend reports whether a write's request left after the instant the
// client prepared it (a pause or a crash between the two, typically).
func delayedSend(h sim.History, w history.Write) bool {
	return w.Prepared >= 0 && w.Sent >= 0 && h[w.Sent].At != h[w.Prepared].At
}

// writeTimes tells a write's instants when its request did not leave the
// moment the client prepared it: "; prepared at X, sent at Y, accepted at
// Z". It is empty otherwise.
func (t *timeline) writeTimes(w history.Write) string {
	if !delayedSend(t.h, w) {
		return ""
	}
	s := "; prepared at " + fmtT(t.h[w.Prepared].At) + ", sent at " + fmtT(t.h[w.Sent].At)
	switch {
	case w.Applied < 0:
		return s + ", never answered by the resource"
	case w.Accepted:
		return s + ", accepted at " + fmtT(t.h[w.Applied].At)
	}
	return s + ", rejected at " + fmtT(t.h[w.Applied].At)
}

// pauseEnd says when a pause really ended, if not as announced.
func pauseEnd(p history.Span) string {
	if p.Open() {
		return ""
	}
	return "; resumed at " + fmtT(p.To)
}

func sortSpans(ss []span) {
	slices.SortStableFunc(ss, func(a, b span) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Seq, b.Seq)) })
}

func sortMarks(ms []mark) {
	rank := func(m mark) int {
		if m.rank > 0 {
			return m.rank
		}
		return m.Seq + 1
	}
	slices.SortStableFunc(ms, func(a, b mark) int { return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(rank(a), rank(b))) })
}

// rankOf returns the place of the event at pos in the telling order,
// plus one.
func (t *timeline) rankOf(pos int) int {
	if t.rank == nil {
		t.rank = make([]int, len(t.h))
		for i, p := range t.order() {
			t.rank[p] = i + 1
		}
	}
	if pos < 0 || pos >= len(t.rank) {
		return 0
	}
	return t.rank[pos]
}

// nodeLane draws a Redis node: each lock key's lifetime, crashes, roles.
func (t *timeline) nodeLane(n string) lane {
	ix := t.ix
	keys := make([]string, 0, len(t.lockKeys))
	for k := range t.lockKeys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([]row, len(keys))
	for i, k := range keys {
		rows[i].Name = k
		ch := ix.Keys[history.NodeKey{Node: n, Key: k}]
		for j, c := range ch {
			e := t.h[c.Pos]
			switch {
			case e.Kind == sim.KindExpire:
				rows[i].Marks = append(rows[i].Marks, t.mk(markExpired, e, t.owner(c.Was), "", describe(t, e)))
			case c.Cause == "evicted":
				rows[i].Marks = append(rows[i].Marks, t.mk(markEvicted, e, "", "", describe(t, e)))
			case c.Value == "" && c.Cause != "node crashed":
				rows[i].Marks = append(rows[i].Marks, t.mk(markDeleted, e, "", "", describe(t, e)))
			}
			if c.Value == "" {
				continue
			}
			s := span{Kind: spanKey, From: e.At, To: t.End, Open: true, Owner: t.owner(c.Value), Label: c.Value, Seq: e.Seq, Detail: describe(t, e)}
			if j+1 < len(ch) {
				s.To, s.Open = t.h[ch[j+1].Pos].At, false
			}
			rows[i].Spans = append(rows[i].Spans, s)
		}
	}
	for _, d := range ix.Downs[n] {
		e := t.h[d.FromPos]
		rows[0].Spans = append(rows[0].Spans, span{Kind: spanDown, From: d.From, To: d.To, Open: d.Open(), Seq: e.Seq, Label: "down", Detail: describe(t, e)})
	}
	for _, pos := range ix.Marked {
		e := t.h[pos]
		if e.Actor != n {
			continue
		}
		kind := map[sim.Kind]string{sim.KindPromote: markPromote, sim.KindDemote: markDemote}[e.Kind]
		if kind == "" {
			kind = faultMark(e, n)
		}
		if kind != "" {
			rows[0].Marks = append(rows[0].Marks, t.mk(kind, e, "", "", describe(t, e)))
		}
	}
	for i := range rows {
		sortSpans(rows[i].Spans)
		sortMarks(rows[i].Marks)
	}
	return lane{ID: n, Kind: laneNode, Rows: rows}
}

// resourceLane draws the protected resource: the writes it applied or
// rejected and the reads it served, where it handled them.
func (t *timeline) resourceLane() (lane, bool) {
	rw := row{Name: "served"}
	for _, w := range t.ix.Writes {
		if w.Applied < 0 {
			continue
		}
		e := t.h[w.Applied]
		kind := markResOK
		if !w.Accepted {
			kind = markResRejected
		}
		detail := describe(t, e)
		if w.Sent >= 0 {
			detail += "; " + w.Client + " sent it at " + fmtT(t.h[w.Sent].At)
			if delayedSend(t.h, w) {
				detail += ", prepared at " + fmtT(t.h[w.Prepared].At)
			}
		}
		rw.Marks = append(rw.Marks, t.mk(kind, e, w.Client, tokenLabel(w.Token), detail))
	}
	for _, r := range t.ix.Reads {
		if r.Served < 0 {
			continue
		}
		e := t.h[r.Served]
		kind := markResRead
		if r.Refused {
			kind = markResReadRefused
		}
		label := ""
		if !r.Refused {
			label = "value " + itoa(r.N)
		}
		rw.Marks = append(rw.Marks, t.mk(kind, e, r.Client, label, describe(t, e)))
	}
	if len(rw.Marks) == 0 {
		return lane{}, false
	}
	sortMarks(rw.Marks)
	return lane{ID: history.ResourceName, Kind: laneResource, Rows: []row{rw}}, true
}

// netLane draws partitions and network fault windows.
func (t *timeline) netLane() (lane, bool) {
	rw := row{Name: "faults"}
	for _, p := range t.ix.Partitions {
		e := t.h[p.FromPos]
		rw.Spans = append(rw.Spans, span{Kind: spanPartition, From: p.From, To: p.To, Open: p.Open() && p.Forever,
			Seq: e.Seq, Label: p.Sides, Detail: describe(t, e)})
	}
	for _, pos := range t.ix.Faults {
		e := t.h[pos]
		kind := faultMark(e, sim.FaultActor)
		if kind != "" {
			rw.Marks = append(rw.Marks, t.mk(kind, e, "", "", describe(t, e)))
		}
	}
	if len(rw.Spans) == 0 && len(rw.Marks) == 0 {
		return lane{}, false
	}
	return lane{ID: "net", Kind: laneNet, Rows: []row{rw}}, true
}

// change returns the key change recorded by the key or expire event at
// pos.
func (t *timeline) change(pos int) (history.KeyChange, bool) {
	e := t.h[pos]
	cs := t.ix.Keys[history.NodeKey{Node: e.Actor, Key: e.Key}]
	// The changes are in history order: a binary search keeps the report
	// linear in the history, however many times one key changes.
	i, found := slices.BinarySearchFunc(cs, pos, func(c history.KeyChange, p int) int { return c.Pos - p })
	if !found {
		return history.KeyChange{}, false
	}
	return cs[i], true
}

// surprising reports whether a change of the lock key on a node is worth
// listing: not a client setting or deleting its own value (its acquire
// and release say that), and not a crash (listed itself).
func (t *timeline) surprising(pos int) bool {
	c, ok := t.change(pos)
	if !ok || c.Cause == "node crashed" {
		return false
	}
	if c.Value != "" {
		return c.By == "" || c.By != t.owner(c.Value)
	}
	return c.Was == "" || c.By == "" || c.By != t.owner(c.Was)
}

// keyEvents selects the events worth listing: acquisitions, expiries,
// pauses, writes, faults, every event a violation cites, and the events
// whose Seq is in also.
func (t *timeline) keyEvents(also map[int]bool) []keyEvent {
	ks := []keyEvent{}
	for _, pos := range t.order() {
		e := t.h[pos]
		if _, wait := t.waitTexts[e.Seq]; !wait && !t.isKey(pos) && !t.cited[e.Seq] && !also[e.Seq] {
			continue
		}
		text := describe(t, e)
		if w, ok := t.waitTexts[e.Seq]; ok {
			text = w
		}
		if e.Kind == history.KindWrite {
			if w, ok := t.writeOf(pos); ok {
				text += t.writeTimes(w)
			}
		}
		ks = append(ks, keyEvent{Seq: e.Seq, At: e.At, Actor: e.Actor, Kind: string(e.Kind), Text: text, Cited: t.cited[e.Seq]})
	}
	return foldReplication(ks)
}

// waitReplies words the WAIT replies "why it held" relies on: each
// client's first short reply to an acquire's WAIT and its first that
// confirmed.
func (t *timeline) waitReplies() map[int]string {
	out := map[int]string{}
	pending := map[string]int{} // actor/task -> its WAIT call's position
	short, ok := map[string]bool{}, map[string]bool{}
	for pos, e := range t.h {
		switch e.Kind {
		case sim.KindCall:
			if len(e.Args) > 1 && strings.EqualFold(e.Args[0], "WAIT") && e.Task == "main" {
				pending[e.Actor+"/"+e.Task] = pos
			}
		case sim.KindReply:
			cp, has := pending[e.Actor+"/"+e.Task]
			if !has {
				continue
			}
			delete(pending, e.Actor+"/"+e.Task)
			want, _ := strconv.Atoi(t.h[cp].Args[1])
			got, err := strconv.Atoi(strings.TrimPrefix(e.Reply, "(integer) "))
			if err != nil {
				continue
			}
			txt := e.Actor + "'s WAIT " + t.h[cp].Args[1] + " to " + e.Peer + " returned " + strconv.Itoa(got)
			switch {
			case got < want && !short[e.Actor]:
				short[e.Actor] = true
				out[e.Seq] = txt + ": fewer replicas than asked for, so " + e.Actor + " gives the key back (the first such reply)"
			case got >= want && !ok[e.Actor]:
				ok[e.Actor] = true
				out[e.Seq] = txt + ": the replica has the key, so " + e.Actor + " holds the lock"
			}
		}
	}
	return out
}

// foldReplication folds a run of replication key changes one node
// applied at one instant (a replica catching up on a backlog): the first
// two and the last are listed, the rest counted on one line.
func foldReplication(ks []keyEvent) []keyEvent {
	repl := func(k keyEvent) bool {
		return k.Kind == string(sim.KindKey) && !k.Cited && strings.HasSuffix(k.Text, "(replication)")
	}
	out := ks[:0:0]
	for i := 0; i < len(ks); {
		j := i
		for j < len(ks) && repl(ks[j]) && ks[j].Actor == ks[i].Actor && ks[j].At == ks[i].At {
			j++
		}
		if j-i < 5 {
			out = append(out, ks[i:max(j, i+1)]...)
			i = max(j, i+1)
			continue
		}
		out = append(out, ks[i], ks[i+1])
		out = append(out, keyEvent{Seq: ks[i+2].Seq, At: ks[i].At, Actor: ks[i].Actor, Kind: ks[i].Kind,
			Text: "... " + strconv.Itoa(j-i-3) + " more replication events at " + fmtT(ks[i].At) + ", the last of them:"})
		out = append(out, ks[j-1])
		i = j
	}
	return out
}

// isKey reports whether the event at pos belongs in the key-events list.
func (t *timeline) isKey(pos int) bool {
	e := t.h[pos]
	if e.Kind == sim.KindEvict && strings.HasPrefix(e.Key, sim.FillKeyPrefix) {
		return false // the filler's own keys making room: not the lock's story
	}
	if _, ok := faultViews[e.Kind]; ok {
		return true // every fault's events
	}
	switch e.Kind {
	case history.KindAcquired, history.KindAcquireFailed, history.KindLeaseLost, history.KindWrite,
		history.KindResWrite, history.KindWatchdogStop,
		sim.KindExpire, sim.KindPromote, sim.KindDemote:
		return true
	case history.KindRelease:
		return history.Release(e).HoldsLeft() == 0
	case history.KindRenew:
		return !history.Renew(e).Extended()
	case sim.KindKey:
		return t.lockKeys[e.Key] && slices.Contains(t.nodes, e.Actor) && t.surprising(pos)
	case sim.KindTaskEnd:
		return e.Note != ""
	}
	return false
}

// pausedAt returns the span during which client c was paused or crashed
// at true time at, if any.
func (t *timeline) pausedAt(c string, at time.Duration) (span, bool) {
	if p, ok := t.ix.PausedAt(c, at); ok {
		return span{Kind: spanPaused, From: p.From, To: p.To}, true
	}
	for _, p := range t.ix.Crashes[c] {
		if p.Covers(at) || p.Open() && at >= p.From {
			return span{Kind: spanCrashed, From: p.From, To: p.To}, true
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
