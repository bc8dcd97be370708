package history

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unsafe"

	"locksim/sim"
)

// builder holds what the one pass over a history keeps between events.
type builder struct {
	ix *Index
	h  sim.History

	// actors holds every actor's events and the pass's state of it (its
	// unanswered attempt, open section, ...): one lookup per event finds
	// all of it, where a map per piece of state cost one lookup each.
	// The actors that record client-only kinds are the clients, whose
	// Local is a monotonic clock.
	actors map[string]*actorEvents
	recent []namedActor // the first actors of the history, for find
	kinds  []namedKind  // the first kinds seen (kept across Reuse), for kind

	restoring int // actors whose restart is being filled in (restored >= 0)

	// keyLists holds the key changes of the pass by key (keyAt indexes
	// it); finish hands them to Index.Keys.
	keyLists []keyList
	keyAt    map[NodeKey]int

	// grantBuf and nodeBuf are the sections' Grants and Nodes, cut from
	// chunks instead of two allocations per section. Chunks are never
	// reused: a section's slices stay valid after a Reuse.
	grantBuf []Grant
	nodeBuf  []string
}

// keyList is one key's changes in the pass.
type keyList struct {
	k  NodeKey
	ch []KeyChange
}

// actorEvents is one actor's events (positions) and whether it recorded
// a client-only kind, and the builder's state of the actor during the
// pass (positions or indexes, -1 for none).
type actorEvents struct {
	pos    []int
	clock  []reading // the events' clock readings, by pos's index (Index.TrueAt's search)
	drift  int       // the index in pos of the last clock-rate change, -1 if none
	client bool

	pending  int // its unanswered attempt (index in Attempts)
	open     int // its open section (index in Sections)
	paused   int // its open pause (index in Pauses[name])
	crashed  int // its open crash (index in Crashes[name])
	down     int // a node's open down interval (index in Downs[name])
	restored int // the down interval a node's restart is filling in
	lastExec int // a node's last exec event
	prepared int // a client's write event not sent yet
	// requests holds a client's resource requests in flight, in the
	// order sent (FIFO per link): index into Reads (read) or Writes.
	requests []request
	// lastKey is the key of a node's last key change and keyList its
	// index in builder.keyLists, -1: most changes are of the key before.
	lastKey string
	keyList int
}

// reading is an event's Local and At: TrueAt interpolates between two
// without reading the events (216 bytes each, a cache miss apiece).
type reading struct{ local, at time.Duration }

// resetState empties a's state for a new pass.
func (a *actorEvents) resetState() {
	a.pending, a.open, a.paused, a.crashed, a.down, a.restored, a.lastExec, a.prepared = -1, -1, -1, -1, -1, -1, -1, -1
	clear(a.requests)
	a.requests = a.requests[:0]
	a.lastKey, a.keyList = "", -1
}

// actor returns name's events and state, added when new. The few actors
// of a run are searched in a short list first: an event's Actor is most
// often the very string of an earlier event's, which compares by its
// pointer without reading its bytes, and hashing it for the map was a
// tenth of the pass.
func (b *builder) actor(name string) *actorEvents {
	if a := b.find(name); a != nil {
		return a
	}
	a := &actorEvents{pos: make([]int, 0, 64), clock: make([]reading, 0, 64), drift: -1}
	a.resetState()
	b.actors[name] = a
	if len(b.recent) < maxRecentActors {
		b.recent = append(b.recent, namedActor{name, unsafe.StringData(name), a})
	}
	return a
}

// find returns name's events and state, nil if the pass has no entry for
// name yet (an entry is made for an actor's first event of any kind, and
// for a resource answer's Peer; reset keeps the entries of earlier
// passes, and finish keeps only the clients with events).
func (b *builder) find(name string) *actorEvents {
	p := unsafe.StringData(name)
	for i := range b.recent {
		// The entry holds its name, so its bytes live as long as it
		// does: the same pointer and length are the same string.
		if r := &b.recent[i]; r.p == p && len(r.name) == len(name) {
			return r.a
		}
	}
	for i := range b.recent {
		if b.recent[i].name == name {
			return b.recent[i].a
		}
	}
	a := b.actors[name]
	if a != nil && len(b.recent) < maxRecentActors {
		b.recent = append(b.recent, namedActor{name, p, a}) // an actor of an earlier pass
	}
	return a
}

