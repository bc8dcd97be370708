package history

import (
	"slices"
	"strings"
	"sync"
	"time"

	"locksim/sim"
)

// Index is the one reading of a run's history that the checkers, the
// reports and the scenario tests share: who held the lock when (critical
// sections, ended by release, crash, the end of the task, or the client's
// own deadline), what each node's keys held when (with crashes, restarts
// and failovers), pauses and crashes of clients, and the reads and writes
// the resource served. It is built in one pass over the history and only
// reads it.
//
// Positions (pos) are indexes into H, which is in (true time, sequence)
// order; reports and violations cite events by their Seq, which equals the
// position for a history from sim.Run.
type Index struct {
	H   sim.History
	End time.Duration // At of the last event, 0 for an empty history

	// Sections are the critical sections, ordered by their acquired event.
	Sections []Section
	// Acquisitions are every acquired event, nested holds included, in
	// history order.
	Acquisitions []Acquisition
	// Attempts are the acquisitions started (acquire-start) and how each
	// ended, in history order.
	Attempts []Attempt
	// Pauses holds each client's frozen intervals, merged where pauses
	// overlap, in order; Crashes each client's dead intervals.
	Pauses, Crashes map[string][]Span
	// Downs holds each node's down intervals (node-crash to node-up).
	Downs map[string][]Down
	// Keys holds every change of a key on a node, in history order.
	Keys map[NodeKey][]KeyChange
	// Promotions are the failovers, in history order.
	Promotions []Promotion
	// SlotMoves are a cluster's slot migrations, in history order
	// (cluster.go).
	SlotMoves []SlotMove
	// Partitions are the network partitions, in the order they started.
	Partitions []Partition
	// Reads and Writes are the client's resource requests, in the order
	// they were sent.
	Reads  []Read
	Writes []Write
	// Faults are the positions of events that start, end or repair a
	// fault (see IsFault), in history order.
	Faults []int
	// Marked are the positions of every event but request/reply traffic
	// (see IsTraffic), in history order: what a scan for protocol events
	// needs to read.
	Marked []int

	// owner maps a lock value to the client that drew it (Owner), built
	// from Attempts and Acquisitions on Owner's first call: only
	// explanations ask, and a map entry per acquisition in the pass was
	// a twentieth of the checkers' time. ownerBuilt says it is; ownerMu
	// guards both (a mutex of its own: a Derived computation may ask
	// Owner).
	ownerMu    sync.Mutex
	owner      map[string]string
	ownerBuilt bool
	// clientPos holds each client's own events (positions): their Local is
	// the client's monotonic clock, which TrueAt interpolates.
	clientPos map[string][]int
	// clients holds the same positions with each event's Local and At
	// and the last clock-rate change, for TrueAt: its binary search and
	// its interpolation read one small array instead of events (216
	// bytes each, a cache miss), and past a client's last event it no
	// longer scans the client's events backwards for the rate change
	// (that scan was a sixth of the checkers' time in a standard run).
	clients map[string]*actorEvents
	groupOf map[string]string // node -> group, from failover events

	// spare is the other buffer of sections finish settles into, and b
	// the builder: kept for Reuse.
	spare []Section
	b     *builder
	// keySpare holds the last history's key changes, emptied, by key:
	// a key's changes in the next history (Reuse) go into its old
	// slice instead of growing a new one from nothing.
	keySpare map[NodeKey][]KeyChange

	// derived holds Derived's values for this history; Reuse keeps them
	// in prevDerived (for DerivedReusing) and drops those of the history
	// before.
	derivedMu   sync.Mutex
	derived     map[any]any
	prevDerived map[any]any
}

// Derived returns compute's value for key, computed at most once per
// indexed history: checkers that need the same view of a history (the
// liveness points, which the liveness and availability checks and the
// undecided liveness verdict all scan) share one computation. key is
// comparable and names the view, usually an unexported type of the
// package that computes it; the value is read-only once returned.
// Reuse and New start with no values. Safe for concurrent use.
func (ix *Index) Derived(key any, compute func() any) any {
	return ix.DerivedReusing(key, func(any) any { return compute() })
}

