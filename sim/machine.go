package sim

import (
	"math/rand/v2"
	"time"

	"github.com/pkg/errors"

	"locksim/sim/resp"
)

// Machine is a node program other than Redis: the consensus nodes of
// package consensus. A node whose NodeConfig.Machine is set runs it instead
// of a miniredis instance, and keeps everything else a node has: its name
// as a network endpoint (partitions, delays and drops apply), its clock
// (jumps and drift), crash and restart faults. The world calls a Machine
// on the event loop, one call at a time; a Machine must be deterministic,
// must not block, and must draw randomness only from MachineCtx.Rand.
//
// A Machine owns its persistence: Crash drops what a real process loses
// (its memory) and keeps what it wrote to its own durable store; Boot after
// a restart starts from that store.
type Machine interface {
	// Boot starts the machine: once when the run starts and again after
	// every restart.
	Boot(mc *MachineCtx)
	// Request hands the machine a client's request. The machine answers it
	// at most once, now or later, with MachineCtx.Reply; a request left
	// unanswered when the node crashes is never answered (the client times
	// out).
	Request(mc *MachineCtx, r Request)
	// Deliver hands the machine a message another machine sent it with
	// MachineCtx.Send.
	Deliver(mc *MachineCtx, from string, msg any)
	// Wake runs the timer set with MachineCtx.After under tag.
	Wake(mc *MachineCtx, tag int)
	// Crash tells the machine its node stopped: it must forget its
	// volatile state. Timers and messages to it are dropped from now on.
	Crash()
}

// Request is one client request to a Machine.
type Request struct {
	// From is the calling client; Args the command.
	From string
	Args []string

	c   *call
	inc int // the node's incarnation when the request arrived
}

// MachineCtx is what a Machine may use: its node's clock, generator,
// timers, the network and the history.
type MachineCtx struct{ n *node }

// Name returns the node's name ("r1").
func (mc *MachineCtx) Name() string { return mc.n.name }

// Mono returns the node's monotonic clock: drift (a rate fault) moves it,
// a wall-clock step does not, as Go's monotonic reading on a real host.
func (mc *MachineCtx) Mono() time.Duration { return mc.n.clock.Mono(mc.n.w.now) }

// Wall returns the node's wall clock as time since clock.Epoch.
func (mc *MachineCtx) Wall() time.Duration { return mc.n.local() }

// Rand returns the node's generator, derived from the run's seed; it is
// the same generator across restarts.
func (mc *MachineCtx) Rand() *rand.Rand { return mc.n.mrng }

// After runs Wake(tag) once d has passed on the node's monotonic clock
// (d > 0). The timer dies with the node's incarnation.
func (mc *MachineCtx) After(d time.Duration, tag int) {
	n := mc.n
	inc := n.incarnation
	at := n.clock.TrueAfterMono(n.w.now, d)
	n.w.schedule(at, func() {
		if n.up && n.incarnation == inc && !n.whenServing(func() { n.cfg.Machine.Wake(&n.mctx, tag) }) {
			n.cfg.Machine.Wake(&n.mctx, tag)
		}
	})
}

// Send carries msg to the machine on node to over the network: a
// partition or a drop loses it, latency and delay windows apply. It is
// lost, too, when either node crashed before it lands (the connection
// broke). msg must not be changed after Send.
func (mc *MachineCtx) Send(to string, msg any) {
	n := mc.n
	dst := n.w.nodes[to]
	if dst == nil || dst.cfg.Machine == nil {
		n.w.fail(errUnknownMachine(n.name, to))
		return
	}
	f := n.w.net.Send(n.name, to, n.w.now, false)
	if !f.Delivered {
		return
	}
	from, fromInc, toInc := n.name, n.incarnation, dst.incarnation
	n.w.schedule(f.At, func() {
		if dst.up && dst.incarnation == toInc && n.incarnation == fromInc &&
			!dst.whenServing(func() { dst.cfg.Machine.Deliver(&dst.mctx, from, msg) }) {
			dst.cfg.Machine.Deliver(&dst.mctx, from, msg)
		}
	})
}

// Reply answers r: it records the node's exec event (the command took
// effect now) and sends the reply over the network, unless the node
// crashed since r arrived.
func (mc *MachineCtx) Reply(r Request, reply resp.Reply) {
	n := mc.n
	if !n.up || n.incarnation != r.inc {
		return
	}
	r.c.rendered = recordedReply(reply)
	n.w.recordBounded(&Event{Actor: n.name, Kind: KindExec, Local: n.local(), Peer: r.From, Args: r.Args, Reply: r.c.rendered})
	if !n.up || n.incarnation != r.inc {
		return // a fault triggered by the exec crashed the node: no reply
	}
	n.w.sendReply(r.c, reply, nil)
}

// Record appends an event to the history as the node.
func (mc *MachineCtx) Record(e Event) {
	e.Actor, e.Local = mc.n.name, mc.n.local()
	mc.n.w.record(&e)
}

// bootMachine starts the node's machine (at the run's start, after a
// restart).
func (n *node) bootMachine() {
	n.mctx = MachineCtx{n: n}
	n.cfg.Machine.Boot(&n.mctx)
}

// handleMachine hands a client's request to the node's machine.
func (n *node) handleMachine(client string, c *call) {
	if !n.up {
		n.w.sendReply(c, resp.Reply{}, ErrRefused)
		return
	}
	if n.whenServing(func() { n.handleMachine(client, c) }) {
		return // stalled: the process runs nothing until the resume (stall.go)
	}
	n.cfg.Machine.Request(&n.mctx, Request{From: client, Args: c.args, c: c, inc: n.incarnation})
}

func errUnknownMachine(from, to string) error {
	return errors.Errorf("machine %s sent a message to %q, which is not a machine node", from, to)
}

// Machines returns the names of the nodes that run a Machine, in config
// order (a consensus design addresses them by name).
func (c *Ctx) Machines() []string {
	var names []string
	for _, n := range c.w.nodeList {
		if n.cfg.Machine != nil {
			names = append(names, n.name)
		}
	}
	return names
}

// RecordFor appends an event to the history as another machine node, on
// that node's clock: a consensus cluster records the key events of its
// committed state on every member at once (package consensus explains
// why). node must run a Machine.
func (mc *MachineCtx) RecordFor(node string, e Event) {
	n := mc.n.w.nodes[node]
	if n == nil || n.cfg.Machine == nil {
		mc.n.w.fail(errUnknownMachine(mc.n.name, node))
		return
	}
	e.Actor, e.Local = n.name, n.local()
	mc.n.w.record(&e)
}

// ClientsDone reports whether every client program has ended and the run
// is only draining what is in flight (Config.Drain): a machine may stop
// its own timers then, as nobody is left to observe them.
func (mc *MachineCtx) ClientsDone() bool {
	return mc.n.w.live() == 0 && mc.n.w.cfg.Until == 0
}

// Fail stops the run with err: the machine cannot go on (its own
// invariant broke). The run returns the error; nothing panics.
func (mc *MachineCtx) Fail(err error) { mc.n.w.fail(err) }

// MachineInspector is a Machine that tells World.NodeValue what its node
// holds for a key now (as a key event would render it); a test oracle
// reads it. A machine that does not implement it reads as empty.
type MachineInspector interface {
	Value(key string) string
}
