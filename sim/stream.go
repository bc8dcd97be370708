package sim

import (
	"slices"
	"strconv"
	"time"

	"github.com/pkg/errors"

	"locksim/sim/resp"
)

// stream is a TCP-like connection from an external process to a Redis
// node. The client side and the node side each have their own view:
//
//   - the node accepts the stream when the dial (SYN) arrives and it is
//     up; a node that is down answers with a reset and the dial is refused;
//   - commands travel in order (network.SendStream: FIFO per link, a
//     partition delays them); a lost command or reply breaks the stream,
//     but one a blackhole partition swallows (network.Fate.Silent) just
//     vanishes: the stream stays up and the client learns only by its
//     own read deadline;
//   - a dial not answered within Config.DialTimeout fails (ErrDialTimeout);
//   - the node runs each command on the stream's own connection state
//     (its own MULTI, SELECT, client name) and replies in order;
//   - a node that crashes resets every stream it accepted; a command that
//     reaches a node whose incarnation changed since it accepted the stream
//     resets it too;
//   - a stream the client closed still delivers the commands already sent
//     (TCP sends its data before the FIN); their replies are late replies.
type stream struct {
	id       uint64
	key      string // the node's connection state for this stream
	x        *External
	peer     string   // the node's name, or SentinelName
	node     *node    // nil for a stream to the sentinel (sentinel_endpoint.go)
	subs     []string // sentinel streams: the channels subscribed
	nodeInc  int      // the node's incarnation when it accepted
	accepted bool     // the node accepted the dial
	open     bool     // the client learned it is open
	closed   bool     // the client closed it
	broken   bool     // reset: nothing more is delivered either way
	answered bool     // the dial's answer (accepted or refused) reached the client's host
	dialAt   time.Duration
	timer    bool // a dial timeout is scheduled (answerBy)
	inflight []*call
}

// connKey names the node connection state a request runs on: one per
// stream for an external process, one per process for coroutine tasks.
func (c *call) connKey(client string) string {
	if c.s != nil {
		return c.s.key
	}
	return client
}

// caller returns the process that sent c.
func (c *call) caller() *proc {
	if c.t != nil {
		return c.t.p
	}
	return c.x.p
}

// Dial opens a stream to node `to` (a node name, or a group, resolved to
// the primary the process believes in) and returns its id. The outcome
// comes as EffectDialed or EffectRefused (the node is down), or
// EffectReset (the dial was lost).
func (x *External) Dial(to string) uint64 {
	if !x.active("Dial") {
		return 0
	}
	w, p := x.w, x.p
	to = w.resolve(p, to)
	n := w.nodes[to]
	w.ext.lastID++
	s := &stream{id: w.ext.lastID, key: p.name + "#" + strconv.FormatUint(w.ext.lastID, 10), x: x, peer: to, node: n}
	w.record(&Event{Actor: p.name, Task: "main", Kind: KindDial, Local: x.Now(), Peer: to, N: int64(s.id)})
	if n == nil && to != SentinelName {
		w.fail(errors.Errorf("client %s dialed %q, which is not a Redis node or the sentinel", p.name, to))
		return 0
	}
	w.ext.streams[s.id] = s
	s.dialAt = w.now
	f := w.net.SendStream(p.name, to, w.now)
	if !f.Delivered {
		w.record(&Event{Actor: p.name, Task: "main", Kind: KindLost, Local: x.Now(), Peer: to, Note: f.Why + " (dial)"})
		if f.Silent { // a blackhole swallows the SYN: only the timeout answers
			s.answerBy(-1)
		} else {
			s.breakAt(f.At, f.Why+": the dial was lost")
		}
		return s.id
	}
	s.answerBy(f.At)
	w.schedule(f.At, func() { s.accept() })
	return s.id
}

