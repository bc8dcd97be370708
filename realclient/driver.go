package realclient

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"

	"math/rand/v2"

	"github.com/pkg/errors"

	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

// driver is the governor: the one goroutine inside the bubble that talks
// to the world. Client goroutines never touch the world; they post actions
// (a command written on a connection, a dial, a resource call, an event to
// record, a sleep) and block on their own connection or on the action's
// reply channel. The governor loop:
//
//  1. synctest.Wait: every other goroutine in the bubble is durably
//     blocked, so what they posted is complete;
//  2. carry out the first queued world effect (a reply's bytes into a
//     connection, a dial's outcome, a pause), then back to 1;
//  3. else run the next world event if it is due now, queueing its
//     effects, then back to 1;
//  4. else hand the smallest posted action to the world (actions are
//     ordered by process, kind and content, never by which goroutine
//     posted first), then back to 1;
//  5. else sleep in the bubble until the next world event, the next
//     governed sleep, or a post (a library timer fired and its goroutine
//     did I/O), whichever comes first.
//
// Every change is followed by a Wait, so goroutines react to one thing at
// a time: their reactions, and so the order of everything the world sees,
// do not depend on the Go scheduler. Bubble time is the world's true time
// (the bubble's clock at the start of the run is true time 0).
type driver struct {
	// progress counts the governor's turns: a watchdog outside the bubble
	// that sees it stand still for StuckAfter of wall time declares the
	// run stuck (stuck.go).
	progress atomic.Int64
	proxy    *worldProxy
	w        *sim.World
	t0       time.Time
	maxT     time.Duration

	mu      sync.Mutex // guards pending, conns' buffers and procs' pause state
	pending []*action
	kick    chan struct{} // cap 1: a post wakes the governor's sleep; made in the bubble

	procs    []*xproc          // every incarnation of every process
	byName   map[string]*xproc // the current incarnation
	launch   func(*xproc)      // starts a process's program (runOnce)
	conns    map[uint64]*conn
	dials    map[uint64]*action // stream id -> the dial waiting for it
	calls    map[string]*action // proc/call id -> the call waiting for it
	effects  []queued           // queued changes, carried out one per Wait
	watched  map[string]bool    // actor + "/" + kind of every fault trigger
	sleepers []*action          // governed sleeps, by wake time then seq
	seq      uint64             // orders sleepers posted at the same instant
	ending   atomic.Bool        // the run is over: actions fail at once
	// pick chooses among pending actions (InterleaveRandom); nil: the
	// fixed order. Governor only.
	pick *rand.Rand
	// poolTimers is set when a go-redis pool may have waited for a turn,
	// on a timer of its process-wide pool (see clearPools).
	poolTimers atomic.Bool
	// keyPattern is WithLockKeys's pattern; acqs what the run's
	// acquisitions wrote (keys.go).
	keyPattern string
	valueArg   int // WithValueArg: the ARGV of a script that carries the value (0: the first)
	acqs       acqNotes
	// sentValues are the lock values the acquisitions' commands carried
	// (under mu), which renameValues renames.
	sentValues map[string]bool

	// The world's state as of the last call into it (refresh).
	next       time.Duration
	nextOK     bool
	worldDone  bool
	running    int // client programs not yet returned
	worldCalls int // calls into the world so far (exhaustive mode's steps)

	// goroutines is WithGoroutines' count; sharedStores the objects
	// each process incarnation's goroutines share (Env.Shared), by
	// process and incarnation (under mu).
	goroutines   int
	sharedStores map[string]*sharedStore
	// byLabel finds a client goroutine by its label id (shareconn.go);
	// refusal is the first command whose issuer could not be told
	// (under mu).
	byLabel map[string]*xproc
	refusal error

	// modules are the library modules seen on the clients' stacks
	// (modules.go).
	modules moduleSet
}

type actKind uint8

// Action kinds, in the order the governor hands a process's actions to
// the world when several are pending at one instant.
const (
	actRecord actKind = iota
	actClose
	actTimeout
	actSend
	actGate // a go-redis command asks for its turn (gateHook)
	actDial
	actCall
	actSleep
	actExit // last: a program's final events go before its end
)