// DerivedReusing is Derived with the value compute gave for key on the
// history this index held before its last Reuse (nil if none), which
// nobody reads any more: compute may build the new value in its memory
// (the liveness points are a few hundred KB a run).
func (ix *Index) DerivedReusing(key any, compute func(prev any) any) any {
	ix.derivedMu.Lock()
	defer ix.derivedMu.Unlock()
	if v, ok := ix.derived[key]; ok {
		return v
	}
	prev := ix.prevDerived[key]
	delete(ix.prevDerived, key) // handed over once
	v := compute(prev)
	if ix.derived == nil {
		ix.derived = map[any]any{}
	}
	ix.derived[key] = v
	return v
}

// NodeKey names a key on a node.
type NodeKey struct{ Node, Key string }

// Span is an interval of true time shown by two events.
type Span struct {
	From, To time.Duration
	// FromPos and ToPos are the events that start and end it; ToPos is -1
	// when the span was still open when the history ended (To is then the
	// end the event announced, or the end of the history).
	FromPos, ToPos int
}

// Open reports whether the span had not ended when the history did.
func (s Span) Open() bool { return s.ToPos < 0 }

// Covers reports whether true time t is inside the span [From, To).
func (s Span) Covers(t time.Duration) bool { return s.From <= t && t < s.To }

// New indexes h.
func New(h sim.History) *Index {
	ix := &Index{
		Marked: make([]int, 0, len(h)/2+16),
		Pauses: map[string][]Span{}, Crashes: map[string][]Span{},
		Downs:     map[string][]Down{},
		Keys:      map[NodeKey][]KeyChange{},
		owner:     map[string]string{},
		clientPos: map[string][]int{},
		clients:   map[string]*actorEvents{},
		groupOf:   map[string]string{},
	}
	ix.build(h)
	return ix
}

// Reuse indexes h into ix's memory and returns ix: the same index New
// builds, without allocating it again. ix must be an index nobody reads
// any more: every slice and map it holds is overwritten. A loop of runs
// that keeps only each run's verdicts (model.Verdict) reuses one index.
func (ix *Index) Reuse(h sim.History) *Index {
	*ix = Index{
		Sections: ix.Sections[:0], Acquisitions: ix.Acquisitions[:0], Attempts: ix.Attempts[:0],
		Pauses: ix.Pauses, Crashes: ix.Crashes, Downs: ix.Downs, Keys: ix.keySpare,
		Promotions: ix.Promotions[:0], SlotMoves: ix.SlotMoves[:0], Partitions: ix.Partitions[:0],
		Reads: ix.Reads[:0], Writes: ix.Writes[:0], Faults: ix.Faults[:0], Marked: ix.Marked[:0],
		owner: ix.owner, clientPos: ix.clientPos, clients: ix.clients, groupOf: ix.groupOf,
		spare: ix.spare[:0], b: ix.b, derived: ix.prevDerived, prevDerived: ix.derived, keySpare: ix.Keys,
	}
	// The last history's key changes become the spares, emptied (their
	// strings dropped); spares it did not use are dropped.
	if ix.Keys == nil {
		ix.Keys = map[NodeKey][]KeyChange{}
	}
	for k, ch := range ix.keySpare {
		clear(ch)
		ix.keySpare[k] = ch[:0]
	}
	clear(ix.derived) // the values of the history before the last
	clear(ix.Pauses)
	clear(ix.Crashes)
	clear(ix.Downs)
	clear(ix.Keys)
	clear(ix.owner)
	clear(ix.clientPos)
	clear(ix.clients)
	clear(ix.groupOf)
	ix.build(h)
	return ix
}

// build indexes h into ix, whose slices are empty and maps clear.
func (ix *Index) build(h sim.History) {
	ix.H = h
	if len(h) > 0 {
		ix.End = h[len(h)-1].At
	}
	if ix.b == nil {
		ix.b = newBuilder(ix)
	} else {
		ix.b.reset(h)
	}
	b := ix.b
	for pos := range h {
		b.add(pos)
	}
	b.finish()
}

// WriteAccepted reports whether the resource applied any write: a run where
// none was applied protected nothing, whatever its verdicts.
func (ix *Index) WriteAccepted() bool {
	return slices.ContainsFunc(ix.Writes, func(w Write) bool { return w.Accepted })
}