// maxRecentActors bounds builder.recent: past it, actors are looked up in
// the map alone.
const maxRecentActors = 16

type namedActor struct {
	name string
	p    *byte // name's bytes
	a    *actorEvents
}

type request struct {
	write bool
	i     int
}

func newBuilder(ix *Index) *builder {
	return &builder{ix: ix, h: ix.H, actors: map[string]*actorEvents{}, keyAt: map[NodeKey]int{}}
}

// reset empties the builder for a new pass over h (Index.Reuse): each
// actor's state emptied and its positions kept as empty buffers.
func (b *builder) reset(h sim.History) {
	b.h = h
	for _, a := range b.actors {
		a.pos, a.clock, a.drift, a.client = a.pos[:0], a.clock[:0], -1, false
		a.resetState()
	}
	b.recent = b.recent[:0]
	b.restoring = 0
	clear(b.keyLists)
	b.keyLists = b.keyLists[:0]
	clear(b.keyAt)
	b.grantBuf, b.nodeBuf = nil, nil
}

func (b *builder) add(pos int) {
	ix, e := b.ix, &b.h[pos]
	info := b.kind(e.Kind)
	if !info.traffic {
		ix.Marked = append(ix.Marked, pos)
	}
	if info.fault {
		ix.Faults = append(ix.Faults, pos)
	}
	st := b.actor(e.Actor)
	if e.Actor != sim.FaultActor && e.Actor != ResourceName {
		st.pos = append(st.pos, pos)
		st.clock = append(st.clock, reading{e.Local, e.At})
		if e.Kind == sim.KindClockDrift {
			st.drift = len(st.pos) - 1
		}
		if !st.client && info.recorder == sim.ByClient {
			st.client = true
		}
	}
	if b.restoring > 0 && st.restored >= 0 { // a node restarted: most histories have none
		if e.Kind != sim.KindKey || e.Note != "restart" || e.At != ix.Downs[e.Actor][st.restored].To {
			st.restored = -1
			b.restoring--
		}
	}
	switch e.Kind {
	case sim.KindExec:
		st.lastExec = pos
		if c := b.find(e.Peer); c != nil && c.pending >= 0 {
			if at := &ix.Attempts[c.pending]; at.Arrived < 0 && slices.Contains(e.Args, at.Value) {
				at.Arrived = pos
			}
		}
	case sim.KindKey, sim.KindExpire:
		b.keyChange(pos, st)
	case sim.KindNodeCrash:
		ix.Downs[e.Actor] = append(ix.Downs[e.Actor], Down{Span: Span{From: e.At, To: ix.End, FromPos: pos, ToPos: -1}})
		st.down = len(ix.Downs[e.Actor]) - 1
	case sim.KindNodeUp:
		if i := st.down; i >= 0 {
			d := &ix.Downs[e.Actor][i]
			d.To, d.ToPos, d.Ready, d.Restored = e.At, pos, pos, map[string]string{}
			st.down = -1
			if st.restored < 0 {
				b.restoring++
			}
			st.restored = i
		}
	case sim.KindPromote:
		ix.Promotions = append(ix.Promotions, Promotion{Pos: pos, Group: e.Key, Node: e.Actor, Old: e.Peer})
		b.setGroup(e.Actor, e.Key)
		b.setGroup(e.Peer, e.Key)
	case sim.KindSlotMigrate, sim.KindSlotMoved:
		b.addSlotMove(pos)
	case sim.KindDemote:
		b.setGroup(e.Actor, e.Key)
		b.setGroup(e.Peer, e.Key)
	case sim.KindPartition:
		p := Partition{Span: Span{From: e.At, To: e.At + e.Dur, FromPos: pos, ToPos: -1}, Sides: e.Note, Forever: e.Dur == 0}
		if p.Forever {
			p.To = ix.End
		}
		ix.Partitions = append(ix.Partitions, p)
	case sim.KindHeal:
		for i := range ix.Partitions {
			if p := &ix.Partitions[i]; p.Open() && p.Sides == e.Note {
				p.To, p.ToPos = e.At, pos
				break
			}
		}
	case sim.KindPause:
		if st.paused < 0 {
			ix.Pauses[e.Actor] = append(ix.Pauses[e.Actor], Span{From: e.At, To: e.At + e.Dur, FromPos: pos, ToPos: -1})
			st.paused = len(ix.Pauses[e.Actor]) - 1
		} else if p := &ix.Pauses[e.Actor][st.paused]; e.At+e.Dur > p.To {
			p.To = e.At + e.Dur // a pause while paused extends it
		}
	case sim.KindResume:
		b.endPause(e.Actor, st, pos)
	case sim.KindCrash:
		b.endPause(e.Actor, st, pos)
		ix.Crashes[e.Actor] = append(ix.Crashes[e.Actor], Span{From: e.At, To: ix.End, FromPos: pos, ToPos: -1})
		st.crashed = len(ix.Crashes[e.Actor]) - 1
		b.endAttempt(st, pos, AttemptCrashed)
		b.closeSection(st, pos, EndCrashed)
	case sim.KindRestart:
		if i := st.crashed; i >= 0 {
			c := &ix.Crashes[e.Actor][i]
			c.To, c.ToPos = e.At, pos
			st.crashed = -1
		}
	case sim.KindTaskEnd:
		if i := st.pending; i >= 0 && sameTask(ix.Attempts[i].Task, e.Task) {
			b.endAttempt(st, pos, AttemptStopped)
		}
		if i := st.open; i >= 0 && sameTask(ix.Sections[i].Task, e.Task) {
			b.closeSection(st, pos, EndTaskEnded)
		}
	case KindAcquireStart:
		b.endAttempt(st, pos, AttemptOpen) // a new attempt replaces one left unanswered
		ix.Attempts = append(ix.Attempts, Attempt{Client: e.Actor, Task: e.Task, Start: pos, EndPos: -1, Key: e.Key, Value: e.Value,
			Arrived: -1, Granted: -1})
		st.pending = len(ix.Attempts) - 1
	case KindAcquired:
		b.acquired(pos, st)
	case KindAcquireFailed:
		b.endAttempt(st, pos, AttemptFailed)
	case KindRelease:
		if Release(*e).HoldsLeft() <= 0 {
			b.closeSection(st, pos, EndReleased)
		}
	case KindRenew:
		if i := st.open; i >= 0 && Renew(*e).Extended() && Renew(*e).LeaseLeft() != 0 && ix.Sections[i].Value == e.Value {
			ix.Sections[i].addBelief(pos)
		}
	case KindWrite:
		st.prepared = pos
	case sim.KindCall:
		if e.Peer == ResourceName && len(e.Args) > 0 {
			b.resourceCall(pos, st)
		}
	case sim.KindLost:
		// A resource request lost on its way never reaches the resource.
		if e.Peer == ResourceName && strings.HasSuffix(e.Note, "(request)") {
			if q := st.requests; len(q) > 0 {
				st.requests = q[:len(q)-1]
			}
		}
	case KindResRead, KindResWrite:
		b.resourceAnswer(pos)
	}
}

