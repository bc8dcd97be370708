package sim

import (
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/sim/resp"
)

// External processes are client processes whose program runs outside the
// world (ClientConfig.External): real Go code, such as a lock library on
// go-redis, driven by a driver that owns their goroutines and clock (see
// package locksim/realclient). The world treats such a process as any
// other for faults, the network and the history; the difference is how
// its operations enter and leave:
//
//   - the driver calls the process's External methods (Dial, Send,
//     CloseStream, StreamTimeout, Call, Record, Exit) between world steps,
//     at the world's current time;
//   - the world reports what happened to the process (a stream opened, a
//     reply arrived, a pause began) as Effects, which the driver takes
//     with TakeEffects after each step or call and carries out in order.
//
// Streams are TCP-like connections to Redis nodes (stream.go): messages
// keep their order, a partition delays them, a lost message (random loss,
// a drop fault) breaks the stream, and a node that crashes resets its
// streams; a dial to a node that is down is refused.
//
// Invariants: while the process is paused, nothing reaches it (replies,
// stream outcomes, call timeouts queue and come out in order when it
// resumes, before EffectResume) and the driver must not call its methods
// but Exit (it holds the process's operations until EffectResume). A
// crash (EffectCrash) ends the process's incarnation: its streams are
// gone, nothing more reaches it, and the driver must never act for it
// again; a restart (EffectRestart) asks the driver for a new program.

// A refused dial is recorded as KindRefused with N the stream id and Note
// "dial"; a read deadline that expired with commands outstanding (the
// driver's StreamTimeout) as KindTimeout with the oldest command's Args.

// EffectKind says what an Effect asks the driver to do.
type EffectKind uint8

// The effects.
const (
	// EffectPause: the process froze (a pause fault) until true time Until.
	EffectPause EffectKind = iota + 1
	// EffectResume: the pause ended; everything that reached the process
	// during it has come out before this effect.
	EffectResume
	// EffectDialed: Stream is open.
	EffectDialed
	// EffectRefused: Stream's dial was refused (the node is down).
	EffectRefused
	// EffectData: Reply arrived on Stream.
	EffectData
	// EffectReset: Stream broke (Err says why); later sends on it vanish.
	EffectReset
	// EffectCallDone: the Call with id Call finished with Reply, or with Err
	// (ErrTimeout, ErrRefused).
	EffectCallDone
	// EffectCrash: the process crashed: its program and every goroutine of
	// it must never act again (the world drops whatever they do), its
	// streams are gone.
	EffectCrash
	// EffectRestart: the crashed process restarts: the driver starts a new
	// program for it, from scratch.
	EffectRestart
	// EffectStarve: the process's Task ("watchdog": its lock renewals)
	// gets no CPU until true time Until (a starve fault): the driver holds
	// that task's commands back until EffectStarveEnd (starve.go).
	EffectStarve
	// EffectStarveEnd: Task's starvation ended; what was held goes now.
	EffectStarveEnd
	// EffectPush: a RESP3 push (a client-tracking invalidation, Reply of
	// kind resp.Push) arrived on Stream, in order with its replies; it
	// answers no command (tracking.go).
	EffectPush
)

// Effect is one thing the world did to an external process.
type Effect struct {
	Kind   EffectKind
	Proc   string
	Stream uint64
	Call   uint64
	Reply  resp.Reply
	Err    error
	Until  time.Duration
	Task   string // EffectStarve, EffectStarveEnd
}

// ErrDialTimeout is an EffectReset's Err for a dial the node did not
// answer within Config.DialTimeout.
var ErrDialTimeout = errors.New("dial timeout: the node did not answer")

// ErrReset is an Effect's Err for a broken stream.
var ErrReset = errors.New("connection reset by peer")

// externals is the world's state for external processes.
type externals struct {
	live    int // external processes that have not exited
	byName  map[string]*External
	streams map[uint64]*stream
	lastID  uint64
	effects []Effect
}

// External is the world's handle on one external process. Its methods
// must be called from the goroutine that steps the world, between steps.
type External struct {
	w        *World
	p        *proc
	exited   bool
	deferred []func()         // deliveries held while paused, in order
	calls    map[uint64]*call // datagram calls awaiting reply or timeout
}

// External returns the handle of the external process name, or nil when
// there is no such process.
func (w *World) External(name string) *External {
	if w.ext == nil {
		return nil
	}
	return w.ext.byName[name]
}

