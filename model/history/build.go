package history

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"locksim/sim"
)

// builder holds what the one pass over a history keeps between events.
type builder struct {
	ix *Index
	h  sim.History

	pending  map[string]int // client -> its unanswered attempt (index in Attempts)
	open     map[string]int // client -> its open section (index in Sections)
	paused   map[string]int // client -> its open pause (index in Pauses[client])
	crashed  map[string]int // client -> its open crash
	down     map[string]int // node -> its open down interval
	restored map[string]int // node -> the down interval its restart is filling in
	lastExec map[string]int // node -> its last exec event

	// requests holds each client's resource requests in flight, in the
	// order sent (FIFO per link): index into Reads (read) or Writes.
	requests map[string][]request
	prepared map[string]int // client -> its write event not sent yet

	// actors holds every actor's events; the actors that record
	// client-only kinds are the clients, whose Local is a monotonic clock.
	// One map lookup per event (a pointer): two maps cost three.
	actors map[string]*actorEvents
	recent []namedActor // the first actors of the history, for actor
	kinds  []namedKind  // the first kinds seen (kept across Reuse), for kind
}

// actorEvents is one actor's events (positions) and whether it recorded
// a client-only kind.
type actorEvents struct {
	pos    []int
	local  []time.Duration // the events' Local, by pos's index (Index.TrueAt's search)
	drift  int             // the index in pos of the last clock-rate change, -1 if none
	client bool
}

// actor returns name's events, added when new. The few actors of a run
// are searched in a short list first: an event's Actor is most often the
// very string of an earlier event's, which compares without reading its
// bytes, and hashing it for the map was a tenth of the pass.
func (b *builder) actor(name string) *actorEvents {
	for i := range b.recent {
		if b.recent[i].name == name {
			return b.recent[i].a
		}
	}
	a := b.actors[name]
	if a == nil {
		a = &actorEvents{pos: make([]int, 0, 64), local: make([]time.Duration, 0, 64), drift: -1}
		b.actors[name] = a
	}
	if len(b.recent) < maxRecentActors {
		b.recent = append(b.recent, namedActor{name, a})
	}
	return a
}

// maxRecentActors bounds builder.recent: past it, actors are looked up in
// the map alone.
const maxRecentActors = 16

type namedActor struct {
	name string
	a    *actorEvents
}

type request struct {
	write bool
	i     int
}

func newBuilder(ix *Index) *builder {
	return &builder{ix: ix, h: ix.H,
		pending: map[string]int{}, open: map[string]int{}, paused: map[string]int{}, crashed: map[string]int{},
		down: map[string]int{}, restored: map[string]int{}, lastExec: map[string]int{},
		requests: map[string][]request{}, prepared: map[string]int{},
		actors: map[string]*actorEvents{}}
}

