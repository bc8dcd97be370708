package invariant

import (
	"slices"
	"strconv"
	"strings"

	"locksim/model/history"
	"locksim/sim"
)

// fact is one sentence of an explanation, anchored at a history position
// so facts print in history order.
type fact struct {
	pos  int
	text string
}

// explanation gathers facts and the events they cite.
type explanation struct {
	ix    *history.Index
	facts []fact
	cited []int
	// keyNames names the key in each loss: the lease was granted on
	// several keys of one node (three keys of one instance).
	keyNames bool
}

// add adds a fact, once: the same text at the same position is kept once.
func (x *explanation) add(pos int, text string, cite ...int) {
	if !slices.Contains(x.facts, fact{pos, text}) {
		x.facts = append(x.facts, fact{pos, text})
	}
	x.cite(cite...)
}

func (x *explanation) cite(pos ...int) {
	for _, p := range pos {
		if p >= 0 {
			x.cited = append(x.cited, p)
		}
	}
}

// text joins the facts in history order with "; ".
func (x *explanation) text() string {
	slices.SortStableFunc(x.facts, func(a, b fact) int { return a.pos - b.pos })
	parts := make([]string, len(x.facts))
	for i, f := range x.facts {
		parts[i] = f.text
	}
	return strings.Join(parts, "; ")
}

func (x *explanation) seqs() []int { return x.ix.Seqs(x.cited...) }

// addLoss explains how the lease of value v (key) granted by node was lost
// before pos, with the pause of its owner if it was paused then. It
// returns the loss, or false when the lease was alive.
func (x *explanation) addLoss(node, key, v string, acq, pos int, sayNever bool) (history.Loss, bool) {
	ix := x.ix
	l, ok := ix.LossOf(node, key, v, pos)
	if !ok {
		return l, false
	}
	owner := ix.Owner(v)
	whose := "the key"
	if owner != "" {
		whose = owner + "'s key"
	}
	if x.keyNames {
		whose += " " + key
	}
	if l.Pos < 0 {
		if sayNever {
			x.add(acq, node+" did not hold "+whose, acq)
		}
		return l, sayNever
	}
	e := ix.H[l.Pos]
	t := sim.FormatTime(e.At)
	var b strings.Builder
	switch l.Cause {
	case history.LostExpired:
		b.WriteString(whose + " on " + l.Node + " expired at " + t + " (node clock " + sim.FormatTime(e.Local) + ")")
		if p := clockChange(ix, l.Node, l.Change); p >= 0 {
			c := ix.H[p]
			if c.Kind == sim.KindClockJump {
				b.WriteString(" after " + l.Node + "'s clock jumped by " + c.Dur.String() + " at " + sim.FormatTime(c.At))
			} else {
				b.WriteString(" with " + l.Node + "'s clock running at " + signed(c.N) + " ppm since " + sim.FormatTime(c.At))
			}
			x.cite(p)
		}
	case history.LostDeleted:
		b.WriteString(whose + " on " + l.Node + " was deleted at " + t)
		switch {
		case l.Change != nil && l.Change.By != "":
			b.WriteString(" by " + l.Change.By + " (" + l.Change.Cmd + ")")
			x.cite(l.Change.ExecPos)
		case l.Change != nil && l.Change.Cause != "":
			b.WriteString(" (" + l.Change.Cause + ")")
		}
	case history.LostReplaced:
		b.WriteString(whose + " on " + l.Node + " was replaced at " + t + " by " + l.Change.Value)
		if l.Change.By != "" {
			b.WriteString(" (" + l.Change.By + "'s " + l.Change.Cmd + ")")
			x.cite(l.Change.ExecPos)
		} else if l.Change.Cause != "" {
			b.WriteString(" (" + l.Change.Cause + ")")
		}
	case history.LostEvicted:
		b.WriteString(whose + " on " + l.Node + " was evicted at " + t + pressureText(x, l.Pos))
	case history.LostRestart:
		b.WriteString(l.Node + " restarted at " + t + " without " + whose + " (" + e.Note + ")")
		if d, ok := downBefore(ix, l.Node, l.Pos); ok {
			b.WriteString(", after a crash at " + sim.FormatTime(d.From))
			x.cite(d.FromPos)
		}
	case history.LostFailover:
		b.WriteString(l.Node + " was promoted to primary")
		if e.Key != "" {
			b.WriteString(" of " + e.Key)
		}
		b.WriteString(" at " + t + " without " + whose)
	}
	x.cite(l.Pos)
	if p, ok := ix.PausedAt(owner, e.At); ok && owner != "" {
		b.WriteString(" while " + owner + " was paused from " + sim.FormatTime(p.From) + " to " + sim.FormatTime(p.To))
		x.cite(p.FromPos)
	}
	x.add(l.Pos, b.String())
	return l, true
}

// downBefore returns the node's down interval that ended at the node-up
// at pos.
func downBefore(ix *history.Index, node string, pos int) (history.Down, bool) {
	for _, d := range ix.Downs[node] {
		if d.ToPos == pos {
			return d, true
		}
	}
	return history.Down{}, false
}

// clockChange returns the clock event of node that explains an expiry: a
// jump or rate change at the instant of the change (recorded just after
// the expiries it caused) or since the key's previous change, else the
// node's last rate change (a drift lasts), or -1.
func clockChange(ix *history.Index, node string, c *history.KeyChange) int {
	if c == nil {
		return -1
	}
	h := ix.H
	isClock := func(x sim.Event) bool {
		return x.Actor == node && (x.Kind == sim.KindClockJump || x.Kind == sim.KindClockDrift)
	}
	at := h[c.Pos].At
	for p := c.Pos + 1; p < len(h) && h[p].At == at; p++ {
		if isClock(h[p]) {
			return p
		}
	}
	ch := ix.Keys[history.NodeKey{Node: node, Key: h[c.Pos].Key}]
	prev := -1
	for i := range ch {
		if ch[i].Pos == c.Pos && i > 0 {
			prev = ch[i-1].Pos
		}
	}
	for p := c.Pos - 1; p > prev && prev >= 0; p-- {
		if isClock(h[p]) {
			return p
		}
	}
	for p := c.Pos - 1; p >= 0; p-- {
		if x := h[p]; x.Actor == node && x.Kind == sim.KindClockDrift {
			if x.N == 0 {
				return -1 // back to the nominal rate
			}
			return p
		}
	}
	return -1
}

func signed(n int64) string {
	if n > 0 {
		return "+" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// pauseFact describes a client's pause.
func (x *explanation) addPause(client string, p history.Span) {
	x.add(p.FromPos, client+" was paused from "+sim.FormatTime(p.From)+" to "+sim.FormatTime(p.To), p.FromPos)
}

// granted renders " from r1,r2" and " with token N" for the acquired
// event at pos.
func granted(ix *history.Index, pos int, nodes []string) string {
	s := ""
	if len(nodes) > 0 {
		s = " from " + strings.Join(nodes, ",")
	}
	if t := ix.H[pos].Token; t != 0 {
		s += " with token " + strconv.FormatInt(t, 10)
	}
	return s
}

// nonzero returns the tokens that are set.
func nonzero(ts ...int64) []int64 {
	var out []int64
	for _, t := range ts {
		if t != 0 {
			out = append(out, t)
		}
	}
	return out
}

// distinct returns its arguments without repeats or empties, in order.
func distinct(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