// TakeEffects returns the effects produced since the last call, in order.
func (w *World) TakeEffects() []Effect {
	if w.ext == nil || len(w.ext.effects) == 0 {
		return nil
	}
	out := w.ext.effects
	w.ext.effects = nil
	return out
}

func (w *World) newExternal(p *proc) {
	if w.ext == nil {
		w.ext = &externals{byName: map[string]*External{}, streams: map[uint64]*stream{}}
	}
	x := &External{w: w, p: p, calls: map[uint64]*call{}}
	p.ext = x
	w.ext.byName[p.name] = x
}

func (x *External) effect(e Effect) {
	e.Proc = x.p.name
	x.w.ext.effects = append(x.w.ext.effects, e)
}

// startExternal is proc.start for an external process: it counts as live
// until Exit. A restart after the program had exited (a crash after its
// task-end) starts a new program, as a simulated client's Main runs again.
func (x *External) start() {
	x.exited = false
	x.w.ext.live++
}

// Name returns the process name.
func (x *External) Name() string { return x.p.name }

// Now returns the process's monotonic clock reading.
func (x *External) Now() time.Duration { return x.p.clock.Mono(x.w.now) }

// Primary returns the node the process believes is group's primary (it
// changes when the sentinel announces a failover).
func (x *External) Primary(group string) string { return x.p.view[group] }

// Paused reports whether the process is paused.
func (x *External) Paused() bool { return x.p.paused }

// active fails the run when the driver acts for a process that cannot act.
func (x *External) active(op string) bool {
	switch {
	case x.exited:
		x.w.fail(errors.Errorf("external client %s: %s after Exit (a bug in the driver)", x.p.name, op))
		return false
	case x.p.paused:
		x.w.fail(errors.Errorf("external client %s: %s while paused (a bug in the driver: it must hold the process's operations until EffectResume)", x.p.name, op))
		return false
	}
	return !x.w.done
}

// deliver runs fn now, or when the pause ends if the process is paused.
func (x *External) deliver(fn func()) {
	if x.exited || x.p.dead {
		return
	}
	if x.p.paused {
		x.deferred = append(x.deferred, fn)
		return
	}
	fn()
}

// crashed is called when the process crashes (a crash fault): every
// stream it had is gone for both sides (a command still on its way
// vanishes, as with a reset), its calls are forgotten, nothing more is
// delivered to this incarnation, and it no longer keeps the run going
// (a restart counts it again, proc.start).
func (x *External) crashed() {
	w := x.w
	x.deferred = nil
	x.calls = map[uint64]*call{}
	for _, s := range w.ext.streams {
		if s.x == x {
			s.broken, s.closed, s.inflight = true, true, nil
		}
	}
	if !x.exited {
		w.ext.live-- // an exited program no longer counted
	}
	x.effect(Effect{Kind: EffectCrash})
}

// restarted is called when the crashed process restarts.
func (x *External) restarted() { x.effect(Effect{Kind: EffectRestart}) }

// resumed is called when a pause ends: what was held comes out in order,
// one event each, then EffectResume.
func (x *External) resumed() {
	w := x.w
	queued := x.deferred
	x.deferred = nil
	for _, fn := range queued {
		fn := fn
		w.schedule(w.now, func() { x.deliver(fn) })
	}
	w.schedule(w.now, func() {
		if !x.p.paused && !x.exited {
			x.effect(Effect{Kind: EffectResume})
		}
	})
}

// paused is called when a pause begins.
func (x *External) paused(until time.Duration) {
	x.effect(Effect{Kind: EffectPause, Until: until})
}

// Record appends an event to the history as this process (Actor, Local
// and, if empty, Task "main" are filled in). Triggers matching it fire, so
// a pause "after A acquired" begins here: the driver sees EffectPause
// before it returns to the process.
func (x *External) Record(e Event) {
	if !x.active("Record " + string(e.Kind)) {
		return
	}
	e.Actor, e.Local = x.p.name, x.Now()
	if e.Task == "" {
		e.Task = "main"
	}
	x.w.record(&e)
}

// Exit ends the process's program (note: its error, if any): it records
// KindTaskEnd and no longer keeps the run going.
func (x *External) Exit(note string) {
	if x.exited {
		return
	}
	x.w.record(&Event{Actor: x.p.name, Task: "main", Kind: KindTaskEnd, Local: x.Now(), Note: note})
	x.exited = true
	x.deferred = nil
	x.w.ext.live--
}