// kindInfo is what one pass over a history asks of each event's kind:
// IsTraffic, IsFault and who records it, in one map lookup instead of
// three (a tenth of the pass).
type kindInfo struct {
	traffic, fault bool
	recorder       sim.Recorders
}

func newKindInfo(k sim.Kind, r sim.Recorders) kindInfo {
	return kindInfo{traffic: IsTraffic(k), fault: IsFault(k), recorder: r}
}

// namedKind is a kind and its kindInfo, in builder.kinds; p is k's bytes.
type namedKind struct {
	k    sim.Kind
	p    *byte
	info kindInfo
}

// maxRecentKinds bounds builder.kinds: past it, kinds are looked up in
// kindInfos alone.
const maxRecentKinds = 16

// kind returns k's kindInfo. A history's events share a few kinds, most
// often the very strings the simulator's constants are: they are searched
// in a short list before the map, whose hashing was a sixth of the pass,
// first by their bytes' address (the entry holds its kind, so the same
// address and length are the same string), which needs no call to compare
// two kinds of one length ("call", "exec", "read").
func (b *builder) kind(k sim.Kind) kindInfo {
	p := unsafe.StringData(string(k))
	for i := range b.kinds {
		if r := &b.kinds[i]; r.p == p && len(r.k) == len(k) {
			return r.info
		}
	}
	for i := range b.kinds {
		if b.kinds[i].k == k {
			return b.kinds[i].info
		}
	}
	info, ok := kindInfos[k]
	if !ok {
		info = newKindInfo(k, 0)
	}
	if len(b.kinds) < maxRecentKinds {
		b.kinds = append(b.kinds, namedKind{k, p, info})
	}
	return info
}