// answerBy fails the dial at its timeout (Config.DialTimeout after the
// dial) when its next step arrives only at true time `at`, later than
// that, or never (at < 0), as a dialer with a connect timeout does. The
// timer is scheduled only then, so a dial answered in time adds no event.
func (s *stream) answerBy(at time.Duration) {
	w := s.x.w
	deadline := s.dialAt + w.cfg.DialTimeout
	if at >= 0 && at <= deadline || s.timer {
		return
	}
	s.timer = true
	w.schedule(deadline, func() { s.dialTimedOut() })
}

// dialTimedOut fails a dial still unanswered: the client learns of it as
// EffectReset with ErrDialTimeout, recorded as KindTimeout (Note "dial").
func (s *stream) dialTimedOut() {
	w := s.x.w
	if s.broken || s.answered {
		return
	}
	s.broken = true
	s.inflight = nil
	x := s.holder()
	x.deliver(func() {
		if s.closed {
			return
		}
		w.record(&Event{Actor: x.p.name, Task: "main", Kind: KindTimeout, Local: x.Now(), Peer: s.peer, N: int64(s.id), Note: "dial"})
		x.effect(Effect{Kind: EffectReset, Stream: s.id, Err: ErrDialTimeout})
	})
}

// accept runs on the node when the dial arrives.
func (s *stream) accept() {
	w, n := s.x.w, s.node
	if s.broken {
		return
	}
	back := w.net.SendStream(s.peer, s.x.p.name, w.now)
	if back.Delivered {
		s.answerBy(back.At)
	} else if back.Silent {
		s.answerBy(-1) // the answer vanishes: only the timeout tells the client
		if n != nil && !n.up {
			return
		}
	}
	if n != nil && !n.up && back.At > s.dialAt+w.cfg.DialTimeout {
		return // the refusal comes after the dial timed out
	}
	if n != nil && !n.up {
		s.broken = true
		w.schedule(back.At, func() {
			s.answered = true
			x := s.holder()
			x.deliver(func() {
				if s.closed {
					return
				}
				w.record(&Event{Actor: x.p.name, Task: "main", Kind: KindRefused, Local: x.Now(), Peer: s.peer, N: int64(s.id), Note: "dial"})
				x.effect(Effect{Kind: EffectRefused, Stream: s.id, Err: ErrRefused})
			})
		})
		return
	}
	s.accepted = true
	if n != nil {
		s.nodeInc = n.incarnation
	}
	if !back.Delivered {
		if !back.Silent {
			s.breakAt(back.At, back.Why+": the dial's answer was lost")
		}
		return
	}
	w.schedule(back.At, func() {
		s.answered = !s.broken
		x := s.holder()
		x.deliver(func() {
			if s.broken || s.closed {
				return
			}
			s.open = true
			w.record(&Event{Actor: x.p.name, Task: "main", Kind: KindDialed, Local: x.Now(), Peer: s.peer, N: int64(s.id)})
			x.effect(Effect{Kind: EffectDialed, Stream: s.id})
		})
	})
}

// breakAt resets the stream now on the node's side; the client learns of
// it at true time `at`.
func (s *stream) breakAt(at time.Duration, why string) {
	w := s.x.w
	if s.broken {
		return
	}
	s.broken = true
	s.inflight = nil
	w.schedule(at, func() {
		x := s.holder()
		x.deliver(func() {
			if s.closed {
				return
			}
			w.record(&Event{Actor: x.p.name, Task: "main", Kind: KindReset, Local: x.Now(), Peer: s.peer, N: int64(s.id), Note: why})
			x.effect(Effect{Kind: EffectReset, Stream: s.id, Err: ErrReset})
		})
	})
}

