package sim

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"runtime/debug"
	"time"

	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/sim/resp"
)

// proc is a simulated client process: one or more tasks (coroutines)
// sharing a clock, a generator, a view of the topology and a fate (pause,
// crash).
type proc struct {
	w     *World
	name  string
	clock *clock.Clock
	rng   *rand.Rand
	main  func(*Ctx) error

	tasks       []*task
	incarnation int           // bumped by every crash; stale events check it
	dead        bool          // crashed and not restarted
	pausedUntil time.Duration // paused while now < pausedUntil
	paused      bool
	deferred    []action    // wake-ups and operations queued while paused, run in order on resume
	starve      *starvation // starved tasks (starve.go); nil until a starve fault

	view    map[string]string // group -> primary this process believes in
	slots   map[int]string    // on a cluster: slot -> node, as MOVED replies taught it
	routed  string            // on a cluster: the node the last routed command went to
	mailbox map[string]int    // pub/sub channel -> undelivered messages
	subs    map[string]string // channel -> node subscribed on
	calls   uint64            // call ids, unique per process

	ext *External // non-nil for an external process (external.go)
	// process is ClientConfig.Process: the process whose streams this
	// external client may share.
	process string
}

// task is one coroutine of a process.
type task struct {
	p           *proc
	name        string
	incarnation int
	next        func() (struct{}, bool)
	stop        func()
	yield       func(struct{}) bool
	finished    bool
	isMain      bool

	// The pending operation, set by a Ctx method before it yields.
	op      opKind
	target  string
	args    []string
	timeout time.Duration
	channel string

	// The outcome, set by the scheduler before it resumes the task.
	waitingCall uint64 // id of the outstanding call, 0 if none
	wakeGen     uint64 // bumped on every resume; stale timers check it
	reply       resp.Reply
	callErr     error
	panicked    any
	stack       []byte
	result      error
}

type opKind uint8

const (
	opNone opKind = iota
	opCall
	opSleep
	opWaitMsg
)

// stopSignal unwinds a coroutine that the world stopped.
type stopSignal struct{}

// ErrTimeout is returned by Ctx.Call when no reply came within the timeout.
// The command may or may not have executed: the outcome is ambiguous.
var ErrTimeout = errors.New("timeout")

// ErrRefused is returned by Ctx.Call when the node was down: the command
// did not execute.
var ErrRefused = errors.New("connection refused")

func (p *proc) start() {
	p.slots, p.routed = nil, "" // a restarted process reads the cluster's slot map anew
	p.view = map[string]string{}
	for name, g := range p.w.groups {
		p.view[name] = g.primary
	}
	p.mailbox = map[string]int{}
	p.subs = map[string]string{}
	if p.ext != nil {
		p.ext.start() // its program runs outside the world
		return
	}
	p.w.liveMain++
	p.spawn("main", p.main, true)
}

// spawn creates a task and schedules its first step at the current time.
func (p *proc) spawn(name string, fn func(*Ctx) error, isMain bool) {
	t := &task{p: p, name: name, incarnation: p.incarnation, isMain: isMain}
	ctx := &Ctx{w: p.w, t: t}
	seq := func(yield func(struct{}) bool) {
		t.yield = yield
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stopSignal); ok {
					return
				}
				t.panicked = r
				t.stack = debug.Stack()
			}
		}()
		t.result = fn(ctx)
	}
	t.next, t.stop = iter.Pull(seq)
	p.tasks = append(p.tasks, t)
	p.w.scheduleAction(p.w.now, action{kind: actWake, t: t})
}

// killTasks stops every unfinished task of the process.
func (p *proc) killTasks() {
	for _, t := range p.tasks {
		if !t.finished {
			t.finished = true
			t.stop()
			if t.isMain {
				p.w.liveMain--
			}
		}
	}
	p.tasks = nil
}

// wake resumes a.t with the outcome a stands for (a.kind: one of the
// actWake kinds), unless the wake-up is stale: the task moved on (a.gen),
// finished, or its process crashed. While the process is paused, the
// wake-up queues and runs on resume.
func (w *World) wake(a action) {
	t := a.t
	p := t.p
	if t.finished || t.incarnation != p.incarnation || p.dead || a.gen != t.wakeGen {
		return
	}
	if p.paused {
		p.deferred = append(p.deferred, a)
		return
	}
	if p.starve != nil && p.hold(t, a) {
		return
	}
	t.wakeGen++
	t.waitingCall = 0
	switch a.kind {
	case actWakeReply:
		c := a.c
		t.reply, t.callErr = c.reply, c.err
		kind := KindReply
		if c.err == ErrRefused {
			kind = KindRefused
		}
		w.recordBounded(&Event{Actor: p.name, Task: t.name, Kind: kind, Local: p.clock.Mono(w.now), Peer: c.to, Reply: c.text()})
	case actWakeTimeout:
		t.reply, t.callErr = resp.Reply{}, ErrTimeout
		w.record(&Event{Actor: p.name, Task: t.name, Kind: KindTimeout, Local: p.clock.Mono(w.now), Peer: a.c.to, Args: a.c.args})
	case actWakeMsg:
		t.callErr = nil
	case actWakeNoMsg:
		t.callErr = ErrTimeout
	}
	w.step(t)
}