// action is one thing a client goroutine asks of the world.
type action struct {
	p    *xproc
	kind actKind
	c    *conn    // actSend, actClose, actTimeout
	info *cmdInfo // actSend: what the process noted about the command
	// seq: actSend, its position on the connection (from 1); actClose and
	// actTimeout, how many commands the connection had posted before it
	// (they wait for those); actSleep, post order; actRecord, the task's.
	seq  uint64
	args []string      // actSend, actCall: the command
	node string        // actDial: the group or node
	ev   *sim.Event    // actRecord: the event to record
	note string        // actExit
	at   time.Duration // actSleep: wake time

	timeout time.Duration // actCall
	// done receives the outcome of a blocking action (dial, call,
	// record, sleep, exit); buffered so the governor never blocks.
	done      chan outcome
	abandoned bool // a dial whose caller gave up (guarded by driver.mu)
	private   bool // actDial: a connection of the goroutine's own clients (dialAs)
}

// evKind and evTask are the recorded event's kind and task, empty for an
// action that records none (the order of actionCmp).
func (a *action) evKind() sim.Kind {
	if a.ev == nil {
		return ""
	}
	return a.ev.Kind
}

func (a *action) evTask() string {
	if a.ev == nil {
		return ""
	}
	return a.ev.Task
}

type outcome struct {
	c     *conn
	reply resp.Reply
	err   error
}

func newDriver(proxy *worldProxy, w *sim.World, cfg sim.Config) *driver {
	watched := map[string]bool{}
	for _, f := range cfg.Faults {
		if f.After != nil {
			watched[f.After.Actor+"/"+string(f.After.Kind)] = true
			if f.After.Since != "" {
				watched[f.After.Actor+"/"+string(f.After.Since)] = true // it starts the count
			}
		}
	}
	return &driver{proxy: proxy, w: w, maxT: cfg.Limits.MaxTime, watched: watched,
		byName: map[string]*xproc{}, conns: map[uint64]*conn{}, dials: map[uint64]*action{}, calls: map[string]*action{}}
}

// now returns the bubble's clock as true time.
func (d *driver) now() time.Duration { return time.Since(d.t0) }

