package model_test

import (
	"cmp"
	"flag"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// oracleRuns is how many random runs TestCheckersAgreeWithTheOracle makes;
// `make long` raises it to 100000.
var oracleRuns = flag.Int("oracle.runs", 2000, "random runs for the checker/oracle agreement test")

// oracle decides every invariant from the live world while a run goes, as
// an independent check of the checkers, which decide them afterwards from
// the recorded history through history.Index. The oracle learns *that*
// something happened from the event the world just recorded, and reads
// *what is true now* from the world itself: a client's monotonic clock for
// its deadline, a node's keyspace (or, while the node is down, what it had
// when it was last up), the sentinel's primary of a group, the resource's
// value. It shares no code with the checkers.
type oracle struct {
	cfg    invariant.Config
	rule   model.Fencing
	broken map[invariant.ID]bool

	open     map[string]*belief           // client -> its open critical section
	byValue  map[string]*belief           // lock value -> the section acquired with it
	lastSeen map[string]map[string]string // node -> key -> its value when the node was last up
	keys     []string                     // every key a node has held, in the order first seen
	slotHome map[int]string               // on a cluster: slot -> the node its keys last moved to

	// fifo: each client's acquisition in progress, and the order in
	// which acquisitions reached a node
	waits   map[string]*wait
	arrival int

	grants     map[int64]string // token -> the value first granted it
	seenGrant  map[string]bool
	maxGrant   int64
	maxAtStart map[string]int64 // client -> largest grant when its attempt started
	inAttempt  map[string]bool

	resValue, maxAccepted int64
	maxValue              string         // of the accepted writes with maxAccepted, the newest acquisition's lock value
	grantOrder            map[string]int // lock value -> the order its acquisition was granted in

	counts map[string]int64 // reentrant hold counts

	// liveness, decided at the end from what was live when
	w           *sim.World
	healAt      time.Duration
	pausedUntil map[string]time.Duration // a pause's announced end
	pauseEnds   map[string]time.Duration
	forever     map[string]int  // partitions and delays that never end, not healed
	crashed     map[string]bool // nodes that crashed
	// stalled nodes, from their stall to their resume: a stalled node
	// gives up no key until it serves again (the keys whose TTL ran out
	// go at the resume), so its holds are what it had when it stalled.
	stalled   map[string]bool
	live      []livePoint
	holds     []hold // closed holds
	seq       int    // orders points: 2k+1 for the k-th point, 2k for a hold starting just before it
	lastFault time.Duration
	lastEvent time.Duration

	// premature-loss: when each client's current attempt started (event
	// Seq), and the faults that may end a lease by themselves, as seen.
	attemptSeq  map[string]int
	leaseFaults []leaseFault
	// offClock are the nodes and clients whose configured clock runs
	// off true time's rate (or a node's that steps).
	offClock map[string]bool

	// acquire-deadline: each client's acquisition in progress, and each
	// client's pauses as [from, to) (to -1 while paused).
	tries      map[string]*try
	pauseSpans map[string][][2]time.Duration
	// starveSpans: each client's task's starvations ("A/main"), [from, to).
	starveSpans map[string][][2]time.Duration

	// available: the partitions in force (note -> sides), the clients
	// down, the windows of delays and drops (their ends), a fault for
	// good, and the tolerance seen at each fault event and window end.
	parts       map[string][2][]string
	clientDown  map[string]bool
	windowEnds  []time.Duration
	spoiled     bool
	tolerations []toleration
}

// toleration is whether, from instant at on, the active faults were all
// ones the design tolerates; order places it among the points of its
// instant (a window's end comes before them).
type toleration struct {
	at    time.Duration
	order int
	ok    bool
	// onset: a node-crash, node-stall or partition began, which restarts
	// a Sentinel setup's recovery (Config.Failover).
	onset bool
}

// try is an acquisition in progress for acquire-deadline: its task, the
// monotonic reading its deadline falls at and that reading's true instant
// as projected at the last event before the clock passed it, and the
// intervals its task waited on a request.
type try struct {
	task               string
	monoDeadline       time.Duration
	deadline, callFrom time.Duration // callFrom -1: no request outstanding
	calls              [][2]time.Duration
}

// leaseFault is a fault that may end a lease early by itself: a clock
// step or rate change (of a node or a client), a node crash or restart, an
// eviction, a failover.
type leaseFault struct {
	seq   int
	at    time.Duration
	actor string
	kind  sim.Kind
}

// wait is an acquisition in progress, for FIFO: when its first request
// reached a node, and whether a node has granted it yet.
type wait struct {
	value   string
	arrived int // 0: not yet
	granted bool
}

type belief struct {
	client, task, key, value string
	grants                   []history.Grant
	// unseen are the primaries that held the value when the client
	// acquired without being among its grants (their replies were lost).
	unseen       []history.Grant
	shared, wall bool
	deadline     time.Duration // monotonic (wall: the wall clock since the epoch), -1 for none
	open         bool
	// the hold being timed for liveness
	holding             bool
	holdFrom, holdUntil time.Duration // holdUntil: the deadline's true instant, -1 none
	holdOrder           int
	// premature-loss: the Seq of the acquire-start of its attempt; a
	// granting node was down when it acquired; a renewal reported
	// failure; the instant its lease was found lost while believed (-1:
	// not lost, -2: decided).
	attemptSeq        int
	downAtStart, told bool
	lostAt            time.Duration
}

type livePoint struct {
	at                time.Duration
	order             int // events keep their order; deadlines come first at an instant
	trying, holding   int
	acquired, isFault bool
}

func newOracle(s model.Spec) *oracle {
	return &oracle{cfg: s.CheckConfig(), rule: s.Fencing, broken: map[invariant.ID]bool{},
		open: map[string]*belief{}, byValue: map[string]*belief{}, lastSeen: map[string]map[string]string{},
		waits:  map[string]*wait{},
		grants: map[int64]string{}, seenGrant: map[string]bool{}, maxAtStart: map[string]int64{},
		inAttempt: map[string]bool{}, counts: map[string]int64{},
		pausedUntil: map[string]time.Duration{}, pauseEnds: map[string]time.Duration{}, forever: map[string]int{}, crashed: map[string]bool{}, stalled: map[string]bool{}, grantOrder: map[string]int{},
		attemptSeq: map[string]int{}, offClock: offClocks(s), tries: map[string]*try{}, pauseSpans: map[string][][2]time.Duration{},
		parts: map[string][2][]string{}, clientDown: map[string]bool{}, slotHome: map[int]string{}}
}

// home is where a lease granted by node on key lives now: node, or on a
// cluster the node a slot migration last moved the key's slot to.
func (o *oracle) home(node, key string) string {
	if n, ok := o.slotHome[sim.KeySlot(key)]; ok {
		return n
	}
	return node
}

func (o *oracle) believes(w *sim.World, b *belief) bool {
	return b != nil && b.open && (b.deadline < 0 || o.clientNow(w, b) < b.deadline)
}

// clientNow reads the clock b's lease is budgeted on: the client's wall
// clock for a wall lease, else its monotonic clock.
func (o *oracle) clientNow(w *sim.World, b *belief) time.Duration {
	if b.wall {
		return w.ClientLocal(b.client)
	}
	return w.ClientMono(b.client)
}

// holds reports whether node holds lock value v for key now: read live
// when the node is serving; while it is down or stalled, what it had when
// it last served (nobody can take the lock there meanwhile).
func (o *oracle) nodeHolds(w *sim.World, node, key, v string) bool {
	val := o.lastSeen[node][key]
	if o.serving(w, node) {
		val = w.NodeValue(node, key)
	}
	return history.HoldsLease(val, v)
}

// serving reports whether a node is up and not stalled.
func (o *oracle) serving(w *sim.World, node string) bool {
	return w.NodeUp(node) && !o.stalled[node]
}

func (o *oracle) observe(w *sim.World, e sim.Event) {
	o.lastEvent = e.At
	if sim.KeysMovedBy(e) {
		o.slotHome[int(e.N)] = e.Actor
	}
	switch e.Kind {
	case sim.KindNodeStall:
		o.stalled[e.Actor] = true
	case sim.KindNodeResume, sim.KindNodeCrash:
		o.stalled[e.Actor] = false // a crash ends a stall
	}
	if (e.Kind == sim.KindKey || e.Kind == sim.KindExpire) && !slices.Contains(o.keys, e.Key) {
		o.keys = append(o.keys, e.Key)
	}

	if o.serving(w, e.Actor) {
		seen := o.lastSeen[e.Actor]
		if seen == nil {
			seen = map[string]string{}
			o.lastSeen[e.Actor] = seen
		}
		for _, k := range o.keys {
			seen[k] = w.NodeValue(e.Actor, k)
		}
	}
	o.w = w
	if history.IsFault(e.Kind) {
		end := e.At
		switch e.Kind {
		case sim.KindPause:
			end = e.At + e.Dur // a resume ends it sooner, or later when extended
			if o.pausedUntil[e.Actor] > end {
				end = o.pausedUntil[e.Actor]
			}
			o.pausedUntil[e.Actor] = end
		case sim.KindResume:
			o.pausedUntil[e.Actor] = e.At
			o.pauseEnds[e.Actor] = e.At
		case sim.KindPartition:
			if e.Dur == 0 {
				o.forever[e.Note]++
			}
			end = e.At + e.Dur
		case sim.KindHeal:
			if o.forever[e.Note] > 0 {
				o.forever[e.Note]--
			}
		case sim.KindNetDelay:
			if e.Dur == 0 {
				o.forever["delay "+e.Note]++
			}
			end = e.At + e.Dur + time.Duration(e.N)
		case sim.KindNetDrop:
			end = e.At + e.Dur
		case sim.KindMemoryPressure:
			// The pressure lasts as long as the burst's keys; for good
			// when they stay or the burst capped the node (the cap stays).
			if e.Dur == 0 {
				o.forever["memory-pressure "+e.Actor]++
			}
			end = e.At + e.Dur
		case sim.KindClockJump:
			// A step back delays the TTLs a node holds, and a client's
			// deadlines when it decides by its wall clock.
			node := w.GroupOf(e.Actor) != ""
			if e.Dur < 0 && (node && o.holdsTTL(w, e.Actor) || !node && o.cfg.ClientWall) {
				end = e.At - e.Dur
			}
		case sim.KindNodeCrash:
			o.crashed[e.Actor] = true
		}
		if e.Kind != sim.KindPause {
			o.healAt = max(o.healAt, end)
		}
		o.lastFault = max(o.lastFault, e.At)
		o.point(e.At, 0, 0, false, true)
	}
	switch e.Kind {
	case sim.KindClockJump, sim.KindClockDrift, sim.KindNodeCrash, sim.KindNodeUp, sim.KindEvict, sim.KindPromote, sim.KindDemote:
		o.leaseFaults = append(o.leaseFaults, leaseFault{e.Seq, e.At, e.Actor, e.Kind})
	}
	o.premature(w, e)
	o.deadlines(w, e)
	o.tolerance(w, e)
	switch e.Kind {
	case sim.KindExec:
		o.fifo(w, e)
		o.nodeGrant(w, e)
	case history.KindAcquireStart:
		o.attemptSeq[e.Actor] = e.Seq
		o.waits[e.Actor] = &wait{value: e.Value}
		o.maxAtStart[e.Actor] = o.maxGrant
		if !o.inAttempt[e.Actor] {
			o.inAttempt[e.Actor] = true
			o.point(e.At, +1, 0, false, false)
		}
	case history.KindAcquireFailed:
		delete(o.waits, e.Actor)
		o.endAttempt(e.At, e.Actor)
	case history.KindAcquired:
		delete(o.waits, e.Actor)
		o.acquired(w, e)
	case history.KindRenew:
		if b := o.open[e.Actor]; b != nil && e.N != 1 && b.value == e.Value && b.lostAt == -1 {
			b.told = true
		}
		if b := o.open[e.Actor]; b != nil && e.N == 1 && e.Dur > 0 && b.value == e.Value && b.deadline >= 0 && o.clientNow(w, b) < b.deadline {
			o.endHold(w, b, false)
			b.deadline = o.clientNow(w, b) + e.Dur
			o.startHold(w, b, e.At)
		}
	case history.KindRelease:
		o.reentrancy(e.Actor, e.N, -1)
		if e.N <= 0 {
			o.close(w, e.Actor)
		}
	case sim.KindCrash:
		delete(o.waits, e.Actor)
		o.endAttempt(e.At, e.Actor)
		o.close(w, e.Actor)
		delete(o.counts, e.Actor)
	case sim.KindRestart:
		delete(o.counts, e.Actor)
	case sim.KindTaskEnd:
		if b := o.open[e.Actor]; b != nil && (b.task == e.Task || b.task == "" && e.Task == "main") {
			o.close(w, e.Actor)
		}
		if e.Task == "" || e.Task == "main" {
			delete(o.waits, e.Actor)
			o.endAttempt(e.At, e.Actor)
		}
	case sim.KindClockDrift, sim.KindClockJump:
		// A rate change moves the instant a believed lease runs out; a
		// step moves it for a lease on the wall clock.
		if b := o.open[e.Actor]; b != nil && o.believes(w, b) && b.deadline >= 0 && (e.Kind == sim.KindClockDrift || b.wall) {
			o.endHold(w, b, false)
			o.startHold(w, b, e.At)
		}
	case history.KindResWrite:
		if e.Reply == "(integer) 1" {
			o.accepted(w, e)
		}
	}
}

// nodeGrant orders acquisitions by where a node first granted them: the
// command after which the node's lock key holds the value of the attempt
// its client is making, which may come long before the client hears of it.
func (o *oracle) nodeGrant(w *sim.World, e sim.Event) {
	a := o.waits[e.Peer]
	if a == nil || !slices.Contains(e.Args, a.value) {
		return
	}
	if _, ok := o.grantOrder[a.value]; !ok && history.HoldsLease(w.NodeValue(e.Actor, "lock"), a.value) {
		o.grantOrder[a.value] = len(o.grantOrder)
	}
}

func (o *oracle) acquired(w *sim.World, e sim.Event) {
	c := e.Actor
	if _, ok := o.grantOrder[e.Value]; !ok {
		o.grantOrder[e.Value] = len(o.grantOrder) // no node grant seen
	}
	o.reentrancy(c, e.N, +1)
	if b := o.open[c]; b != nil && b.open && e.N > 1 {
		return // a nested hold
	}
	// A grant of a token.
	if e.Token > 0 {
		k := e.Value + "\x00" + string(rune(e.Token))
		if !o.seenGrant[k] {
			o.seenGrant[k] = true
			if v, ok := o.grants[e.Token]; ok && v != e.Value {
				o.broken[invariant.TokenUnique] = true
			} else if !ok {
				if o.inAttempt[c] && o.maxAtStart[c] >= e.Token {
					o.broken[invariant.TokenUnique] = true
				}
				o.grants[e.Token] = e.Value
			}
			o.maxGrant = max(o.maxGrant, e.Token)
		}
	}
	shared := history.Acquired(e).Shared()
	for d, b := range o.open {
		if d != c && o.believes(w, b) {
			if !shared && !b.shared {
				o.broken[invariant.MutualExclusion] = true
			}
			if o.cfg.Shared && !(shared && b.shared) {
				o.broken[invariant.RWExclusion] = true
			}
		}
	}
	o.close(w, c)
	o.endAttempt(e.At, c)
	b := &belief{client: c, task: e.Task, key: e.Key, value: e.Value, deadline: -1, open: true,
		shared: shared, wall: history.Acquired(e).Wall(), lostAt: -1, attemptSeq: e.Seq}
	if seq, ok := o.attemptSeq[c]; ok {
		b.attemptSeq = seq
	}
	for _, n := range strings.Split(e.Peer, ",") {
		if n == "" {
			continue
		}
		g := history.Grant{Node: n, Key: e.Key}
		if node, k, ok := strings.Cut(n, "/"); ok {
			g = history.Grant{Node: node, Key: k}
		}
		b.grants = append(b.grants, g)
	}
	if e.Dur > 0 {
		b.deadline = o.clientNow(w, b) + e.Dur
	}
	b.unseen = o.unseenGrants(w, b)
	for _, g := range b.grants {
		if !w.NodeUp(g.Node) {
			b.downAtStart = true
		}
	}
	o.open[c], o.byValue[e.Value] = b, b
	o.startHold(w, b, e.At)
	o.point(e.At, 0, 0, true, false)
}

// accepted judges a write the resource applied: is the writer's lease
// alive now, did it build on the value, is its token allowed?
func (o *oracle) accepted(w *sim.World, e sim.Event) {
	res := w.Service(history.ResourceName).(*model.Resource)
	if e.N != o.resValue+1 {
		o.broken[invariant.LostUpdate] = true
	}
	o.resValue = res.Value
	if e.Token > 0 {
		// Only a nonstrict resource can break fencing: below the largest
		// accepted token, or equal to it from an acquisition granted
		// before the newest one that wrote with it.
		gw, okw := o.grantOrder[e.Value]
		gn, okn := o.grantOrder[o.maxValue]
		if o.rule == model.FenceNonstrict && o.maxAccepted > 0 && (e.Token < o.maxAccepted || e.Token == o.maxAccepted && okw && okn && gw < gn) {
			o.broken[invariant.Fencing] = true
		}
		if e.Token > o.maxAccepted || e.Token == o.maxAccepted && okw && okn && gw > gn {
			o.maxAccepted, o.maxValue = e.Token, e.Value
		}
	}
	b := o.byValue[e.Value]
	if b == nil || b.client != e.Peer {
		o.broken[invariant.StaleWrite] = true
		return
	}
	quorum := max(min(o.cfg.Quorum, len(b.grants)), 1)
	alive := 0
	// Each group counts once, by its primary now: a grant the client saw,
	// or one it did not (its reply lost), which keeps the lock from the
	// others too.
	counted := map[history.Grant]bool{}
	for _, gr := range slices.Concat(b.grants, b.unseen) {
		a := history.Grant{Node: authority(w, o.home(gr.Node, gr.Key)), Key: gr.Key}
		if counted[a] {
			continue
		}
		counted[a] = true
		if o.nodeHolds(w, a.Node, gr.Key, b.value) {
			alive++
		}
	}
	if alive < quorum {
		o.broken[invariant.StaleWrite] = true
	}
}

// holdsTTL reports whether a running node holds any key with a TTL now.
func (o *oracle) holdsTTL(w *sim.World, node string) bool {
	for _, k := range o.keys {
		if w.NodeTTL(node, k) > 0 {
			return true
		}
	}
	return false
}

// authority is the node that answers for n's group now.
func authority(w *sim.World, n string) string {
	if g := w.GroupOf(n); g != "" {
		return w.GroupPrimary(g)
	}
	return n
}

// unseenGrants lists the primaries that hold b's value as b's client
// acquires, without being among its grants.
func (o *oracle) unseenGrants(w *sim.World, b *belief) []history.Grant {
	keys := []string{b.key}
	covered := map[history.Grant]bool{}
	for _, gr := range b.grants {
		covered[history.Grant{Node: authority(w, o.home(gr.Node, gr.Key)), Key: gr.Key}] = true
		if !slices.Contains(keys, gr.Key) {
			keys = append(keys, gr.Key)
		}
	}
	var out []history.Grant
	for _, n := range slices.Sorted(maps.Keys(o.lastSeen)) {
		if authority(w, n) != n {
			continue
		}
		for _, k := range keys {
			if g := (history.Grant{Node: n, Key: k}); !covered[g] && o.nodeHolds(w, n, k, b.value) {
				out = append(out, g)
			}
		}
	}
	return out
}

// fifo watches each command a node executes: the first carrying an
// acquisition's lock value is when it reached Redis; the one after which
// the node's lock key holds the value granted it, and it must not have
// passed a waiter that reached Redis first and was still waiting.
func (o *oracle) fifo(w *sim.World, e sim.Event) {
	a := o.waits[e.Peer]
	if !o.cfg.Fair || a == nil || !slices.Contains(e.Args, a.value) {
		return
	}
	if a.arrived == 0 {
		o.arrival++
		a.arrived = o.arrival
	}
	if a.granted || !history.HoldsLease(w.NodeValue(e.Actor, "lock"), a.value) {
		return
	}
	a.granted = true
	for c, x := range o.waits {
		if c != e.Peer && x.arrived > 0 && x.arrived < a.arrived && !x.granted {
			o.broken[invariant.FIFO] = true
		}
	}
}

func (o *oracle) reentrancy(c string, n, step int64) {
	if !o.cfg.Reentrant {
		return
	}
	if n != o.counts[c]+step {
		o.broken[invariant.Reentrancy] = true
	}
	o.counts[c] = max(n, 0)
}

func (o *oracle) close(w *sim.World, c string) {
	if b := o.open[c]; b != nil && b.lostAt == w.Now() {
		b.lostAt = -2 // lost at the instant its section ended: not premature
	}
	if b := o.open[c]; b != nil && b.open {
		o.endHold(w, b, true)
		b.open = false
	}
	delete(o.open, c)
}

func (o *oracle) endAttempt(at time.Duration, c string) {
	if o.inAttempt[c] {
		delete(o.inAttempt, c)
		o.point(at, -1, 0, false, false)
	}
}

// startHold and endHold record, for liveness, when a client holds: from
// its acquire (or a renewal or rate change that moved its deadline) to its
// close or the instant its deadline passes, whichever comes first.
func (o *oracle) startHold(w *sim.World, b *belief, at time.Duration) {
	o.seq++
	b.holdFrom, b.holdUntil, b.holdOrder = at, -1, 2*o.seq // before the next point

	if b.deadline >= 0 {
		if b.wall {
			b.holdUntil = max(w.ClientTrueAtLocal(b.client, b.deadline), at)
		} else {
			b.holdUntil = max(w.ClientTrueAt(b.client, b.deadline), at)
		}
	}
	b.holding = true
}

func (o *oracle) endHold(w *sim.World, b *belief, closing bool) {
	if !b.holding {
		return
	}
	to := w.Now()
	if b.holdUntil >= 0 {
		to = min(to, b.holdUntil)
	}
	o.holds = append(o.holds, hold{b.holdFrom, to, b.holdOrder})
	b.holding = false
}

// hold is an interval [from, to) a client held the lock; order places its
// start among the points of its instant.
type hold struct {
	from, to time.Duration
	order    int
}

func (o *oracle) point(at time.Duration, trying, holding int, acquired, fault bool) {
	o.seq++
	o.live = append(o.live, livePoint{at: at, order: 2*o.seq + 1, trying: trying, holding: holding, acquired: acquired, isFault: fault})
}

// premature judges, after each event, every believed lease with a
// validity: alive on fewer than the quorum of its grants while its client
// still believes it is a loss; it breaks premature-loss once the instant
// is over (a release or a fault at the same instant may excuse it) unless
// a fault that ends leases by itself acted on the client or a granting
// node, or a renewal had reported failure first.
func (o *oracle) premature(w *sim.World, e sim.Event) {
	if !o.cfg.Validity {
		return
	}
	for _, b := range o.open {
		if b.lostAt >= 0 && e.At > b.lostAt {
			if !o.excused(b, b.lostAt) {
				o.broken[invariant.PrematureLoss] = true
			}
			b.lostAt = -2
		}
		if b.lostAt != -1 || b.told || b.deadline < 0 || len(b.grants) == 0 || !o.believes(w, b) {
			continue
		}
		alive := 0
		for _, g := range b.grants {
			if o.nodeHolds(w, authority(w, o.home(g.Node, g.Key)), g.Key, b.value) {
				alive++
			}
		}
		if alive < max(min(o.cfg.Quorum, len(b.grants)), 1) {
			b.lostAt = e.At
		}
	}
}

// deadlines follows acquisitions for acquire-deadline, from the live
// world: the client's monotonic clock gives each deadline (projected to a
// true instant until the clock passes it), the pauses and requests seen
// are left out of the lateness, which is judged when the acquisition
// returns (or at the end).
func (o *oracle) deadlines(w *sim.World, e sim.Event) {
	if o.cfg.AcquireTolerance <= 0 {
		return
	}
	for c, t := range o.tries { // project each open deadline while not passed
		if w.ClientMono(c) < t.monoDeadline {
			t.deadline = w.ClientTrueAt(c, t.monoDeadline)
		}
	}
	c := e.Actor
	t := o.tries[c]
	taskOf := func(s string) string {
		if s == "" {
			return "main"
		}
		return s
	}
	switch e.Kind {
	case sim.KindStarve: // the task starved, as it announced: excused as a pause
		if o.starveSpans == nil {
			o.starveSpans = map[string][][2]time.Duration{}
		}
		o.starveSpans[c+"/"+taskOf(e.Task)] = append(o.starveSpans[c+"/"+taskOf(e.Task)], [2]time.Duration{e.At, e.At + e.Dur})
	case sim.KindPause:
		if ps := o.pauseSpans[c]; len(ps) == 0 || ps[len(ps)-1][1] >= 0 {
			o.pauseSpans[c] = append(ps, [2]time.Duration{e.At, -1})
		}
	case sim.KindResume, sim.KindCrash:
		if ps := o.pauseSpans[c]; len(ps) > 0 && ps[len(ps)-1][1] < 0 {
			ps[len(ps)-1][1] = e.At
		}
	}
	switch {
	case e.Kind == history.KindAcquireStart:
		delete(o.tries, c)
		if e.Dur > 0 {
			mono := w.ClientMono(c) + e.Dur
			o.tries[c] = &try{task: taskOf(e.Task), monoDeadline: mono, deadline: w.ClientTrueAt(c, mono), callFrom: -1}
		}
	case t == nil || taskOf(e.Task) != t.task && e.Kind != sim.KindCrash:
	case e.Kind == sim.KindCall:
		if t.callFrom < 0 {
			t.callFrom = e.At
		}
	case e.Kind == sim.KindReply || e.Kind == sim.KindTimeout || e.Kind == sim.KindRefused:
		if t.callFrom >= 0 {
			t.calls = append(t.calls, [2]time.Duration{t.callFrom, e.At})
			t.callFrom = -1
		}
	case e.Kind == history.KindAcquired || e.Kind == history.KindAcquireFailed:
		o.judgeTry(c, t, e.At)
		delete(o.tries, c)
	case e.Kind == sim.KindCrash || e.Kind == sim.KindTaskEnd:
		delete(o.tries, c) // not judged
	}
}

// judgeTry decides whether the acquisition t of client c, returning (or
// still waiting) at end, was later than the tolerance.
func (o *oracle) judgeTry(c string, t *try, end time.Duration) {
	if end-t.deadline <= o.cfg.AcquireTolerance {
		return
	}
	// Walk true time from the deadline to the end, counting what is
	// neither paused nor waiting on a request, in steps between the
	// intervals' edges.
	var spans [][2]time.Duration
	for _, p := range o.pauseSpans[c] {
		if p[1] < 0 {
			p[1] = end
		}
		spans = append(spans, p)
	}
	spans = append(spans, o.starveSpans[c+"/"+t.task]...)
	spans = append(spans, t.calls...)
	if t.callFrom >= 0 {
		spans = append(spans, [2]time.Duration{t.callFrom, end})
	}
	edges := []time.Duration{t.deadline, end}
	for _, s := range spans {
		edges = append(edges, s[0], s[1])
	}
	slices.Sort(edges)
	var free time.Duration
	for i := 0; i+1 < len(edges); i++ {
		lo, hi := max(edges[i], t.deadline), min(edges[i+1], end)
		if hi <= lo {
			continue
		}
		covered := slices.ContainsFunc(spans, func(s [2]time.Duration) bool { return s[0] <= lo && hi <= s[1] })
		if !covered {
			free += hi - lo
		}
	}
	if free > o.cfg.AcquireTolerance {
		o.broken[invariant.AcquireDeadline] = true
	}
}

// tolerance follows, for available, which faults are in force, from the
// fault events and the live world (which nodes are up), and records
// whether they are all tolerated after each fault event; a delay or drop
// window's end is recorded at its instant.
func (o *oracle) tolerance(w *sim.World, e sim.Event) {
	if o.cfg.AvailableBound <= 0 || !history.IsFault(e.Kind) {
		return
	}
	switch e.Kind {
	case sim.KindPartition:
		note := strings.NewReplacer(" (one-way)", "", " (blackhole)", "").Replace(e.Note)
		a, b, _ := strings.Cut(note, " | ")
		o.parts[e.Note] = [2][]string{strings.Split(a, ","), strings.Split(b, ",")}
	case sim.KindHeal:
		delete(o.parts, e.Note)
	case sim.KindCrash:
		o.clientDown[e.Actor] = true
	case sim.KindRestart:
		delete(o.clientDown, e.Actor)
	case sim.KindNetDelay, sim.KindNetDrop:
		end := e.At + e.Dur
		if e.Kind == sim.KindNetDelay {
			end += time.Duration(e.N)
		}
		if e.Dur == 0 {
			o.spoiled = true
		} else {
			o.windowEnds = append(o.windowEnds, end)
			o.seq++
			o.tolerations = append(o.tolerations, toleration{at: end, order: -1, ok: false}) // decided at the end
		}
	case sim.KindClockJump, sim.KindClockDrift, sim.KindEvict:
		o.spoiled = true
	}
	o.seq++
	ok := o.toleratedNow(w, e.At) && (o.cfg.Failover || e.Kind != sim.KindPromote && e.Kind != sim.KindDemote)
	onset := e.Kind == sim.KindNodeCrash || e.Kind == sim.KindNodeStall || e.Kind == sim.KindPartition
	o.tolerations = append(o.tolerations, toleration{at: e.At, order: 2*o.seq + 1, ok: ok, onset: onset})
}

// toleratedNow reports whether the faults in force at true time at are
// all tolerated: no fault for good, no pause, client crash or delay/drop
// window, no partition but one whose one side holds only masters, and at
// most Tolerate masters down, stalled or cut off.
func (o *oracle) toleratedNow(w *sim.World, at time.Duration) bool {
	if o.spoiled || len(o.clientDown) > 0 {
		return false
	}
	for c, until := range o.pausedUntil {
		if end, resumed := o.pauseEnds[c]; !(resumed && end >= until) && until > at {
			return false
		}
	}
	for _, end := range o.windowEnds {
		if at < end {
			return false
		}
	}
	if o.cfg.Failover {
		return o.failoverTolerated(w)
	}
	affected := map[string]bool{}
	for _, m := range o.cfg.Masters {
		if !w.NodeUp(m) || o.stalled[m] {
			affected[m] = true
		}
	}
	for _, sides := range o.parts {
		onlyMasters := func(side []string) bool {
			for _, n := range side {
				if !slices.Contains(o.cfg.Masters, n) {
					return false
				}
			}
			return true
		}
		switch {
		case onlyMasters(sides[0]):
			for _, n := range sides[0] {
				affected[n] = true
			}
		case onlyMasters(sides[1]):
			for _, n := range sides[1] {
				affected[n] = true
			}
		default:
			return false
		}
	}
	return len(affected) <= o.cfg.Tolerate
}

// failoverTolerated reads a Sentinel setup's claim off the live world:
// every partition in force has one side of the group's nodes only and the
// sentinel on the other, and some node of the group is one Sentinel can
// use: up, not stalled, on no partition's cut side, and either the
// group's primary or a replica (not an old primary still waiting for its
// demotion).
func (o *oracle) failoverTolerated(w *sim.World) bool {
	group := o.cfg.Masters
	cut := map[string]bool{}
	for _, sides := range o.parts {
		ok := false
		for i, side := range sides {
			if !slices.ContainsFunc(side, func(n string) bool { return !slices.Contains(group, n) }) && slices.Contains(sides[1-i], sim.SentinelName) {
				for _, n := range side {
					cut[n] = true
				}
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, n := range group {
		primary := w.GroupPrimary(w.GroupOf(n)) == n
		if w.NodeUp(n) && !o.stalled[n] && !cut[n] && (primary || w.NodeReplica(n)) {
			return true
		}
	}
	return false
}

// availableBroken scans the points of who tries and who holds together
// with the tolerations: a gap (wanted, nobody holding) that starts while
// the faults are tolerated and lasts past the bound, with no acquisition
// and no intolerable fault meanwhile, breaks available.
func (o *oracle) availableBroken(w *sim.World, bound time.Duration) bool {
	ps := slices.Clone(o.live)
	for _, hd := range o.holds {
		if hd.to > hd.from {
			ps = append(ps, livePoint{at: hd.from, order: hd.order, holding: +1}, livePoint{at: hd.to, order: -1, holding: -1})
		}
	}
	type pt struct {
		livePoint
		tol   bool // a toleration change
		tolOK bool
		onset bool
	}
	var all []pt
	for _, p := range ps {
		all = append(all, pt{livePoint: p})
	}
	for _, t := range o.tolerations {
		ok := t.ok
		if t.order < 0 { // a window's end: re-read the faults in force after it
			ok = o.toleratedAtEnd(t.at)
		}
		all = append(all, pt{livePoint: livePoint{at: t.at, order: t.order}, tol: true, tolOK: ok, onset: t.onset})
	}
	slices.SortStableFunc(all, func(a, b pt) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.order, b.order)) })
	trying, holding := 0, 0
	ok := true
	gapFrom, inGap := time.Duration(0), false
	for _, p := range all {
		if inGap && p.at > gapFrom+bound {
			if trying > 0 {
				return true
			}
			inGap = false // the lock no longer wanted at the bound
		}
		if p.tol {
			ok = p.tolOK
			if !ok {
				inGap = false
			}
			if inGap && o.cfg.Failover && p.onset && ok {
				gapFrom = p.at // a new fault: Sentinel's recovery starts again
			}
		}
		trying += p.trying
		holding += p.holding
		if p.acquired || holding > 0 {
			inGap = false
		}
		if !inGap && ok && trying > 0 && holding <= 0 {
			inGap, gapFrom = true, p.at
		}
	}
	return inGap && o.lastEvent >= gapFrom+bound && trying > 0
}

// toleratedAtEnd is the toleration just after a window ended at `at`: the
// last toleration recorded at a fault event before it, re-read with the
// window gone (only the windows still open at `at` count).
func (o *oracle) toleratedAtEnd(at time.Duration) bool {
	last := true
	for _, t := range o.tolerations {
		if t.order >= 0 && t.at <= at {
			last = t.ok
		}
	}
	if last {
		return true
	}
	// The last recorded state was intolerable: it was so because of this
	// window only if nothing else was in force, which the oracle cannot
	// re-read after the fact; stay conservative and keep it intolerable.
	return false
}

// offClocks returns the nodes and clients of s whose configured clocks run
// off true time's rate, and the nodes whose clocks step.
func offClocks(s model.Spec) map[string]bool {
	m := map[string]bool{}
	for n, c := range s.Topology.NodeClocks {
		m[n] = c.RatePPM != 0 || len(c.Jumps) > 0
	}
	for n, c := range s.Topology.ClientClocks {
		m[n] = c.RatePPM != 0
	}
	return m
}

// excused reports whether a fault that ends leases by itself explains the
// loss of b's lease at instant at: a rate change of its client or a
// granting node before then; a clock step of either, a crash, restart or
// eviction of a granting node, or any failover, since its attempt began;
// or a granting node down when it acquired.
func (o *oracle) excused(b *belief, at time.Duration) bool {
	if b.downAtStart || o.offClock[b.client] {
		return true
	}
	for _, g := range b.grants {
		if o.offClock[g.Node] {
			return true
		}
	}
	for _, f := range o.leaseFaults {
		if f.at > at {
			break
		}
		granting := slices.ContainsFunc(b.grants, func(g history.Grant) bool { return g.Node == f.actor })
		mine := granting || f.actor == b.client
		since := f.seq >= b.attemptSeq
		switch f.kind {
		case sim.KindClockDrift:
			if mine {
				return true
			}
		case sim.KindClockJump:
			if mine && since {
				return true
			}
		case sim.KindPromote, sim.KindDemote:
			if since {
				return true
			}
		default:
			if granting && since {
				return true
			}
		}
	}
	return false
}

// verdict finishes liveness and returns every broken invariant.
func (o *oracle) verdict() []invariant.ID {
	for _, c := range slices.Sorted(maps.Keys(o.tries)) {
		o.judgeTry(c, o.tries[c], o.lastEvent)
	}
	if bound := o.cfg.AvailableBound; bound > 0 && o.availableBroken(o.w, bound) {
		o.broken[invariant.Available] = true
	}
	for _, b := range o.open {
		if b.lostAt >= 0 && !o.excused(b, b.lostAt) {
			o.broken[invariant.PrematureLoss] = true
		}
	}
	if bound := o.cfg.LivenessBound; bound > 0 && o.livenessBroken(bound) {
		o.broken[invariant.Liveness] = true
	}
	var ids []invariant.ID
	for _, id := range invariant.All {
		if o.broken[id] {
			ids = append(ids, id)
		}
	}
	return ids
}

// heal returns when the faults were over, from what the oracle saw and
// the world as it ended: false when one never ends (a node still down at
// the end that no promotion replaced, a partition or delay for good).
func (o *oracle) heal() (time.Duration, bool) {
	at := max(o.healAt, o.lastFault)
	for c, until := range o.pausedUntil {
		if end, resumed := o.pauseEnds[c]; resumed && end >= until {
			until = end
		}
		at = max(at, until)
	}
	for _, n := range o.forever {
		if n > 0 {
			return 0, false
		}
	}
	for n := range o.crashed {
		if !o.w.NodeUp(n) && (o.w.GroupOf(n) == "" || o.w.GroupPrimary(o.w.GroupOf(n)) == n) {
			return 0, false
		}
	}
	return at, true
}

func (o *oracle) livenessBroken(bound time.Duration) bool {
	ps := slices.Clone(o.live)
	for _, b := range o.open {
		if b.holding {
			to := o.lastEvent + time.Nanosecond
			if b.holdUntil >= 0 {
				to = min(to, b.holdUntil)
			}
			o.holds = append(o.holds, hold{b.holdFrom, to, b.holdOrder})
		}
	}
	for _, hd := range o.holds {
		if hd.to > hd.from {
			ps = append(ps, livePoint{at: hd.from, order: hd.order, holding: +1}, livePoint{at: hd.to, order: -1, holding: -1})
		}
	}
	slices.SortStableFunc(ps, func(a, b livePoint) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.order, b.order)) })
	heal, healed := o.heal()
	if !healed {
		return false
	}
	trying, holding := 0, 0
	gapFrom, inGap, suppressed := time.Duration(0), false, false
	for _, p := range ps {
		if inGap && p.at > gapFrom+bound {
			return true
		}
		trying += p.trying
		holding += p.holding
		if p.acquired {
			inGap, suppressed = false, false
		}
		if holding > 0 {
			// Someone holds: no gap. A renewal ends one hold and starts
			// the next at the same instant, the end first.
			inGap = false
		}
		wanted := trying > 0 && holding <= 0
		switch {
		case p.at < heal || p.at == heal && p.order >= 0 && !afterHeal(ps, p, heal) && heal == o.lastFault:
			inGap = wanted
			gapFrom = heal
		case !inGap && !suppressed && wanted:
			inGap, gapFrom = true, p.at
		}
	}
	return inGap && o.lastEvent >= gapFrom+bound
}