// step runs t until its next operation and carries the operation out.
func (w *World) step(t *task) {
	t.op = opNone
	w.current = t
	_, ok := t.next()
	w.current = nil
	p := t.p
	if !ok || t.panicked != nil {
		w.finish(t)
		return
	}
	if p.dead || t.incarnation != p.incarnation {
		return // killed while running; killTasks already stopped the rest
	}
	if p.paused {
		// The process froze while this task ran (a trigger fired): the
		// operation waits for the resume.
		p.deferred = append(p.deferred, action{kind: actPerform, t: t})
		return
	}
	w.perform(t)
}

func (w *World) finish(t *task) {
	p := t.p
	if t.finished {
		return
	}
	t.finished = true
	note := ""
	if t.panicked != nil {
		w.fail(errors.Errorf("client %s task %s panicked: %v\n%s", p.name, t.name, t.panicked, t.stack))
		note = fmt.Sprint("panic: ", t.panicked)
	} else if t.result != nil {
		note = t.result.Error()
		w.fail(errors.Wrapf(t.result, "client %s task %s", p.name, t.name))
	}
	w.record(&Event{Actor: p.name, Task: t.name, Kind: KindTaskEnd, Local: p.clock.Mono(w.now), Note: note})
	if t.isMain {
		w.liveMain--
		// The process ends with its Main: stop its background tasks.
		for _, o := range p.tasks {
			if o != t && !o.finished {
				o.finished = true
				o.stop()
			}
		}
	}
}

// perform carries out the operation t yielded.
func (w *World) perform(t *task) {
	p := t.p
	if t.finished || p.dead || t.incarnation != p.incarnation {
		return
	}
	if p.starve != nil && p.hold(t, action{kind: actPerform, t: t}) {
		return
	}
	gen := t.wakeGen
	switch t.op {
	case opSleep:
		w.scheduleAction(p.clock.TrueAfterMono(w.now, t.timeout), action{kind: actWake, t: t, gen: gen})
	case opCall:
		p.calls++
		c := w.newCall()
		c.t, c.id, c.gen = t, p.calls, gen
		t.waitingCall = c.id
		w.sendRequest(c)
		w.scheduleAction(p.clock.TrueAfterMono(w.now, t.timeout), action{kind: actCallTimeout, c: c})
	case opWaitMsg:
		if p.mailbox[t.channel] > 0 {
			p.mailbox[t.channel]--
			w.wake(action{kind: actWakeMsg, t: t, gen: gen})
			return
		}
		t.waitingCall = ^uint64(0)
		w.scheduleAction(p.clock.TrueAfterMono(w.now, t.timeout), action{kind: actWakeNoMsg, t: t, gen: gen})
	default:
		w.fail(errors.Errorf("client %s task %s yielded no operation", p.name, t.name))
	}
}

// deliverMessage hands a pub/sub message to a process.
func (w *World) deliverMessage(p *proc, channel, from string, incarnation int) {
	if p.dead || p.incarnation != incarnation {
		return
	}
	w.record(&Event{Actor: p.name, Kind: KindMessage, Local: p.clock.Mono(w.now), Peer: from, Key: channel})
	for _, t := range p.tasks {
		if !t.finished && t.op == opWaitMsg && t.channel == channel && t.waitingCall == ^uint64(0) {
			w.wake(action{kind: actWakeMsg, t: t, gen: t.wakeGen})
			return
		}
	}
	p.mailbox[channel]++
}

// pause freezes p for d.
func (p *proc) pause(d time.Duration) {
	w := p.w
	end := w.now + d
	if end > p.pausedUntil {
		p.pausedUntil = end
	}
	p.paused = true
	w.record(&Event{Actor: p.name, Kind: KindPause, Local: p.clock.Mono(w.now), Dur: d})
	if p.ext != nil {
		p.ext.paused(p.pausedUntil) // its driver freezes its network now
	}
	inc := p.incarnation
	w.schedule(end, func() {
		if p.incarnation != inc || p.dead || w.now < p.pausedUntil || !p.paused {
			return
		}
		p.paused = false
		w.record(&Event{Actor: p.name, Kind: KindResume, Local: p.clock.Mono(w.now)})
		queued := p.deferred
		p.deferred = nil
		for _, a := range queued {
			w.scheduleAction(w.now, a)
		}
		if p.ext != nil {
			p.ext.resumed()
		}
	})
}

