package report

import (
	"slices"
	"strings"

	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

// renewCall is one command a watchdog sent for a renewal, with its reply.
type renewCall struct {
	args  []string
	peer  string
	reply string
	pos   int // the reply's history position
}

// renewCalls returns the commands the task that recorded the renew event
// at pos sent for that renewal: its calls and replies since its previous
// renewal (or since it started).
func (t *timeline) renewCalls(pos int) []renewCall {
	e := t.h[pos]
	start := 0
	for i := pos - 1; i >= 0; i-- {
		p := t.h[i]
		if p.Actor == e.Actor && p.Task == e.Task && (p.Kind == history.KindRenew || p.Kind == history.KindAcquired) {
			start = i + 1
			break
		}
	}
	var calls []renewCall
	for i := start; i < pos; i++ {
		p := t.h[i]
		if p.Actor != e.Actor || p.Task != e.Task {
			continue
		}
		switch p.Kind {
		case sim.KindCall:
			calls = append(calls, renewCall{args: p.Args, peer: p.Peer, pos: -1})
		case sim.KindReply:
			if n := len(calls); n > 0 && calls[n-1].pos < 0 {
				calls[n-1].reply, calls[n-1].pos = p.Reply, i
			}
		}
	}
	return calls
}

// failedRenewText says why a renewal that returned "not extended" failed,
// from the replies the watchdog got rather than from the design's own
// reading of them: which command answered what, and what the key on that
// node held at that moment.
func (t *timeline) failedRenewText(pos int) (string, bool) {
	e := t.h[pos]
	calls := t.renewCalls(pos)
	if len(calls) == 0 || calls[len(calls)-1].pos < 0 {
		return "", false
	}
	last := calls[len(calls)-1]
	name := strings.ToUpper(last.args[0])
	var b strings.Builder
	for i, c := range calls[:len(calls)-1] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(commandName(c.args) + " to " + c.peer + " returned " + replyText(c.reply))
	}
	if b.Len() > 0 {
		b.WriteString(", then ")
	}
	b.WriteString(commandName(last.args) + " to " + last.peer + " returned " + replyText(last.reply))
	if name == "WAIT" && len(last.args) > 1 {
		b.WriteString(": fewer replicas acknowledged it than the " + last.args[1] + " asked for, so the design counts the renewal as failed")
		return b.String(), true
	}
	if last.reply == resp.IntReply(0).String() || last.reply == "(nil)" {
		b.WriteString(": " + t.keyHeldText(last.peer, e.Key, t.execOf(e.Actor, last), e.Actor))
	}
	return b.String(), true
}

// replyText renders a reply for a sentence: an integer as the number.
func replyText(r string) string { return strings.TrimPrefix(r, "(integer) ") }

// execOf returns the history position where the node ran client c's call
// (its exec event, the last before the reply), or the reply's position
// when the node recorded none.
func (t *timeline) execOf(c string, call renewCall) int {
	for i := call.pos - 1; i >= 0; i-- {
		p := t.h[i]
		if p.Kind == sim.KindExec && p.Actor == call.peer && p.Peer == c && slices.Equal(p.Args, call.args) {
			return i
		}
	}
	return call.pos
}

// keyHeldText says what key on node held just before history position
// pos, for client c: "the key on r1 held B's value", "the key on r1 was
// gone", "the key on r1 still held A's value".
func (t *timeline) keyHeldText(node, key string, pos int, c string) string {
	v := t.ix.ValueAt(node, key, pos)
	switch o := t.owner(v); {
	case v == "":
		return "the key on " + node + " was gone"
	case o == c:
		return "the key on " + node + " still held " + c + "'s value"
	case o != "":
		return "the key on " + node + " held " + o + "'s value"
	}
	return "the key on " + node + " held " + v
}

// order returns the history positions in the order reports tell them:
// history order, except that a fault event moves before the effects on
// its own actor that the simulation recorded just before it at the same
// instant (a clock jump's expiries, a crash's lost keys), so a story
// never tells the effect before its cause.
func (t *timeline) order() []int {
	if t.ord != nil {
		return t.ord
	}
	ord := make([]int, len(t.h))
	for i := range ord {
		ord[i] = i
	}
	for i := range ord {
		e := t.h[ord[i]]
		if _, ok := faultViews[e.Kind]; !ok || e.Kind == sim.KindEvict {
			continue
		}
		j := i
		for j > 0 {
			p := t.h[ord[j-1]]
			if p.At != e.At || p.Actor != e.Actor || !isEffect(p.Kind) {
				break
			}
			j--
		}
		if j < i {
			f := ord[i]
			copy(ord[j+1:i+1], ord[j:i])
			ord[j] = f
		}
	}
	t.ord = ord
	return ord
}

// isEffect reports whether an event of kind k is something a node
// suffers (a key expiring, changing or evicted) rather than does.
func isEffect(k sim.Kind) bool {
	return k == sim.KindExpire || k == sim.KindKey || k == sim.KindEvict
}