// afterHeal reports whether p comes after the last fault point at heal.
func afterHeal(ps []livePoint, p livePoint, heal time.Duration) bool {
	last := -1
	for _, q := range ps {
		if q.at == heal && q.isFault {
			last = q.order
		}
	}
	return p.order > last
}

// runWithOracle runs a spec with the oracle observing.
func runWithOracle(t *testing.T, s model.Spec, seed uint64) (checked, oracled []invariant.ID, h sim.History, fired []sim.FaultOutcome, ok bool) {
	s = s.WithDefaults()
	cfg, err := s.Config()
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	o := newOracle(s)
	cfg.Observe = o.observe
	w, err := sim.New(cfg, seed)
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	h, runErr := w.Run()
	if runErr != nil {
		return nil, nil, h, w.FaultOutcomes(), false // no verdicts
	}
	return invariant.Broken(invariant.Check(h, s.CheckConfig())), o.verdict(), h, w.FaultOutcomes(), true
}

// oracleKinds are the fault kinds of the first corpus, fixed so that a
// kind added to sim does not change it; later kinds are drawn in a second
// corpus (laterKinds) along with these.
var oracleKinds = []sim.FaultKind{sim.FaultPause, sim.FaultCrash, sim.FaultPartition, sim.FaultDelay, sim.FaultDrop,
	sim.FaultNodeCrash, sim.FaultClockJump, sim.FaultClockDrift, sim.FaultEvict}

