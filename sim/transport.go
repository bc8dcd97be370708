package sim

import (
	"github.com/pkg/errors"

	"locksim/sim/resp"
)

// resolve maps a call target to an endpoint: a group name becomes the
// primary this process believes in.
func (w *World) resolve(p *proc, target string) string {
	if n, ok := p.view[target]; ok {
		return n
	}
	return target
}

// sendRequest sends t's pending call with id over the network.
func (w *World) sendRequest(t *task, id uint64) {
	p := t.p
	to := w.resolve(p, t.target)
	args := t.args
	w.record(Event{Actor: p.name, Task: t.name, Kind: KindCall, Local: p.clock.Mono(w.now), Peer: to, Args: args})
	n, s := w.nodes[to], w.services[to]
	if n == nil && s == nil {
		w.fail(errors.Errorf("sim: client %s called unknown target %q", p.name, t.target))
		return
	}
	f := w.net.Send(p.name, to, w.now, false)
	if !f.Delivered {
		w.record(Event{Actor: p.name, Task: t.name, Kind: KindLost, Local: p.clock.Mono(w.now), Peer: to, Note: f.Why + " (request)"})
		return
	}
	gen := t.wakeGen
	w.schedule(f.At, func() {
		reply := func(r resp.Reply, err error) { w.sendReply(to, t, id, gen, r, err) }
		if n != nil {
			n.handle(p.name, args, reply)
			return
		}
		sc := &ServiceCtx{w: w, name: to}
		reply(s.h.Handle(sc, p.name, args), nil)
	})
}

// sendReply carries a reply (or a refusal) back to the calling task.
func (w *World) sendReply(from string, t *task, id, gen uint64, r resp.Reply, err error) {
	p := t.p
	inc := t.incarnation
	f := w.net.Send(from, p.name, w.now, false)
	if !f.Delivered {
		w.record(Event{Actor: from, Kind: KindLost, Peer: p.name, Note: f.Why + " (reply)"})
		return
	}
	w.schedule(f.At, func() {
		if p.incarnation != inc {
			return
		}
		if t.finished || t.waitingCall != id || t.wakeGen != gen {
			w.record(Event{Actor: p.name, Task: t.name, Kind: KindLateReply, Local: p.clock.Mono(w.now), Peer: from, Reply: replyText(r, err)})
			return
		}
		w.wake(t, gen, func() {
			t.reply, t.callErr = r, err
			kind := KindReply
			if err == ErrRefused {
				kind = KindRefused
			}
			w.record(Event{Actor: p.name, Task: t.name, Kind: kind, Local: p.clock.Mono(w.now), Peer: from, Reply: replyText(r, err)})
		})
	})
}

func replyText(r resp.Reply, err error) string {
	if err != nil {
		return err.Error()
	}
	return r.String()
}