// reset empties the builder for a new pass over h (Index.Reuse): its maps
// cleared, each actor's positions kept as empty buffers.
func (b *builder) reset(h sim.History) {
	b.h = h
	clear(b.pending)
	clear(b.open)
	clear(b.paused)
	clear(b.crashed)
	clear(b.down)
	clear(b.restored)
	clear(b.lastExec)
	clear(b.requests)
	clear(b.prepared)
	for _, a := range b.actors {
		a.pos, a.local, a.drift, a.client = a.pos[:0], a.local[:0], -1, false
	}
	b.recent = b.recent[:0]
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
	if e.Actor != sim.FaultActor && e.Actor != ResourceName {
		a := b.actor(e.Actor)
		a.pos = append(a.pos, pos)
		a.local = append(a.local, e.Local)
		if e.Kind == sim.KindClockDrift {
			a.drift = len(a.pos) - 1
		}
		if !a.client && info.recorder == sim.ByClient {
			a.client = true
		}
	}
	if len(b.restored) > 0 { // a node restarted: most histories have none
		if r, ok := b.restored[e.Actor]; ok && (e.Kind != sim.KindKey || e.Note != "restart" || e.At != ix.Downs[e.Actor][r].To) {
			delete(b.restored, e.Actor)
		}
	}
	switch e.Kind {
	case sim.KindExec:
		b.lastExec[e.Actor] = pos
		if i, ok := b.pending[e.Peer]; ok && ix.Attempts[i].Arrived < 0 && slices.Contains(e.Args, ix.Attempts[i].Value) {
			ix.Attempts[i].Arrived = pos
		}
	case sim.KindKey, sim.KindExpire:
		b.keyChange(pos)
	case sim.KindNodeCrash:
		ix.Downs[e.Actor] = append(ix.Downs[e.Actor], Down{Span: Span{From: e.At, To: ix.End, FromPos: pos, ToPos: -1}})
		b.down[e.Actor] = len(ix.Downs[e.Actor]) - 1
	case sim.KindNodeUp:
		if i, ok := b.down[e.Actor]; ok {
			d := &ix.Downs[e.Actor][i]
			d.To, d.ToPos, d.Ready, d.Restored = e.At, pos, pos, map[string]string{}
			delete(b.down, e.Actor)
			b.restored[e.Actor] = i
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
		if _, ok := b.paused[e.Actor]; !ok {
			ix.Pauses[e.Actor] = append(ix.Pauses[e.Actor], Span{From: e.At, To: e.At + e.Dur, FromPos: pos, ToPos: -1})
			b.paused[e.Actor] = len(ix.Pauses[e.Actor]) - 1
		} else if p := &ix.Pauses[e.Actor][b.paused[e.Actor]]; e.At+e.Dur > p.To {
			p.To = e.At + e.Dur // a pause while paused extends it
		}
	case sim.KindResume:
		b.endPause(e.Actor, pos)
	case sim.KindCrash:
		b.endPause(e.Actor, pos)
		ix.Crashes[e.Actor] = append(ix.Crashes[e.Actor], Span{From: e.At, To: ix.End, FromPos: pos, ToPos: -1})
		b.crashed[e.Actor] = len(ix.Crashes[e.Actor]) - 1
		b.endAttempt(e.Actor, pos, AttemptCrashed)
		b.closeSection(e.Actor, pos, EndCrashed)
	case sim.KindRestart:
		if i, ok := b.crashed[e.Actor]; ok {
			c := &ix.Crashes[e.Actor][i]
			c.To, c.ToPos = e.At, pos
			delete(b.crashed, e.Actor)
		}
	case sim.KindTaskEnd:
		if i, ok := b.pending[e.Actor]; ok && sameTask(ix.Attempts[i].Task, e.Task) {
			b.endAttempt(e.Actor, pos, AttemptStopped)
		}
		if i, ok := b.open[e.Actor]; ok && sameTask(ix.Sections[i].Task, e.Task) {
			b.closeSection(e.Actor, pos, EndTaskEnded)
		}
	case KindAcquireStart:
		b.setOwner(e.Value, e.Actor)
		b.endAttempt(e.Actor, pos, AttemptOpen) // a new attempt replaces one left unanswered
		ix.Attempts = append(ix.Attempts, Attempt{Client: e.Actor, Task: e.Task, Start: pos, EndPos: -1, Key: e.Key, Value: e.Value,
			Arrived: -1, Granted: -1})
		b.pending[e.Actor] = len(ix.Attempts) - 1
	case KindAcquired:
		b.acquired(pos)
	case KindAcquireFailed:
		b.endAttempt(e.Actor, pos, AttemptFailed)
	case KindRelease:
		if Release(*e).HoldsLeft() <= 0 {
			b.closeSection(e.Actor, pos, EndReleased)
		}
	case KindRenew:
		if i, ok := b.open[e.Actor]; ok && Renew(*e).Extended() && Renew(*e).LeaseLeft() != 0 && ix.Sections[i].Value == e.Value {
			ix.Sections[i].beliefs = append(ix.Sections[i].beliefs, pos)
		}
	case KindWrite:
		b.prepared[e.Actor] = pos
	case sim.KindCall:
		if e.Peer == ResourceName && len(e.Args) > 0 {
			b.resourceCall(pos)
		}
	case sim.KindLost:
		// A resource request lost on its way never reaches the resource.
		if e.Peer == ResourceName && strings.HasSuffix(e.Note, "(request)") {
			if q := b.requests[e.Actor]; len(q) > 0 {
				b.requests[e.Actor] = q[:len(q)-1]
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

// namedKind is a kind and its kindInfo, in builder.kinds.
type namedKind struct {
	k    sim.Kind
	info kindInfo
}

// maxRecentKinds bounds builder.kinds: past it, kinds are looked up in
// kindInfos alone.
const maxRecentKinds = 16

// kind returns k's kindInfo. A history's events share a few kinds, most
// often the very strings the simulator's constants are, which compare
// without reading their bytes: they are searched in a short list before
// the map, whose hashing was a sixth of the pass.
func (b *builder) kind(k sim.Kind) kindInfo {
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
		b.kinds = append(b.kinds, namedKind{k, info})
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

func (b *builder) setOwner(v, client string) {
	if _, ok := b.ix.owner[v]; !ok && v != "" {
		b.ix.owner[v] = client
	}
}

func (b *builder) endPause(client string, pos int) {
	if i, ok := b.paused[client]; ok {
		p := &b.ix.Pauses[client][i]
		p.To, p.ToPos = b.h[pos].At, pos
		delete(b.paused, client)
	}
}

func (b *builder) endAttempt(client string, pos int, how AttemptEnd) {
	i, ok := b.pending[client]
	if !ok {
		return
	}
	delete(b.pending, client)
	a := &b.ix.Attempts[i]
	if how == AttemptOpen {
		return // replaced by a newer attempt: it stays open
	}
	a.EndPos, a.End = pos, how
}

// acquired handles an acquired event: a new section, or a nested hold.
func (b *builder) acquired(pos int) {
	ix, e := b.ix, &b.h[pos]
	b.setOwner(e.Value, e.Actor)
	start := -1
	if i, ok := b.pending[e.Actor]; ok {
		if a := ix.Attempts[i]; a.Value == "" || a.Value == e.Value {
			start = a.Start
			b.endAttempt(e.Actor, pos, AttemptAcquired)
		}
	}
	a := Acquired(*e)
	ix.Acquisitions = append(ix.Acquisitions, Acquisition{Pos: pos, Start: start, Client: e.Actor, Value: e.Value, Token: e.Token,
		Count: a.HoldCount(), Shared: a.Shared()})
	if _, ok := b.open[e.Actor]; ok && a.HoldCount() > 1 {
		return // a nested hold inside the open section
	}
	b.closeSection(e.Actor, pos, EndReacquired)
	grants := splitGrants(e.Peer, e.Key)
	s := Section{Client: e.Actor, Task: e.Task, Acq: pos, Start: start, From: e.At, EndPos: -1,
		Deadline: NoDeadline, DeadlinePos: -1, Key: e.Key, Value: e.Value, Token: e.Token,
		Nodes: grantNodes(grants), Grants: grants, Shared: a.Shared(), Wall: a.Wall(), closePos: -1}
	if a.LeaseLeft() != 0 {
		s.beliefs = []int{pos} // Dur < 0: the validity was spent when the client recorded it
	}
	ix.Sections = append(ix.Sections, s)
	b.open[e.Actor] = len(ix.Sections) - 1
}

func (b *builder) closeSection(client string, pos int, how SectionEnd) {
	i, ok := b.open[client]
	if !ok {
		return
	}
	s := &b.ix.Sections[i]
	s.closeAt, s.closePos, s.closeHow = b.h[pos].At, pos, how
	delete(b.open, client)
}

// keyChange records a key event (or expiry) on a node.
func (b *builder) keyChange(pos int) {
	ix, e := b.ix, &b.h[pos]
	k := NodeKey{e.Actor, e.Key}
	ch, ok := ix.Keys[k]
	if !ok {
		ch = ix.keySpare[k] // the same key's slice in the last history (Reuse), empty
	}
	c := KeyChange{Pos: pos, Value: e.Value, Cause: e.Note, ExecPos: -1}
	if n := len(ch); n > 0 {
		c.Was = ch[n-1].Value
	}
	if e.Kind == sim.KindExpire {
		c.Was, c.Value, c.Cause = e.Value, "", "expired"
	}
	if x, ok := b.lastExec[e.Actor]; ok && b.h[x].At == e.At && c.Cause != "node crashed" && c.Cause != "restart" {
		c.By, c.ExecPos = b.h[x].Peer, x
		if len(b.h[x].Args) > 0 {
			c.Cmd = strings.ToUpper(b.h[x].Args[0])
		}
	}
	if i, ok := b.pending[c.By]; ok && c.ExecPos >= 0 && ix.Attempts[i].Granted < 0 && HoldsLease(c.Value, ix.Attempts[i].Value) {
		ix.Attempts[i].Granted = c.ExecPos // the first grant of the attempt's value
	}
	ix.Keys[k] = append(ch, c)
	if r, ok := b.restored[e.Actor]; ok && e.Kind == sim.KindKey && e.Note == "restart" && e.Value != "" {
		ix.Downs[e.Actor][r].Restored[e.Key] = e.Value
	}
	if r, ok := b.restored[e.Actor]; ok && e.Kind == sim.KindKey && e.Note == "restart" {
		ix.Downs[e.Actor][r].Ready = pos
	}
}

func (b *builder) resourceCall(pos int) {
	ix, e := b.ix, &b.h[pos]
	cmd := e.Args[0]
	if cmd != "READ" && cmd != "WRITE" { // package model's own spelling: no copy to compare
		cmd = strings.ToUpper(cmd)
	}
	switch cmd {
	case "READ":
		ix.Reads = append(ix.Reads, Read{Client: e.Actor, Sent: pos, Served: -1})
		b.requests[e.Actor] = append(b.requests[e.Actor], request{false, len(ix.Reads) - 1})
	case "WRITE":
		w := Write{Client: e.Actor, Prepared: -1, Sent: pos, Applied: -1}
		if p, ok := b.prepared[e.Actor]; ok {
			pe := b.h[p]
			w.Prepared, w.Token, w.Value, w.N = p, pe.Token, pe.Value, pe.N
			delete(b.prepared, e.Actor)
		}
		ix.Writes = append(ix.Writes, w)
		b.requests[e.Actor] = append(b.requests[e.Actor], request{true, len(ix.Writes) - 1})
	}
}

// resourceAnswer matches a res-read or res-write to the client's oldest
// request in flight: the link from a client to the resource is FIFO.
func (b *builder) resourceAnswer(pos int) {
	ix, e := b.ix, &b.h[pos]
	write := e.Kind == KindResWrite
	q := b.requests[e.Peer]
	j := slices.IndexFunc(q, func(r request) bool { return r.write == write })
	if j < 0 {
		// No request was seen (a history cut or written by hand): the
		// answer stands for itself, with the write the client prepared.
		if write {
			w := Write{Client: e.Peer, Prepared: -1, Sent: -1}
			if p, ok := b.prepared[e.Peer]; ok {
				w.Prepared = p
				delete(b.prepared, e.Peer)
			}
			ix.Writes = append(ix.Writes, w)
			j, q = len(q), append(q, request{true, len(ix.Writes) - 1})
		} else {
			ix.Reads = append(ix.Reads, Read{Client: e.Peer, Sent: -1})
			j, q = len(q), append(q, request{false, len(ix.Reads) - 1})
		}
	}
	r := q[j]
	b.requests[e.Peer] = slices.Delete(q, j, j+1)
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
	beliefs := s.beliefs
	s.beliefs = nil
	cur := s
	for _, p := range beliefs {
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
	var out []Grant
	for n := range strings.SplitSeq(peer, ",") {
		if n = strings.TrimSpace(n); n != "" {
			g := Grant{Node: n, Key: key}
			if node, k, ok := strings.Cut(n, "/"); ok {
				g = Grant{Node: node, Key: k}
			}
			out = append(out, g)
		}
	}
	return out
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