// Call sends a request to target (a service, a node or a group) as a
// single message, as Ctx.Call does, and returns its id; the outcome comes
// as EffectCallDone: the reply, ErrRefused, or ErrTimeout when nothing
// came within timeout on the process's monotonic clock.
func (x *External) Call(target string, timeout time.Duration, args []string) uint64 {
	if !x.active("Call") {
		return 0
	}
	w, p := x.w, x.p
	if len(args) == 0 {
		w.fail(errors.Errorf("external client %s: Call with no command", p.name))
		return 0
	}
	p.calls++
	c := &call{x: x, id: p.calls, to: w.resolve(p, target), args: args}
	w.record(&Event{Actor: p.name, Task: "main", Kind: KindCall, Local: x.Now(), Peer: c.to, Args: args})
	if w.nodes[c.to] == nil && w.services[c.to] == nil {
		w.fail(errors.Errorf("client %s called unknown target %q", p.name, target))
		return 0
	}
	x.calls[c.id] = c
	f := w.net.Send(p.name, c.to, w.now, false)
	if !f.Delivered {
		w.record(&Event{Actor: p.name, Task: "main", Kind: KindLost, Local: x.Now(), Peer: c.to, Note: f.Why + " (request)"})
	} else {
		w.scheduleAction(f.At, action{kind: actRequest, c: c})
	}
	w.schedule(p.clock.TrueAfterMono(w.now, timeout), func() {
		x.deliver(func() {
			if x.calls[c.id] != c {
				return
			}
			delete(x.calls, c.id)
			w.record(&Event{Actor: p.name, Task: "main", Kind: KindTimeout, Local: x.Now(), Peer: c.to, Args: c.args})
			x.effect(Effect{Kind: EffectCallDone, Call: c.id, Err: ErrTimeout})
		})
	})
	return c.id
}

// callReplied is deliverReply for a datagram call of an external process.
func (x *External) callReplied(c *call) {
	w, p := x.w, x.p
	if x.exited {
		return
	}
	if x.calls[c.id] != c {
		w.recordBounded(&Event{Actor: p.name, Task: "main", Kind: KindLateReply, Local: x.Now(), Peer: c.to, Reply: c.text()})
		return
	}
	x.deliver(func() {
		if x.calls[c.id] != c {
			w.recordBounded(&Event{Actor: p.name, Task: "main", Kind: KindLateReply, Local: x.Now(), Peer: c.to, Reply: c.text()})
			return
		}
		delete(x.calls, c.id)
		kind := KindReply
		if c.err == ErrRefused {
			kind = KindRefused
		}
		w.recordBounded(&Event{Actor: p.name, Task: "main", Kind: kind, Local: x.Now(), Peer: c.to, Reply: c.text()})
		x.effect(Effect{Kind: EffectCallDone, Call: c.id, Reply: c.reply, Err: c.err})
	})
}

// validateExternalFault refuses the faults an external process cannot
// take: a crash (the world cannot stop code it does not run) and a change
// of its clock (its driver owns its clock).
func validateExternalFault(clients []ClientConfig, i int, f Fault) error {
	for _, cc := range clients {
		if !cc.External || cc.Name != f.Target {
			continue
		}
		switch f.Kind {
		case FaultClockJump, FaultClockDrift:
			return errors.Errorf("faults[%d] (%s): client %s is external: its driver owns its clock", i, f.Kind, f.Target)
		case FaultStarve:
			if f.Task != "watchdog" {
				return errors.Errorf("faults[%d] (%s): client %s is external: only task=watchdog can be starved (its driver holds the lock's renewal commands back); its other goroutines are the caller's program and the library's, which the world does not schedule, got task=%s", i, f.Kind, f.Target, bounded.Q(f.Task))
			}
		}
	}
	return nil
}

// WouldRun reports whether node would run args as sent rather than answer
// NOSCRIPT: false for an EVALSHA of a script the node does not have now.
// It runs nothing and records nothing. A driver uses it to tell a
// library's script-cache probe from its real request.
func (x *External) WouldRun(node string, args []string) bool {
	n := x.w.nodes[node]
	if n == nil || !n.up || len(args) < 2 {
		return n != nil && n.up
	}
	if cmd := strings.ToUpper(args[0]); cmd != "EVALSHA" && cmd != "EVALSHA_RO" {
		return true
	}
	n.sync()
	r := n.eng.NewConn().Do("SCRIPT", "EXISTS", args[1])
	return len(r.Elems) == 1 && r.Elems[0].Int == 1
}