// Send writes one command on an open stream; its reply comes as
// EffectData, in order. A command on a stream that broke vanishes (the
// client learns of the break by EffectReset). marks are events recorded
// as the process right after the command's KindCall, as part of the same
// send: also when a trigger on the call has just paused the process.
func (x *External) Send(id uint64, args []string, marks ...Event) {
	if !x.active("Send") {
		return
	}
	w, p := x.w, x.p
	s := w.ext.streams[id]
	if s == nil || !x.mayUse(s) || len(args) == 0 {
		w.fail(errors.Errorf("external client %s: Send on unknown stream %d or with no command", p.name, id))
		return
	}
	p.calls++
	c := &call{x: x, s: s, id: p.calls, to: s.peer, args: args}
	w.record(&Event{Actor: p.name, Task: "main", Kind: KindCall, Local: x.Now(), Peer: c.to, Args: args})
	// The marks come after the command has left: a crash they trigger
	// does not take it back.
	defer func() {
		for _, e := range marks {
			e.Actor, e.Local = p.name, x.Now()
			if e.Task == "" {
				e.Task = "main"
			}
			w.record(&e)
		}
	}()
	if s.broken {
		return
	}
	s.inflight = append(s.inflight, c)
	f := w.net.SendStream(p.name, c.to, w.now)
	if !f.Delivered && f.Silent {
		// A blackhole: the request vanishes, the stream stays up, and only
		// the client's read deadline will tell it.
		w.record(&Event{Actor: p.name, Task: "main", Kind: KindLost, Local: x.Now(), Peer: c.to, Note: f.Why + " (request); the stream stays up"})
		return
	}
	if !f.Delivered {
		w.record(&Event{Actor: p.name, Task: "main", Kind: KindLost, Local: x.Now(), Peer: c.to, Note: f.Why + " (request); the stream breaks"})
		s.breakAt(f.At, f.Why+": a request was lost")
		return
	}
	w.schedule(f.At, func() { s.arrive(c) })
}

// arrive runs a command on the node when it reaches it.
func (s *stream) arrive(c *call) {
	n := s.node
	if s.broken {
		return
	}
	if n == nil {
		s.x.w.sentinelServe(s, c)
		return
	}
	if !n.up || n.incarnation != s.nodeInc || !s.accepted {
		s.breakAt(s.x.w.net.SendStream(n.name, s.x.p.name, s.x.w.now).At, "the node restarted since the stream was opened")
		return
	}
	n.handle(c.x.p.name, c) // the sender's: on a shared stream, not always the dialer
}

// reply carries the node's reply to c back on its stream (sendReply for
// stream requests).
func (s *stream) reply(c *call, r resp.Reply, err error) {
	w := s.x.w
	c.reply, c.err = r, err
	if s.broken {
		return
	}
	if err != nil { // the node is down
		s.breakAt(w.net.SendStream(s.peer, s.x.p.name, w.now).At, "the node is down")
		return
	}
	at, ok := s.sendBack("reply")
	if !ok {
		return
	}
	w.schedule(at, func() { s.replyArrived(c) })
}

// sendBack sends what the node writes on the stream now (a reply or a
// push) through the network: ok with its arrival time, or lost. A silent
// loss (a blackhole) leaves the stream up; any other loss breaks it,
// as TCP would. Either loss is recorded.
func (s *stream) sendBack(what string) (at time.Duration, ok bool) {
	w := s.x.w
	f := w.net.SendStream(s.peer, s.x.p.name, w.now)
	if f.Delivered {
		return f.At, true
	}
	if f.Silent {
		w.record(&Event{Actor: s.peer, Kind: KindLost, Peer: s.x.p.name, Note: f.Why + " (" + what + "); the stream stays up"})
		return 0, false
	}
	w.record(&Event{Actor: s.peer, Kind: KindLost, Peer: s.x.p.name, Note: f.Why + " (" + what + "); the stream breaks"})
	s.breakAt(f.At, f.Why+": a "+what+" was lost")
	return 0, false
}

// pushInvalidation carries a push the node sends on its own (a client-tracking
// invalidation) to the client, in order with the replies: the network
// delays, loses or swallows it as it would a reply.
func (s *stream) pushInvalidation(r resp.Reply) {
	w := s.x.w
	if s.broken || s.closed {
		return
	}
	at, ok := s.sendBack("push")
	if !ok {
		return
	}
	w.schedule(at, func() {
		x := s.holder()
		if s.broken || s.closed || x.exited {
			return
		}
		x.deliver(func() {
			if s.broken || s.closed {
				return
			}
			w.recordBounded(&Event{Actor: x.p.name, Task: "main", Kind: KindPush, Local: x.Now(), Peer: s.peer, N: int64(s.id), Reply: recordedReply(r)})
			x.effect(Effect{Kind: EffectPush, Stream: s.id, Reply: r})
		})
	})
}