// kindInfos holds every known kind's kindInfo; add computes an unknown
// kind's (no recorder).
var kindInfos = func() map[sim.Kind]kindInfo {
	m := map[sim.Kind]kindInfo{}
	for _, k := range All() {
		m[k.Kind] = newKindInfo(k.Kind, k.Recorder)
	}
	return m
}()

func (b *builder) setGroup(node, group string) {
	if node != "" && group != "" {
		if _, ok := b.ix.groupOf[node]; !ok {
			b.ix.groupOf[node] = group
		}
	}
}

func (b *builder) endPause(client string, st *actorEvents, pos int) {
	if i := st.paused; i >= 0 {
		p := &b.ix.Pauses[client][i]
		p.To, p.ToPos = b.h[pos].At, pos
		st.paused = -1
	}
}

func (b *builder) endAttempt(st *actorEvents, pos int, how AttemptEnd) {
	i := st.pending
	if i < 0 {
		return
	}
	st.pending = -1
	a := &b.ix.Attempts[i]
	if how == AttemptOpen {
		return // replaced by a newer attempt: it stays open
	}
	a.EndPos, a.End = pos, how
}

// acquired handles an acquired event: a new section, or a nested hold.
func (b *builder) acquired(pos int, st *actorEvents) {
	ix, e := b.ix, &b.h[pos]
	start := -1
	if i := st.pending; i >= 0 {
		if a := &ix.Attempts[i]; a.Value == "" || a.Value == e.Value {
			start = a.Start
			b.endAttempt(st, pos, AttemptAcquired)
		}
	}
	a := (*Acquired)(e)
	ix.Acquisitions = append(ix.Acquisitions, Acquisition{Pos: pos, Start: start, Client: e.Actor, Value: e.Value, Token: e.Token,
		Count: a.HoldCount(), Shared: a.Shared()})
	if st.open >= 0 && a.HoldCount() > 1 {
		return // a nested hold inside the open section
	}
	b.closeSection(st, pos, EndReacquired)
	grants, nodes := b.grants(e.Peer, e.Key)
	s := Section{Client: e.Actor, Task: e.Task, Acq: pos, Start: start, From: e.At, EndPos: -1,
		Deadline: NoDeadline, DeadlinePos: -1, Key: e.Key, Value: e.Value, Token: e.Token,
		Nodes: nodes, Grants: grants, Shared: a.Shared(), Wall: a.Wall(), belief: -1, closePos: -1}
	if a.LeaseLeft() != 0 {
		s.belief = pos // Dur < 0: the validity was spent when the client recorded it
	}
	ix.Sections = append(ix.Sections, s)
	st.open = len(ix.Sections) - 1
}