// post queues an action from a client goroutine and wakes the governor.
func (d *driver) post(a *action) {
	d.mu.Lock()
	if a.kind == actRecord {
		a.seq = a.p.recordSeq(a.ev.Task) // a record always has its event
	}
	d.pending = append(d.pending, a)
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// less orders pending actions by content: process, kind, connection and
// position on it, then the command or event itself.
func actionCmp(a, b *action) int {
	if c := strings.Compare(a.p.name, b.p.name); c != 0 {
		return c
	}
	if c := cmp.Compare(a.kind, b.kind); c != 0 {
		return c
	}
	if a.kind == actRecord {
		// A task's events in the order it recorded them.
		return cmp.Or(strings.Compare(a.ev.Task, b.ev.Task), cmp.Compare(a.seq, b.seq))
	}
	var ai, bi uint64
	if a.c != nil {
		ai = a.c.id
	}
	if b.c != nil {
		bi = b.c.id
	}
	return cmp.Or(cmp.Compare(ai, bi), cmp.Compare(a.seq, b.seq),
		strings.Compare(a.node, b.node), slices.Compare(a.args, b.args),
		cmp.Compare(a.evKind(), b.evKind()), strings.Compare(a.evTask(), b.evTask()))
}

// takeAction removes and returns the smallest pending action of a process
// that is not paused, or nil. In interleaving mode (d.pick) the seed
// chooses among the candidates instead (choose), due governed sleeps
// among them: wake reports that a is a sleeper to wake.
func (d *driver) takeAction(now time.Duration) (a *action, wake bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pick != nil && !d.ending.Load() {
		return d.choose(now)
	}
	waits := d.connWaits()
	best := -1
	for i, a := range d.pending {
		if a.p.paused || waits(a) || heldByStarve(a) {
			continue
		}
		if best < 0 || actionCmp(a, d.pending[best]) < 0 {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	return d.removePending(best), false
}

// connWaits returns a test (under d.mu) of whether a pending close or
// timeout must wait for a command posted before it on its connection:
// a goroutine wrote, then closed (or timed out on) the same connection,
// and the world must see them in that order.
func (d *driver) connWaits() func(a *action) bool {
	first := map[*conn]uint64{} // the first pending command's position, per connection
	for _, a := range d.pending {
		if a.kind == actSend {
			if s, ok := first[a.c]; !ok || a.seq < s {
				first[a.c] = a.seq
			}
		}
	}
	return func(a *action) bool {
		if a.kind != actClose && a.kind != actTimeout {
			return false
		}
		s, ok := first[a.c]
		return ok && s <= a.seq
	}
}

// run is the governor loop; it returns when the world's run is over and
// every client program has returned.
func (d *driver) run(start func()) {
	d.t0 = time.Now()
	d.kick = make(chan struct{}, 1) // inside the bubble: waiting on it is durable
	d.proxy.do(func() { d.w.Start() })
	start()
	d.proxy.do(d.refresh) // now that the programs count as running
	var grace, timer *time.Timer
	settled := false // nothing was woken since the last Wait
	for {
		d.progress.Add(1) // the watchdog's sign of life (stuck.go)
		if !settled {
			synctest.Wait()
		}
		settled = false
		if len(d.effects) > 0 {
			q := d.effects[0]
			d.effects[0] = queued{}
			d.effects = d.effects[1:]
			if q.f != nil {
				q.f()
			} else {
				d.apply(q.e)
			}
			continue
		}
		if d.ending.Load() {
			if a, _ := d.takeAction(0); a != nil {
				d.refuse(a)
				continue
			}
			if d.running > 0 {
				<-d.kick // library timers still run; wait for the next post
				continue
			}
			// Every program returned, but library goroutines may still
			// be retrying a refused dial on their timers: the bubble ends
			// only when they have, so give them bubble time (it costs only
			// the timers that fire).
			if grace == nil {
				grace = time.NewTimer(graceAfterEnd)
			}
			select {
			case <-grace.C:
				return
			case <-d.kick:
			}
			continue
		}
		now := d.now()
		if d.worldDone {
			d.end()
			continue
		}
		next, ok := d.next, d.nextOK
		if ok && next <= now {
			d.step()
			settled = true // a step only queues effects: it wakes no goroutine
			continue
		}
		if a, wake := d.takeAction(now); wake {
			d.wake(a)
			continue
		} else if a != nil {
			settled = d.hand(a) // completions are queued as effects, not sent here
			continue
		}
		if s := d.firstSleeper(); s != nil && s.at <= now {
			d.wake(s)
			continue
		}
		// Nothing to do now: sleep until the next world event or
		// governed sleep, or until a client goroutine posts.
		until := d.maxT + time.Millisecond
		if ok {
			until = min(until, next)
		}
		if s := d.firstSleeper(); s != nil {
			until = min(until, s.at)
		}
		if timer == nil {
			timer = time.NewTimer(until - now)
		} else {
			timer.Reset(until - now) // one timer for the loop: a new one per sleep was a channel and a timer each
		}
		select {
		case <-timer.C:
		case <-d.kick:
		}
		timer.Stop()
		if t := d.now(); t > d.maxT {
			d.proxy.do(func() { d.w.AdvanceTo(t); d.refresh() }) // stops the run with the time-limit error
		}
	}
}

// graceAfterEnd is how much bubble time the libraries' goroutines get to
// return after the last program did.
const graceAfterEnd = 10 * time.Minute

// refresh caches the world's next event time and whether the run is
// over (stopped, or drained after every client exited). It runs at the
// end of every call into the world, so that the governor's loop needs no
// call of its own to learn them.
func (d *driver) refresh() {
	d.next, d.nextOK = d.w.NextAt()
	d.worldDone = d.w.Done() || (!d.nextOK && d.running == 0)
}

// step runs one world event and queues its effects.
func (d *driver) step() {
	var effs []sim.Effect
	d.worldCalls++
	d.proxy.do(func() {
		d.w.Step()
		effs = d.w.TakeEffects()
		d.refresh()
	})
	d.queueEffects(effs)
}

// world runs f on the world at the bubble's current time and queues the
// effects it produced.
func (d *driver) world(f func(w *sim.World)) {
	now := d.now()
	var effs []sim.Effect
	d.worldCalls++
	d.proxy.do(func() {
		d.w.AdvanceTo(now)
		f(d.w)
		effs = d.w.TakeEffects()
		d.refresh()
	})
	d.queueEffects(effs)
}

func (d *driver) queueEffects(effs []sim.Effect) {
	for _, e := range effs {
		d.effects = append(d.effects, queued{e: e})
	}
}

// queued is one queued change: a world effect to apply, or f (then).
// Effects are queued as values, not as closures over them: one
// allocation less per reply.
type queued struct {
	e sim.Effect
	f func()
}

// then queues f after the effects already queued.
func (d *driver) then(f func()) { d.effects = append(d.effects, queued{f: f}) }

// hand gives one action to the world. It reports whether no goroutine
// was woken (a gate's turn wakes its goroutine at once; every other
// completion is queued as an effect).
func (d *driver) hand(a *action) (settled bool) {
	settled = true
	p := a.p
	if p.exited {
		// A library goroutine still at work after the program returned
		// (a dial the pool queued): the process is gone for the world.
		d.then(func() { d.refuse(a) })
		return true
	}
	switch a.kind {
	case actGate:
		a.done <- outcome{} // the world sees nothing: the command follows
		return false
	case actRecord:
		d.world(func(w *sim.World) { w.External(p.name).Record(*a.ev) })
		if a.done != nil {
			d.then(func() { a.done <- outcome{} }) // after a pause it triggered took hold
		}
	case actExit:
		d.running--
		p.exited = true
		d.world(func(w *sim.World) { w.External(p.name).Exit(a.note) })
		d.then(func() { a.done <- outcome{} })
	case actDial:
		d.mu.Lock()
		gone := a.abandoned
		d.mu.Unlock()
		if gone {
			return
		}
		var id uint64
		var node string
		d.world(func(w *sim.World) {
			x := w.External(p.name)
			node = x.Primary(a.node)
			if node == "" {
				node = a.node
			}
			id = x.Dial(node)
		})
		if id == 0 {
			d.then(func() { a.done <- outcome{err: errors.New("the run is over")} })
			return
		}
		c := newConn(d, p, id, a.node, node)
		c.private = a.private
		d.conns[id] = c
		d.dials[id] = a
	case actSend:
		mark, ok := sendMark(a, p.key)
		if ok && mark.Kind == history.KindReleaseSend && a.info.marked {
			ok = false // recorded before a pause that held the command back
		}
		if ok && mark.Kind == history.KindReleaseSend {
			// Before the command leaves: a pause this starts holds it back
			// until the resume, when the action is handed again.
			a.info.marked = true
			paused := false
			d.world(func(w *sim.World) {
				x := w.External(p.name)
				x.Record(mark)
				paused = x.Paused()
			})
			if paused {
				d.mu.Lock()
				d.pending = append(d.pending, a)
				d.mu.Unlock()
				return
			}
			ok = false
		}
		d.world(func(w *sim.World) {
			x := w.External(p.name)
			if ok && (mark.Kind != history.KindAcquireSend || x.WouldRun(a.c.node, a.args)) {
				x.Send(a.c.id, a.args, mark)
				return
			}
			x.Send(a.c.id, a.args)
		})
	case actClose:
		d.world(func(w *sim.World) { w.External(p.name).CloseStream(a.c.id) })
	case actTimeout:
		d.world(func(w *sim.World) { w.External(p.name).StreamTimeout(a.c.id) })
	case actCall:
		var id uint64
		d.world(func(w *sim.World) { id = w.External(p.name).Call(a.node, a.timeout, a.args) })
		if id == 0 {
			d.then(func() { a.done <- outcome{err: errors.New("the run is over")} })
			return
		}
		d.calls[callKey(p.name, id)] = a
	case actSleep:
		d.seq++
		a.seq = d.seq
		i, _ := slices.BinarySearchFunc(d.sleepers, a, func(x, y *action) int {
			return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.seq, y.seq))
		})
		d.sleepers = slices.Insert(d.sleepers, i, a)
	}
	return settled
}

func callKey(proc string, id uint64) string { return proc + "/" + strconvU(id) }

// firstSleeper returns the earliest governed sleep of a process that is
// not paused (a paused process's sleep ends when it resumes).
func (d *driver) firstSleeper() *action {
	for _, s := range d.sleepers {
		if !s.p.paused {
			return s
		}
	}
	return nil
}

func (d *driver) wake(s *action) {
	i := slices.Index(d.sleepers, s)
	d.sleepers = slices.Delete(d.sleepers, i, i+1)
	now := d.now()
	d.proxy.do(func() { d.w.AdvanceTo(now); d.refresh() })
	s.done <- outcome{}
}

// apply carries out one world effect in the bubble.
func (d *driver) apply(e sim.Effect) {
	p := d.byName[e.Proc]
	switch e.Kind {
	case sim.EffectPause:
		d.mu.Lock()
		p.paused = true
		d.mu.Unlock()
	case sim.EffectCrash:
		// The incarnation is gone: its goroutines stop at their next
		// write, sleep or record as in a pause that never ends, nothing
		// they posted reaches the world, and its program no longer counts
		// as running (its return at the end is not counted again).
		d.mu.Lock()
		p.paused, p.dead = true, true
		d.mu.Unlock()
		if !p.exited {
			d.running-- // an exited program was counted off at its exit
		}
	case sim.EffectRestart:
		np := newXproc(d, p.name, p.idx, p.key)
		np.incarnation = p.incarnation + 1
		d.procs = append(d.procs, np)
		d.byName[p.name] = np
		d.launch(np)
	case sim.EffectResume:
		d.mu.Lock()
		p.paused = false
		ch := p.resume
		p.resume = make(chan struct{})
		d.mu.Unlock()
		close(ch)
		// The process's connections, its goroutines' own and those they
		// share: a goroutine of p may wait on one another dialed.
		for _, id := range sortedKeys(d.conns) {
			if c := d.conns[id]; c.p.process == p.process {
				c.poke()
			}
		}
	case sim.EffectStarve, sim.EffectStarveEnd:
		// Only the watchdog, the lock's renewals, is starved (sim refuses
		// the other tasks of an external client).
		d.mu.Lock()
		p.renewStarved = e.Kind == sim.EffectStarve
		d.mu.Unlock()
	case sim.EffectDialed:
		a, c := d.dials[e.Stream], d.conns[e.Stream]
		delete(d.dials, e.Stream)
		d.mu.Lock()
		gone := a.abandoned
		d.mu.Unlock()
		if gone {
			c.closed = true
			d.world(func(w *sim.World) { w.External(p.name).CloseStream(e.Stream) })
			return
		}
		a.done <- outcome{c: c}
	case sim.EffectRefused, sim.EffectReset:
		err := connRefused(e.Err)
		if e.Kind == sim.EffectReset {
			err = connReset()
		}
		if a := d.dials[e.Stream]; a != nil {
			delete(d.dials, e.Stream)
			delete(d.conns, e.Stream)
			d.mu.Lock()
			gone := a.abandoned
			d.mu.Unlock()
			if !gone {
				a.done <- outcome{err: err}
			}
			return
		}
		if c := d.conns[e.Stream]; c != nil {
			c.fail(err)
		}
	case sim.EffectData:
		if c := d.conns[e.Stream]; c != nil {
			c.deliver(e.Reply)
		}
	case sim.EffectPush:
		if c := d.conns[e.Stream]; c != nil {
			c.deliverPush(e.Reply)
		}
	case sim.EffectCallDone:
		k := callKey(e.Proc, e.Call)
		if a := d.calls[k]; a != nil {
			delete(d.calls, k)
			a.done <- outcome{reply: e.Reply, err: e.Err}
		}
	}
}

// end starts the shutdown: from now on every action fails at once, every
// connection is broken, and paused processes are let go, so that the
// client programs and the libraries' goroutines return.
func (d *driver) end() {
	d.ending.Store(true)
	d.mu.Lock()
	for _, p := range d.procs {
		if p.paused {
			p.paused = false
			close(p.resume)
			p.resume = make(chan struct{})
		}
	}
	pending := d.pending
	d.pending = nil
	d.mu.Unlock()
	for _, a := range pending {
		d.refuse(a)
	}
	for _, a := range d.sleepers {
		a.done <- outcome{err: errEnded}
	}
	d.sleepers = nil
	for _, id := range sortedKeys(d.dials) {
		d.dials[id].done <- outcome{err: errEnded}
	}
	d.dials = map[uint64]*action{}
	for _, k := range sortedKeys(d.calls) {
		d.calls[k].done <- outcome{err: errEnded}
	}
	d.calls = map[string]*action{}
	for _, id := range sortedKeys(d.conns) {
		d.conns[id].fail(errEnded)
	}
}

// errEnded is what client code gets from the world once the run is over.
var errEnded = errors.New("the simulated run is over")

// refuse completes an action after the run ended.
func (d *driver) refuse(a *action) {
	switch a.kind {
	case actExit:
		if !a.p.dead {
			d.running--
		}
		a.done <- outcome{}
	case actRecord, actSleep, actGate:
		if a.done != nil {
			a.done <- outcome{}
		}
	case actDial, actCall:
		a.done <- outcome{err: errEnded}
	}
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	ks := make([]K, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