// replyArrived hands a reply to the client: the command's sender (on a
// shared stream, the goroutine that sent it), or while its program has
// returned, the stream's holder.
func (s *stream) replyArrived(c *call) {
	w, x := s.x.w, c.x
	if x.exited || x.p.dead {
		x = s.holder()
	}
	if s.broken || x.exited {
		return
	}
	if len(s.inflight) > 0 && s.inflight[0] == c {
		s.inflight = s.inflight[1:]
	}
	if s.closed {
		w.recordBounded(&Event{Actor: x.p.name, Task: "main", Kind: KindLateReply, Local: x.Now(), Peer: c.to, Reply: c.text()})
		return
	}
	x.deliver(func() {
		if s.broken || s.closed {
			return
		}
		w.recordBounded(&Event{Actor: x.p.name, Task: "main", Kind: KindReply, Local: x.Now(), Peer: c.to, Reply: c.text()})
		x.effect(Effect{Kind: EffectData, Stream: s.id, Reply: c.reply})
	})
}

// mayUse reports whether x may send on s: its own stream, or one another
// external client of the same process dialed (ClientConfig.Process).
func (x *External) mayUse(s *stream) bool {
	return s.x == x || x.p.process != "" && x.p.process == s.x.p.process
}

// holder is the client the stream's own news (dialed, refused, reset, a
// push) goes to: its dialer, or once the dialer's program has returned
// or crashed, the first live client of the same process (config order),
// which shares the stream (ClientConfig.Process).
func (s *stream) holder() *External {
	x := s.x
	if (!x.exited && !x.p.dead) || x.p.process == "" {
		return x
	}
	for _, p := range x.w.procList {
		if p.ext != nil && p.process == x.p.process && !p.ext.exited && !p.dead {
			return p.ext
		}
	}
	return x
}

// CloseStream closes a stream from the client's side (recording
// KindClose); commands already sent still run on the node.
func (x *External) CloseStream(id uint64) {
	if x.exited || x.w.done {
		return
	}
	w := x.w
	s := w.ext.streams[id]
	if s == nil || s.closed {
		return
	}
	s.closed = true
	w.record(&Event{Actor: x.p.name, Task: "main", Kind: KindClose, Local: x.Now(), Peer: s.peer, N: int64(id)})
	if len(s.inflight) == 0 || s.broken {
		delete(w.ext.streams, id)
	}
}

// StreamTimeout records that the client stopped waiting for a reply on
// the stream (its read deadline passed): KindTimeout with the oldest
// outstanding command, if any. The stream itself stays as it is.
func (x *External) StreamTimeout(id uint64) {
	if !x.active("StreamTimeout") {
		return
	}
	s := x.w.ext.streams[id]
	if s == nil || len(s.inflight) == 0 {
		return
	}
	c := s.inflight[0]
	x.w.record(&Event{Actor: x.p.name, Task: "main", Kind: KindTimeout, Local: x.Now(), Peer: c.to, Args: c.args})
}

// nodeCrashed resets every stream the node accepted: the client learns of
// it one network latency later.
func (w *World) nodeCrashed(n *node) {
	if w.ext == nil {
		return
	}
	for _, id := range sortedIDs(w.ext.streams) {
		s := w.ext.streams[id]
		if s.node == n && s.accepted && !s.broken {
			s.breakAt(w.net.SendStream(n.name, s.x.p.name, w.now).At, "the node crashed")
		}
	}
}

// sortedIDs returns the stream ids in order; map order never reaches the
// history.
func sortedIDs(m map[uint64]*stream) []uint64 {
	ids := make([]uint64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