// grants returns splitGrants(peer, key) and its grantNodes, cut from the
// builder's chunks; nil for none.
func (b *builder) grants(peer, key string) ([]Grant, []string) {
	n := strings.Count(peer, ",") + 1
	if cap(b.grantBuf)-len(b.grantBuf) < n {
		b.grantBuf = make([]Grant, 0, max(n, nextChunk(cap(b.grantBuf))))
	}
	if cap(b.nodeBuf)-len(b.nodeBuf) < n {
		b.nodeBuf = make([]string, 0, max(n, nextChunk(cap(b.nodeBuf))))
	}
	g0, n0 := len(b.grantBuf), len(b.nodeBuf)
	b.grantBuf, b.nodeBuf = appendGrants(b.grantBuf, b.nodeBuf, peer, key)
	g1, n1 := len(b.grantBuf), len(b.nodeBuf)
	if g1 == g0 {
		return nil, nil
	}
	return b.grantBuf[g0:g1:g1], b.nodeBuf[n0:n1:n1]
}

// grantChunk is the longest chunk builder.grants cuts from. Chunks start
// at 8 and double: a check run grants a handful of times, and a first
// chunk of 256 (12 KB) was a fifth of its bytes.
const grantChunk = 256

// nextChunk is the length of the chunk after one of length last.
func nextChunk(last int) int { return min(max(8, 2*last), grantChunk) }

func (b *builder) closeSection(st *actorEvents, pos int, how SectionEnd) {
	i := st.open
	if i < 0 {
		return
	}
	s := &b.ix.Sections[i]
	s.closeAt, s.closePos, s.closeHow = b.h[pos].At, pos, how
	st.open = -1
}

// keyChange records a key event (or expiry) on node (st).
func (b *builder) keyChange(pos int, st *actorEvents) {
	ix, e := b.ix, &b.h[pos]
	kl := b.keyList(st, e.Actor, e.Key)
	ch := b.keyLists[kl].ch
	c := KeyChange{Pos: pos, Value: e.Value, Cause: e.Note, ExecPos: -1}
	if n := len(ch); n > 0 {
		c.Was = ch[n-1].Value
	}
	if e.Kind == sim.KindExpire {
		c.Was, c.Value, c.Cause = e.Value, "", "expired"
	}
	if x := st.lastExec; x >= 0 && b.h[x].At == e.At && c.Cause != "node crashed" && c.Cause != "restart" {
		c.By, c.ExecPos = b.h[x].Peer, x
		if len(b.h[x].Args) > 0 {
			c.Cmd = strings.ToUpper(b.h[x].Args[0])
		}
	}
	if c.ExecPos >= 0 {
		if by := b.find(c.By); by != nil && by.pending >= 0 {
			if at := &ix.Attempts[by.pending]; at.Granted < 0 && HoldsLease(c.Value, at.Value) {
				at.Granted = c.ExecPos // the first grant of the attempt's value
			}
		}
	}
	b.keyLists[kl].ch = append(ch, c)
	if r := st.restored; r >= 0 && e.Kind == sim.KindKey && e.Note == "restart" {
		if e.Value != "" {
			ix.Downs[e.Actor][r].Restored[e.Key] = e.Value
		}
		ix.Downs[e.Actor][r].Ready = pos
	}
}

// keyList returns the index in keyLists of key's changes on node (st),
// added when new: in the last history's slice for the key (Reuse),
// emptied.
func (b *builder) keyList(st *actorEvents, node, key string) int {
	if st.keyList >= 0 && st.lastKey == key {
		return st.keyList
	}
	k := NodeKey{node, key}
	i, ok := b.keyAt[k]
	if !ok {
		i = len(b.keyLists)
		b.keyLists = append(b.keyLists, keyList{k, b.ix.keySpare[k]})
		b.keyAt[k] = i
	}
	st.lastKey, st.keyList = key, i
	return i
}