// crash stops p; with restart it starts again with no memory after d.
func (p *proc) crash(restart bool, d time.Duration) {
	w := p.w
	if p.dead {
		return
	}
	w.record(&Event{Actor: p.name, Kind: KindCrash, Local: p.clock.Mono(w.now), Dur: d})
	p.dead = true
	p.incarnation++
	p.paused = false
	p.pausedUntil = 0
	p.deferred = nil
	for ch, node := range p.subs {
		if n := w.nodes[node]; n != nil {
			n.unsubscribe(ch, p.name)
		}
	}
	// A task may be running right now (the crash was triggered by its own
	// event): stop the others now and that one when it yields.
	running := w.current
	for _, t := range p.tasks {
		if t.finished {
			continue
		}
		t.finished = true
		if t.isMain {
			w.liveMain--
		}
		// The running task cannot stop itself: it unwinds at its next call
		// into the world (mustLive), before control returns to the loop.
		if t != running {
			t.stop()
		}
	}
	p.tasks = nil
	if p.ext != nil {
		p.ext.crashed()
	}
	if restart {
		w.liveMain++ // the restarted Main keeps the run going meanwhile
		w.schedule(w.now+d, func() {
			w.liveMain--
			p.dead = false
			w.record(&Event{Actor: p.name, Kind: KindRestart, Local: p.clock.Mono(w.now)})
			p.start()
			if p.ext != nil {
				p.ext.restarted()
			}
		})
	}
}

// Ctx is a task's handle on the world. Every method must be called from
// the task's own coroutine. Methods that wait (Call, Sleep, WaitMessage)
// hand control back to the event loop; the others return at once and take
// no simulated time.
type Ctx struct {
	w *World
	t *task
}

func (c *Ctx) yield() {
	c.mustLive()
	if !c.t.yield(struct{}{}) {
		panic(stopSignal{})
	}
}

// mustLive unwinds the task when its process crashed while it ran (a crash
// triggered by the task's own event): a dead process does nothing more.
func (c *Ctx) mustLive() {
	t := c.t
	if t.finished || t.p.dead || t.incarnation != t.p.incarnation {
		panic(stopSignal{})
	}
}

// Name returns the process name ("A").
func (c *Ctx) Name() string { return c.t.p.name }

// Task returns the task name ("main", "watchdog").
func (c *Ctx) Task() string { return c.t.name }

// Now returns the process's monotonic clock reading.
func (c *Ctx) Now() time.Duration { return c.t.p.clock.Mono(c.w.now) }

// Wall returns the process's wall clock reading.
func (c *Ctx) Wall() time.Time { return c.w.wall(c.t.p.clock) }

// Rand returns the process's generator, derived from the run's seed.
func (c *Ctx) Rand() *rand.Rand { return c.t.p.rng }

// Sleep waits d on the process's monotonic clock.
func (c *Ctx) Sleep(d time.Duration) {
	c.t.op, c.t.timeout = opSleep, d
	c.yield()
}

// Call sends a command to target (a group, resolved to the primary this
// process believes in, a node, or a service) and waits at most timeout on
// the process's monotonic clock for the reply. It returns ErrTimeout when
// no reply came (the outcome is unknown) and ErrRefused when the node was
// down. Redis error replies are returned as replies, not errors.
func (c *Ctx) Call(target string, timeout time.Duration, args ...string) (resp.Reply, error) {
	if len(args) == 0 {
		panic("sim: Call with no command")
	}
	if c.w.cluster != nil && c.w.groups[target] != nil {
		return c.clusterCall(timeout, args) // routed by slot (cluster_client.go)
	}
	c.t.op, c.t.target, c.t.args, c.t.timeout = opCall, target, args, timeout
	c.yield()
	return c.t.reply, c.t.callErr
}

// Subscribe subscribes the process to a pub/sub channel on target (as
// Redis SUBSCRIBE; the subscription is modelled by the simulator, not by
// miniredis). Messages are then waited for with WaitMessage.
func (c *Ctx) Subscribe(target string, timeout time.Duration, channel string) error {
	_, err := c.Call(target, timeout, "SUBSCRIBE", channel)
	if err == nil {
		c.t.p.subs[channel] = c.w.resolve(c.t.p, target)
	}
	return err
}

// WaitMessage waits up to timeout for a message on channel and reports
// whether one came.
func (c *Ctx) WaitMessage(channel string, timeout time.Duration) bool {
	c.t.op, c.t.channel, c.t.timeout = opWaitMsg, channel, timeout
	c.yield()
	return c.t.callErr == nil
}

// Go starts a background task in the same process. It shares the process's
// fate: a pause freezes it, a crash kills it, and it stops when Main
// returns.
func (c *Ctx) Go(name string, fn func(*Ctx) error) {
	c.mustLive()
	c.t.p.spawn(name, fn, false)
}

// Record appends an event to the history as this task: Actor, Task, At and
// Local are filled in. Triggers matching the event fire.
func (c *Ctx) Record(e Event) {
	c.mustLive()
	e.Actor, e.Task, e.Local = c.t.p.name, c.t.name, c.Now()
	c.w.record(&e)
}

// Groups returns the configured group names in configuration order.
func (c *Ctx) Groups() []string {
	out := make([]string, 0, len(c.w.cfg.Groups))
	for _, g := range c.w.cfg.Groups {
		out = append(out, g.Name)
	}
	return out
}

// IsNode reports whether name is a Redis node (not a group or service).
func (c *Ctx) IsNode(name string) bool { return c.w.nodes[name] != nil }

// Primary returns the node this process believes is group's primary.
func (c *Ctx) Primary(group string) string { return c.t.p.view[group] }

// Server returns the Redis or Valkey release the nodes model
// (Config.Server).
func (c *Ctx) Server() Version { return c.w.version }