// IsTraffic reports whether a kind is request/reply traffic (calls,
// replies, executions, losses, replication, discovery, messages, streams
// and their invalidation pushes): events a
// scan for the lock protocol can skip. Explanations look traffic up by
// position.
func IsTraffic(k sim.Kind) bool {
	switch k {
	case sim.KindCall, sim.KindReply, sim.KindExec, sim.KindTimeout, sim.KindRefused,
		sim.KindLateReply, sim.KindLost, sim.KindReplApply, sim.KindDiscover, sim.KindMessage,
		sim.KindDial, sim.KindDialed, sim.KindReset, sim.KindClose, sim.KindInvalidate, sim.KindPush:
		return true
	}
	return false
}

// IsFault reports whether a kind starts, ends or repairs a fault. The last
// such event is when the faults healed. Promotion and demotion count: they
// are the deployment repairing itself after a node fault.
//
// The fault kinds' events are those sim.FaultKindTable lists.
func IsFault(k sim.Kind) bool {
	return k == sim.KindPromote || k == sim.KindDemote || sim.IsFaultEvent(k)
}

// Owner returns the client that acquired (or tried to) with lock value v,
// or "". A reentrant hash rendered "owner=count" is read by its field.
// Safe for concurrent use.
func (ix *Index) Owner(v string) string {
	if v == "" {
		return ""
	}
	owner := ix.owners()
	if c, ok := owner[v]; ok {
		return c
	}
	f := v
	if i := strings.IndexByte(f, ','); i >= 0 {
		f = f[:i]
	}
	if i := strings.LastIndexByte(f, '='); i >= 0 {
		if c, ok := owner[f[:i]]; ok {
			return c
		}
	}
	return ""
}

// owners returns the owner map, built on the first call: each value's
// first acquire-start or acquired event, in history order, names its
// client.
func (ix *Index) owners() map[string]string {
	ix.ownerMu.Lock()
	defer ix.ownerMu.Unlock()
	if ix.ownerBuilt {
		return ix.owner
	}
	if ix.owner == nil {
		ix.owner = map[string]string{}
	}
	set := func(v, client string) {
		if _, ok := ix.owner[v]; !ok && v != "" {
			ix.owner[v] = client
		}
	}
	at, aq := ix.Attempts, ix.Acquisitions // each in history order
	for len(at) > 0 || len(aq) > 0 {
		if len(aq) == 0 || len(at) > 0 && at[0].Start < aq[0].Pos {
			set(at[0].Value, at[0].Client)
			at = at[1:]
		} else {
			set(aq[0].Value, aq[0].Client)
			aq = aq[1:]
		}
	}
	ix.ownerBuilt = true
	return ix.owner
}

// Clients returns every client that recorded an event, sorted.
func (ix *Index) Clients() []string {
	cs := make([]string, 0, len(ix.clientPos))
	for c := range ix.clientPos {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	return cs
}

// Events returns the positions of the events client recorded, in history
// order. The slice is the index's: read it, do not change it.
func (ix *Index) Events(client string) []int { return ix.clientPos[client] }

// PausedAt returns the client's pause covering true time t.
func (ix *Index) PausedAt(client string, t time.Duration) (Span, bool) {
	for _, p := range ix.Pauses[client] {
		if p.Covers(t) {
			return p, true
		}
	}
	return Span{}, false
}

// HoldsLease reports whether a key's rendered value holds lock value v:
// equal to it, or, for a reentrant hash rendered "field=count,...", with v
// as a field.
func HoldsLease(rendered, v string) bool {
	if v == "" || rendered == "" {
		return false
	}
	if rendered == v {
		return true
	}
	for f := range strings.SplitSeq(rendered, ",") {
		if strings.HasPrefix(f, v+"=") {
			return true
		}
	}
	return false
}

// Seqs returns the distinct Seq numbers of the events at the given
// positions, sorted; negative positions are skipped.
func (ix *Index) Seqs(pos ...int) []int {
	var out []int
	for _, p := range pos {
		if p >= 0 && p < len(ix.H) {
			out = append(out, ix.H[p].Seq)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