func (b *builder) resourceCall(pos int, st *actorEvents) {
	ix, e := b.ix, &b.h[pos]
	cmd := e.Args[0]
	if cmd != "READ" && cmd != "WRITE" { // package model's own spelling: no copy to compare
		cmd = strings.ToUpper(cmd)
	}
	switch cmd {
	case "READ":
		ix.Reads = append(ix.Reads, Read{Client: e.Actor, Sent: pos, Served: -1})
		st.requests = append(st.requests, request{false, len(ix.Reads) - 1})
	case "WRITE":
		w := Write{Client: e.Actor, Prepared: -1, Sent: pos, Applied: -1}
		if p := st.prepared; p >= 0 {
			pe := &b.h[p]
			w.Prepared, w.Token, w.Value, w.N = p, pe.Token, pe.Value, pe.N
			st.prepared = -1
		}
		ix.Writes = append(ix.Writes, w)
		st.requests = append(st.requests, request{true, len(ix.Writes) - 1})
	}
}

// resourceAnswer matches a res-read or res-write to the client's oldest
// request in flight: the link from a client to the resource is FIFO.
func (b *builder) resourceAnswer(pos int) {
	ix, e := b.ix, &b.h[pos]
	write := e.Kind == KindResWrite
	st := b.actor(e.Peer)
	q := st.requests
	j := slices.IndexFunc(q, func(r request) bool { return r.write == write })
	if j < 0 {
		// No request was seen (a history cut or written by hand): the
		// answer stands for itself, with the write the client prepared.
		if write {
			w := Write{Client: e.Peer, Prepared: -1, Sent: -1}
			if p := st.prepared; p >= 0 {
				w.Prepared = p
				st.prepared = -1
			}
			ix.Writes = append(ix.Writes, w)
			j, q = len(q), append(q, request{true, len(ix.Writes) - 1})
		} else {
			ix.Reads = append(ix.Reads, Read{Client: e.Peer, Sent: -1})
			j, q = len(q), append(q, request{false, len(ix.Reads) - 1})
		}
	}
	r := q[j]
	st.requests = slices.Delete(q, j, j+1)
	if write {
		w := &ix.Writes[r.i]
		w.Applied, w.Accepted = pos, e.Reply == "(integer) 1"
		w.Token, w.Value, w.N = e.Token, e.Value, ValueOf(*e)
		return
	}
	rd := &ix.Reads[r.i]
	rd.Served, rd.N, rd.Refused = pos, ValueOf(*e), strings.HasPrefix(e.Reply, "(error)")
}

// finish closes what the history left open and computes the sections'
// deadlines, which need the clients' whole clock readings.
func (b *builder) finish() {
	ix := b.ix
	for _, l := range b.keyLists {
		ix.Keys[l.k] = l.ch
	}
	for c, a := range b.actors {
		if a.client && len(a.pos) > 0 { // an actor of an earlier history (Reuse) has none
			ix.clientPos[c] = a.pos
			ix.clients[c] = a
		}
	}
	out := slices.Grow(ix.spare[:0], len(ix.Sections))
	revived := false
	for _, s := range ix.Sections {
		n := len(out)
		out = ix.settle(out, s)
		revived = revived || len(out)-n > 1
	}
	if revived {
		// Ordered by start, as the overlap scans need; a revived hold
		// starts at its renewal, after its client's earlier holds.
		slices.SortStableFunc(out, func(a, b Section) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Acq, b.Acq)) })
	}
	ix.Sections, ix.spare = out, ix.Sections[:0]
}