// randomSpec draws a run over every design on Redis, fault kind of kinds,
// persistence mode and topology.
func randomSpec(r *rand.Rand, kinds []sim.FaultKind) model.Spec {
	designs := redisDesigns()
	return randomSpecFor(r, designs[r.IntN(len(designs))], kinds)
}

// redisDesigns are the catalogue's designs on Redis: the designs that
// deploy their own nodes (the consensus designs, registered by package
// consensus) are drawn by their own agreement test, so that registering
// them changes none of this test's draws.
func redisDesigns() []string {
	var ids []string
	for _, id := range model.DesignIDs() {
		if !(model.Spec{Design: id}).Traits().OwnNodes {
			ids = append(ids, id)
		}
	}
	return ids
}

// randomSpecFor draws a run of design over every fault kind of kinds,
// persistence mode and topology the design takes.
func randomSpecFor(r *rand.Rand, design string, kinds []sim.FaultKind) model.Spec {
	s := model.Spec{Design: design}
	s.Workload = model.Workload{Cycles: 1 + r.IntN(3), Work: time.Duration(10+r.IntN(900)) * time.Millisecond}
	s.Clients = []string{"A", "B", "C"}[:2+r.IntN(2)]
	s.Options.TTL = time.Duration(300+r.IntN(1200)) * time.Millisecond
	if s.Traits().OwnNodes {
		s.Options.TTL += 1200 * time.Millisecond // a consensus lease is at least 1.5s (etcd's minimum TTL)
	}
	s.Options.Deadline = r.IntN(3) == 0
	s.Topology.Persistence = []sim.Persistence{sim.PersistNone, sim.PersistEverySec, sim.PersistAlways}[r.IntN(3)]
	switch {
	case s.Traits().OwnNodes:
		s.Topology.Masters = []int{3, 5}[r.IntN(2)] // a consensus cluster: no replicas
	case s.Design == model.Redlock:
		s.Topology.Masters = []int{3, 5}[r.IntN(2)]
	case s.Design == model.WaitReplica:
		s.Topology.Replicas = 1 + r.IntN(2)
	default:
		s.Topology.Replicas = r.IntN(3)
	}
	if s.Topology.Replicas > 0 {
		s.Topology.Sentinel = sim.SentinelConfig{Enabled: true, DownAfter: time.Duration(200+r.IntN(1500)) * time.Millisecond}
	}
	if s.Design == model.Fenced {
		s.Fencing = model.Fencings[r.IntN(len(model.Fencings))]
		if s.Fencing == model.FenceOff {
			s.Fencing = model.FenceStrict
		}
	} else if r.IntN(6) == 0 {
		s.Fencing = model.FenceVersion
	}
	masters := max(1, s.Topology.Masters)
	var nodes []string
	for g := range masters {
		for j := 0; j <= s.Topology.Replicas; j++ {
			nodes = append(nodes, model.NodeName(g, j, s.Topology.Replicas))
		}
	}
	ms := func(lo, hi int) time.Duration { return time.Duration(lo+r.IntN(hi-lo+1)) * time.Millisecond }
	ttl := s.Options.TTL
	for range 1 + r.IntN(3) {
		c := s.Clients[r.IntN(len(s.Clients))]
		n := nodes[r.IntN(len(nodes))]
		at := ms(0, int(4*ttl/time.Millisecond))
		var f sim.Fault
		switch kinds[r.IntN(len(kinds))] {
		case sim.FaultPause:
			f = sim.Fault{Kind: sim.FaultPause, Target: c, At: at, Dur: ms(1, int(2*ttl/time.Millisecond))}
			if r.IntN(2) == 0 {
				kinds := []sim.Kind{history.KindAcquired, sim.KindCall, sim.KindReply, history.KindRead, history.KindWrite, history.KindReleaseSend}
				f.At, f.After = 0, &sim.Trigger{Actor: c, Kind: kinds[r.IntN(len(kinds))], Nth: 1 + r.IntN(4)}
			}
		case sim.FaultCrash:
			f = sim.Fault{Kind: sim.FaultCrash, Target: c, At: at, Restart: r.IntN(2) == 0, Dur: ms(1, int(ttl/time.Millisecond))}
		case sim.FaultPartition:
			f = sim.Fault{Kind: sim.FaultPartition, At: at, A: []string{n}, B: append(slices.Clone(s.Clients), sim.SentinelName), Dur: ms(1, int(3*ttl/time.Millisecond))}
			if s.Topology.Replicas == 0 {
				f.B = slices.Clone(s.Clients)
			}
		case sim.FaultDelay:
			to := []string{n, history.ResourceName}[r.IntN(2)]
			f = sim.Fault{Kind: sim.FaultDelay, At: at, From: c, To: to, Extra: ms(1, int(2*ttl/time.Millisecond)), Dur: ms(1, int(ttl/time.Millisecond))}
		case sim.FaultDrop:
			f = sim.Fault{Kind: sim.FaultDrop, At: at, From: n, To: c, Count: 1 + r.IntN(2), Dur: ms(1, int(ttl/time.Millisecond))}
		case sim.FaultNodeCrash:
			f = sim.Fault{Kind: sim.FaultNodeCrash, At: at, Target: n, Dur: ms(1, int(3*ttl/time.Millisecond))}
		case sim.FaultClockJump:
			f = sim.Fault{Kind: sim.FaultClockJump, At: at, Target: n, By: ms(1, int(2*ttl/time.Millisecond))}
			if r.IntN(3) == 0 {
				f.By = -f.By
			}
		case sim.FaultClockDrift:
			target := []string{n, c}[r.IntN(2)]
			f = sim.Fault{Kind: sim.FaultClockDrift, At: at, Target: target, RatePPM: int64(r.IntN(600_001) - 300_000)}
		case sim.FaultEvict:
			f = sim.Fault{Kind: sim.FaultEvict, At: at, Target: n, Key: "lock"}
		case sim.FaultNodeStall:
			f = sim.Fault{Kind: sim.FaultNodeStall, At: at, Target: n, Dur: ms(1, int(3*ttl/time.Millisecond))}
		case sim.FaultStarve:
			f = sim.Fault{Kind: sim.FaultStarve, Target: c, At: at, Task: []string{"main", "watchdog"}[r.IntN(2)], Dur: ms(1, int(2*ttl/time.Millisecond))}
			if r.IntN(2) == 0 {
				kinds := []sim.Kind{history.KindAcquired, sim.KindCall, history.KindWrite, history.KindReleaseSend}
				f.At, f.After = 0, &sim.Trigger{Actor: c, Kind: kinds[r.IntN(len(kinds))], Nth: 1 + r.IntN(4)}
			}
		case sim.FaultMemoryPressure:
			// A burst on a node without maxmemory (the specs set none):
			// capped at what it holds, under a drawn policy; its keys
			// expire one time in two.
			f = sim.Fault{Kind: sim.FaultMemoryPressure, At: at, Target: n, Size: int64(170 * (1 + r.IntN(4))),
				Policy: sim.EvictionPolicies[r.IntN(len(sim.EvictionPolicies))]}
			if r.IntN(2) == 0 {
				f.Dur = ms(1, int(3*ttl/time.Millisecond))
			}
		case sim.FaultSlotMigrate:
			// On a cluster of the spec's groups (three at least): "lock"
			// (slot 8718) moves from m2 to m1, legacy or atomic.
			if s.Traits().Quorum || s.Traits().AllMasters || s.Design == model.Redlock {
				continue // locks on several masters: does not run on a cluster
			}
			s.Topology.Cluster, s.Topology.Sentinel = true, sim.SentinelConfig{}
			s.Topology.Masters = max(3, s.Topology.Masters)
			s.Topology.ClusterNodeTimeout = ms(200, 1500)
			f = sim.Fault{Kind: sim.FaultSlotMigrate, At: at, Target: model.NodeName(0, 0, s.Topology.Replicas), Key: "lock",
				Atomic: r.IntN(2) == 0, Dur: ms(1, int(2*ttl/time.Millisecond))}
		case sim.FaultClusterFailover:
			// On a cluster: an operator fails m2 (the lock's shard) over.
			if s.Traits().Quorum || s.Traits().AllMasters || s.Design == model.Redlock || s.Topology.Replicas == 0 {
				continue
			}
			s.Topology.Cluster, s.Topology.Sentinel = true, sim.SentinelConfig{}
			s.Topology.Masters = max(3, s.Topology.Masters)
			s.Topology.ClusterNodeTimeout = ms(200, 1500)
			f = sim.Fault{Kind: sim.FaultClusterFailover, At: at, Target: model.NodeName(1, 1, s.Topology.Replicas), Force: r.IntN(2) == 0}
		}
		s.Faults = append(s.Faults, f)
	}
	return s
}

