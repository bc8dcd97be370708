package sim

import (
	"sync"

	"github.com/pkg/errors"

	"locksim/sim/resp"
)

// call is one request in flight: a task's command on its way to an
// endpoint and its reply on the way back. It is the one allocation a call
// costs the simulator: the events of its life (delivery, reply, timeout)
// refer to it instead of capturing closures.
type call struct {
	t *task
	// x is the external process that sent the call, instead of t
	// (external.go); s its stream, for a command on a stream (stream.go).
	x    *External
	s    *stream
	id   uint64 // unique per process
	gen  uint64 // the task's wakeGen when it called; later ones make this call stale
	to   string // the endpoint: a node or a service (a group resolved)
	args []string
	// node or svc is to's endpoint when sendRequest resolved it (nil
	// otherwise: deliverRequest looks to up), so that a call looks its
	// endpoint up by name once.
	node *node
	svc  *service

	reply    resp.Reply
	err      error
	rendered string // the reply as recorded (bounded: recordedReply), once rendered
}

// callSlab is how many calls a world allocates at once: a client's every
// command is a call, and one allocation per command was a tenth of a check
// run's bytes and allocations.
const callSlab = 64

// slabPool recycles call slabs across runs (and goroutines): a standard
// run's calls were a third of its bytes.
var slabPool = sync.Pool{New: func() any { return new([callSlab]call) }}

// newCall returns a zero call from the world's current slab. Calls are
// never reused within a run (a stale timeout or reply still points at its
// call), only allocated together; the world hands its slabs back when the
// run ends (releaseCalls), when nothing of it runs any more.
func (w *World) newCall() *call {
	if len(w.callSlab) == 0 {
		s := slabPool.Get().(*[callSlab]call)
		w.slabs = append(w.slabs, s)
		w.callSlab = s[:]
	}
	c := &w.callSlab[0]
	w.callSlab = w.callSlab[1:]
	return c
}

// releaseCalls zeroes the run's call slabs and hands them back to the
// pool; the world must not run again.
func (w *World) releaseCalls() {
	for _, s := range w.slabs {
		clear(s[:])
		slabPool.Put(s)
	}
	w.slabs, w.callSlab = nil, nil
}

// text renders the reply (or error) for the history, once.
func (c *call) text() string {
	if c.rendered == "" {
		c.rendered = replyText(c.reply, c.err)
	}
	return c.rendered
}

// resolve maps a call target to an endpoint: a group name becomes the
// primary this process believes in.
func (w *World) resolve(p *proc, target string) string {
	if n, ok := p.view[target]; ok {
		return n
	}
	return target
}

// sendRequest sends c, the calling task's pending command, over the network.
func (w *World) sendRequest(c *call) {
	t := c.t
	p := t.p
	c.to = w.resolve(p, t.target)
	c.args = t.args
	w.record(&Event{Actor: p.name, Task: t.name, Kind: KindCall, Local: p.clock.Mono(w.now), Peer: c.to, Args: c.args})
	if c.node = w.nodes[c.to]; c.node == nil {
		c.svc = w.services[c.to]
	}
	if c.node == nil && c.svc == nil {
		w.fail(errors.Errorf("client %s called unknown target %q", p.name, t.target))
		return
	}
	f := w.net.Send(p.name, c.to, w.now, false)
	if !f.Delivered {
		w.record(&Event{Actor: p.name, Task: t.name, Kind: KindLost, Local: p.clock.Mono(w.now), Peer: c.to, Note: f.Why + " (request)"})
		return
	}
	w.scheduleAction(f.At, action{kind: actRequest, c: c})
}

// deliverRequest hands c to its endpoint, which replies now or later.
func (w *World) deliverRequest(c *call) {
	from := c.caller().name
	n, s := c.node, c.svc
	if n == nil && s == nil {
		n = w.nodes[c.to]
	}
	if n != nil {
		n.handle(from, c)
		return
	}
	if s == nil {
		s = w.services[c.to]
	}
	w.sendReply(c, s.h.Handle(&s.ctx, from, c.args), nil)
}

// sendReply carries c's reply (or a refusal) back to the calling task.
func (w *World) sendReply(c *call, r resp.Reply, err error) {
	if c.s != nil {
		c.s.reply(c, r, err) // a command on an external process's stream
		return
	}
	c.reply, c.err = r, err
	p := c.caller()
	f := w.net.Send(c.to, p.name, w.now, false)
	if !f.Delivered {
		w.record(&Event{Actor: c.to, Kind: KindLost, Peer: p.name, Note: f.Why + " (reply)"})
		return
	}
	w.scheduleAction(f.At, action{kind: actReply, c: c})
}

// deliverReply wakes the caller with c's reply, or records it as late when
// the caller stopped waiting for it.
func (w *World) deliverReply(c *call) {
	if c.x != nil {
		c.x.callReplied(c) // an external process's call
		return
	}
	t := c.t
	p := t.p
	if p.incarnation != t.incarnation {
		return
	}
	if t.finished || t.waitingCall != c.id || t.wakeGen != c.gen {
		w.recordBounded(&Event{Actor: p.name, Task: t.name, Kind: KindLateReply, Local: p.clock.Mono(w.now), Peer: c.to, Reply: c.text()})
		return
	}
	w.wake(action{kind: actWakeReply, t: t, gen: c.gen, c: c})
}

// callTimedOut wakes the caller with ErrTimeout unless c was answered.
func (w *World) callTimedOut(c *call) {
	t := c.t
	if t.waitingCall != c.id || t.wakeGen != c.gen {
		return
	}
	w.wake(action{kind: actWakeTimeout, t: t, gen: c.gen, c: c})
}

// replyText renders a reply (or error) as a history records it,
// bounded (recordedReply).
func replyText(r resp.Reply, err error) string {
	if err != nil {
		return boundText(err.Error())
	}
	return recordedReply(r)
}