// settle ends a section as its close and its beliefs say: at its release
// (or crash, task end, new acquisition, the end of the history), or
// earlier at the deadline its last belief before then set. A successful
// renewal that came back after the belief had run out revives it: the
// client believes again what its library reported (a validity-checking
// caller writes again), so the lapsed hold ends at its deadline and a
// revived one (Revived, Acq the renew event) starts at the renewal. A
// renewal with a spent validity (Dur < 0) revives nothing, and neither does
// one a careful caller did not believe (Dur 0: package model's workload
// records that for a renewal after its own deadline).
// It appends the sections to out and returns it.
func (ix *Index) settle(out []Section, s Section) []Section {
	s.To, s.EndPos, s.End = s.closeAt, s.closePos, s.closeHow
	if s.closePos < 0 {
		s.To, s.End = ix.End, EndHistory
	}
	first, beliefs := s.belief, s.beliefs
	s.belief, s.beliefs = -1, nil
	cur := s
	for i := -1; i < len(beliefs); i++ {
		p := first
		if i >= 0 {
			p = beliefs[i]
		} else if p < 0 {
			continue
		}
		e := ix.H[p]
		if s.closePos >= 0 && p > s.closePos {
			break
		}
		if cur.Deadline != NoDeadline && e.At >= cur.Deadline {
			if e.Kind != KindRenew || Renew(e).LeaseLeft() <= 0 {
				break
			}
			cur.To, cur.End, cur.EndPos = max(cur.Deadline, cur.From), EndDeadline, cur.DeadlinePos
			out = append(out, cur)
			cur = s
			cur.From, cur.Acq, cur.Start, cur.Revived = e.At, p, -1, true
			cur.Deadline, cur.DeadlinePos = NoDeadline, -1
		}
		if s.Wall {
			cur.Deadline, cur.DeadlinePos = ix.TrueAtWall(s.Client, p, LeaseLeft(e)), p
		} else {
			cur.Deadline, cur.DeadlinePos = ix.TrueAt(s.Client, e.Local+LeaseLeft(e)), p
		}
	}
	if cur.Deadline != NoDeadline && cur.Deadline < cur.To {
		cur.To, cur.End, cur.EndPos = max(cur.Deadline, cur.From), EndDeadline, cur.DeadlinePos
	}
	return append(out, cur)
}

// sameTask compares task names, "" standing for "main".
func sameTask(a, b string) bool {
	if a == "" {
		a = "main"
	}
	if b == "" {
		b = "main"
	}
	return a == b
}

// Grants reads an acquired event's Peer: "r1,r2" (each node granted key)
// or "r1/lock1,r1/lock2" (a node and the key it granted).
func Grants(peer, key string) []Grant { return splitGrants(peer, key) }

func splitGrants(peer, key string) []Grant {
	gs, _ := appendGrants(nil, nil, peer, key)
	return gs
}

// grantNodes returns the distinct nodes of grants, in order.
func grantNodes(gs []Grant) []string {
	var out []string
	for _, g := range gs {
		if !slices.Contains(out, g.Node) {
			out = append(out, g.Node)
		}
	}
	return out
}

// appendGrants appends peer's grants to gs and their distinct new nodes
// (distinct among those appended now) to nodes: the one reading of an
// acquired event's Peer, for Grants and the index pass alike.
func appendGrants(gs []Grant, nodes []string, peer, key string) ([]Grant, []string) {
	n0 := len(nodes)
	for s := range strings.SplitSeq(peer, ",") {
		if s = strings.TrimSpace(s); s != "" {
			g := Grant{Node: s, Key: key}
			if node, k, ok := strings.Cut(s, "/"); ok {
				g = Grant{Node: node, Key: k}
			}
			gs = append(gs, g)
			if !slices.Contains(nodes[n0:], g.Node) {
				nodes = append(nodes, g.Node)
			}
		}
	}
	return gs, nodes
}

// GrantPeer renders grants as an acquired event's Peer: a node alone when
// it granted key, node/key when it granted another key.
func GrantPeer(key string, nodes, keys []string) string {
	var b strings.Builder
	for i, n := range nodes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
		if i < len(keys) && keys[i] != "" && keys[i] != key {
			b.WriteString("/" + keys[i])
		}
	}
	return b.String()
}