// TestCheckersAgreeWithTheOracle: for random runs over every design, fault
// kind, persistence mode and topology, the checkers (reading the history)
// and the oracle (watching the live world) find the same broken
// invariants. Every disagreement is a bug in one of them.
func TestCheckersAgreeWithTheOracle(t *testing.T) {
	runs := *oracleRuns
	if testing.Short() {
		runs /= 10
	}
	r := rand.New(rand.NewPCG(20261201, 11))
	agreed, judged := 0, 0
	seen := map[invariant.ID]int{}
	// firedKinds and firedAfter count the faults that took effect, per
	// kind and per trigger kind (where a pause was placed).
	firedKinds, firedAfter := map[sim.FaultKind]int{}, map[sim.Kind]int{}
	// The second corpus draws every kind; its runs are a quarter of the
	// first's, numbered after them.
	later := rand.New(rand.NewPCG(20261202, 11))
	for i := range runs + runs/4 {
		var s model.Spec
		if i < runs {
			s = randomSpec(r, oracleKinds)
		} else {
			s = randomSpec(later, sim.FaultKinds)
		}
		seed := uint64(i)
		checked, oracled, h, fired, ok := runWithOracle(t, s, seed)
		for j, f := range s.Faults {
			if j < len(fired) && fired[j].Fired() {
				firedKinds[f.Kind]++
				if f.After != nil {
					firedAfter[f.After.Kind]++
				}
			}
		}
		if !ok {
			continue
		}
		judged++
		for _, id := range checked {
			seen[id]++
		}
		if slices.Equal(checked, oracled) {
			agreed++
			continue
		}
		var fs []string
		for _, f := range s.Faults {
			fs = append(fs, f.String())
		}
		t.Errorf("run %d (design %s, seed %d, %+v, faults %q): checkers %v, oracle %v\n%s", i, s.Design, seed,
			s.Topology, fs, checked, oracled, explain(h, s))
		if t.Failed() && agreed+10 < judged {
			t.FailNow()
		}
	}
	// A third corpus, a twentieth of the first, runs a design that waits
	// a full TTL between tries (lateWaiter), so that acquire-deadline
	// breaks and both sides judge it; its draws are its own.
	third := rand.New(rand.NewPCG(20261207, 11))
	for i := range runs / 20 {
		s := randomSpecFor(third, model.SetPxLua, sim.FaultKinds)
		s.Custom = lateWaiter{}
		checked, oracled, h, _, ok := runWithOracle(t, s, uint64(i))
		if !ok {
			continue
		}
		judged++
		for _, id := range checked {
			seen[id]++
		}
		if slices.Equal(checked, oracled) {
			agreed++
			continue
		}
		t.Errorf("late-waiter run %d (seed %d, %+v): checkers %v, oracle %v\n%s", i, i, s.Faults, checked, oracled, explain(h, s))
	}
	// A fourth corpus, a twentieth of the first, runs redlock waiting 2s
	// on a silent master under node crashes and partitions, so that
	// available breaks and both sides judge it; its draws are its own.
	fourth := rand.New(rand.NewPCG(20261208, 11))
	for i := range runs / 20 {
		s := randomSpecFor(fourth, model.Redlock, []sim.FaultKind{sim.FaultNodeCrash, sim.FaultPartition})
		s.Options.NodeTimeout = 2 * time.Second
		checked, oracled, h, _, ok := runWithOracle(t, s, uint64(i))
		if !ok {
			continue
		}
		judged++
		for _, id := range checked {
			seen[id]++
		}
		if slices.Equal(checked, oracled) {
			agreed++
			continue
		}
		var fs []string
		for _, f := range s.Faults {
			fs = append(fs, f.String())
		}
		t.Errorf("slow-redlock run %d (seed %d, faults %q): checkers %v, oracle %v\n%s", i, i, fs, checked, oracled, explain(h, s))
	}
	// A fifth corpus, a tenth of the first (two thirds of it with
	// replicas), runs set-px-lua on a
	// primary with replicas under Sentinel, half the runs given the old
	// primary's address (pinnedPrimary) so that they never follow a
	// failover, under node crashes, stalls and partitions: a Sentinel
	// setup's claim (Config.Failover) breaks and holds, and both sides
	// judge it; its draws are its own.
	fifth := rand.New(rand.NewPCG(20261209, 11))
	failoverBroken := 0
	for i := range runs / 10 {
		s := randomSpecFor(fifth, model.SetPxLua, []sim.FaultKind{sim.FaultNodeCrash, sim.FaultPartition, sim.FaultNodeStall})
		if s.Topology.Replicas == 0 || s.Topology.Cluster { // no Sentinel: no such claim
			continue
		}
		if i%2 == 0 {
			s.Custom = pinnedPrimary{}
		}
		if !s.WithDefaults().CheckConfig().Failover {
			t.Fatalf("failover run %d: no failover claim (%+v)", i, s.Topology)
		}
		checked, oracled, h, _, ok := runWithOracle(t, s, uint64(i))
		if !ok {
			continue
		}
		judged++
		for _, id := range checked {
			seen[id]++
		}
		if slices.Contains(checked, invariant.Available) {
			failoverBroken++
			if s.Custom == nil { // set-px-lua follows Sentinel: a break is a false alarm
				t.Errorf("failover run %d (seed %d, %+v): set-px-lua, which follows Sentinel, broke available\n%s", i, i, s.Topology, explain(h, s))
			}
		}
		if slices.Equal(checked, oracled) {
			agreed++
			continue
		}
		var fs []string
		for _, f := range s.Faults {
			fs = append(fs, f.String())
		}
		t.Errorf("failover run %d (seed %d, %s, %+v, faults %q): checkers %v, oracle %v\n%s", i, i, s.WithDefaults().CheckConfig().Masters, s.Topology, fs, checked, oracled, explain(h, s))
	}
	if failoverBroken == 0 && runs >= 1000 {
		t.Errorf("no failover run broke available: the corpus does not reach a Sentinel setup's claim")
	}
	t.Logf("%d runs judged, %d agreed; runs breaking each invariant: %v; failover runs breaking available: %d", judged, agreed, seen, failoverBroken)
	t.Logf("faults fired per kind: %v; pauses fired per trigger: %v", firedKinds, firedAfter)
	// Every kind and placement drawn must fire somewhere (issue 27): a
	// fault that never takes effect tests nothing.
	if runs >= 1000 {
		for _, k := range sim.FaultKinds {
			if firedKinds[k] == 0 {
				t.Errorf("no %s fault fired in %d runs", k, runs)
			}
		}
		for _, k := range []sim.Kind{history.KindAcquired, sim.KindCall, sim.KindReply, history.KindRead, history.KindWrite, history.KindReleaseSend} {
			if firedAfter[k] == 0 {
				t.Errorf("no pause placed after %s fired in %d runs", k, runs)
			}
		}
	}
	// The runs must exercise every invariant, or agreement says little.
	// Fencing is the exception: it breaks only on a nonstrict resource
	// whose token the source reissued, when the older holder's write
	// lands after the newer one's, which 25,000 runs did not reach; the
	// checker's cases are in testdata/check/tokens.txt.
	for _, id := range []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate, invariant.TokenUnique, invariant.Liveness, invariant.FIFO, invariant.RWExclusion, invariant.PrematureLoss, invariant.AcquireDeadline, invariant.Available} {
		if seen[id] == 0 && runs >= 1000 {
			t.Errorf("no run broke %s: the generator does not reach it", id)
		}
	}
}

func explain(h sim.History, s model.Spec) string {
	var b strings.Builder
	for _, v := range invariant.Check(h, s.CheckConfig()) {
		b.WriteString("  " + string(v.Invariant) + ": " + v.Explanation + "\n")
	}
	return b.String()
}

// pinnedPrimary is set-px-lua given the primary's address (r1) instead of
// asking Sentinel: after a failover it keeps calling the old primary. It
// claims a Sentinel setup's tolerance as set-px-lua does.
type pinnedPrimary struct{}

func (pinnedPrimary) Name() string         { return "pinned-primary" }
func (pinnedPrimary) Traits() model.Traits { return model.Traits{ToleratesFailover: true} }
func (pinnedPrimary) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	r, err := c.Call("r1", "SET", c.Key, v, "NX", "PX", c.TTLms())
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{"r1"}}, r.Str == "OK", nil
}
func (pinnedPrimary) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call("r1", "EVAL", "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) else return 0 end", "1", c.Key, l.Value)
	return err
}

// lateWaiter is set-px-lua whose wait between tries is a full TTL, not
// the backoff it is given: it sleeps through its acquire deadline.
type lateWaiter struct{}

func (lateWaiter) Name() string { return "late-waiter" }
func (lateWaiter) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	g := c.Masters()[0]
	node := c.Primary(g)
	r, err := c.Call(g, "SET", c.Key, v, "NX", "PX", c.TTLms())
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{node}}, r.Str == "OK", nil
}
func (lateWaiter) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) else return 0 end", "1", c.Key, l.Value)
	return err
}
func (lateWaiter) WaitRelease(c *model.Client, _ time.Duration) { c.Sleep(c.Options().TTL) }
