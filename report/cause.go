package report

import (
	"slices"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// Cause and effect on the page: where a client went on believing it
// held a lock it had lost, which command hit a key that was not its
// own, and the span the story of the violations covers.

// storySpan is the part of the run the violations' stories tell: from the
// involved clients' acquisitions before the first window to the end of
// the last window or of the critical sections it cut into.
type storySpan struct {
	From time.Duration `json:"from_ns"`
	To   time.Duration `json:"to_ns"`
}

// hit is a client's command that changed a key on a node that held
// another client's value (a late release deleting the new holder's key,
// a delayed SET overwriting it): a line on the page from where the
// command was sent to where the node ran it.
type hit struct {
	Client  string        `json:"client"`
	Node    string        `json:"node"`
	Sent    time.Duration `json:"sent_ns"`
	Applied time.Duration `json:"applied_ns"`
	Detail  string        `json:"detail"`
	Seq     int           `json:"seq"`
}

// lostAt returns when section s's lease was no longer alive on a quorum
// of the nodes that granted it (as the stale-write checker counts), if
// that happened before the section ended.
func (t *timeline) lostAt(s history.Section, quorum int) (time.Duration, bool) {
	grants := s.Grants
	if len(grants) == 0 {
		return 0, false
	}
	q := max(min(quorum, len(grants)), 1)
	end := s.EndPos
	if end < 0 {
		end = len(t.h)
	}
	// The moments the lease can be lost: a change of a granting node's
	// key, a crash, a failover.
	var at []int
	for _, g := range grants {
		for _, c := range t.ix.Keys[history.NodeKey{Node: g.Node, Key: g.Key}] {
			if c.Pos > s.Acq && c.Pos < end {
				at = append(at, c.Pos+1)
			}
		}
	}
	for _, p := range t.ix.Promotions {
		if p.Pos > s.Acq && p.Pos < end {
			at = append(at, p.Pos+1)
		}
	}
	slices.Sort(at)
	for _, pos := range at {
		alive := 0
		for _, g := range grants {
			if t.ix.Alive(g.Node, g.Key, s.Value, pos) {
				alive++
			}
		}
		if alive < q && pos-1 < len(t.h) {
			return t.h[pos-1].At, true
		}
	}
	return 0, false
}

// markLost sets Lost on the held spans whose lease was lost before they
// ended.
func (t *timeline) markLost(r *model.Result) {
	quorum := r.Spec.CheckConfig().Quorum
	lost := map[int]time.Duration{} // acquired seq -> when the lease was lost
	for _, s := range t.ix.Sections {
		if at, ok := t.lostAt(s, quorum); ok && at < s.To {
			lost[t.h[s.Acq].Seq] = at
		}
	}
	for li := range t.Lanes {
		for ri := range t.Lanes[li].Rows {
			for si := range t.Lanes[li].Rows[ri].Spans {
				sp := &t.Lanes[li].Rows[ri].Spans[si]
				if at, ok := lost[sp.Seq]; ok && sp.Kind == spanHeld {
					sp.Lost = at
				}
			}
		}
	}
}

// findHits lists the commands that changed a key holding another
// client's value.
func (t *timeline) findHits() {
	for _, n := range t.nodes {
		for k, cs := range t.ix.Keys {
			if k.Node != n || !t.lockKeys[k.Key] {
				continue
			}
			for _, c := range cs {
				if c.By == "" || c.ExecPos < 0 || c.Was == "" {
					continue
				}
				if o := t.owner(c.Was); o == "" || o == c.By {
					continue
				}
				x := t.h[c.ExecPos]
				sent := x.At
				for i := c.ExecPos - 1; i >= 0; i-- {
					p := t.h[i]
					if p.Kind == sim.KindCall && p.Actor == c.By && p.Peer == n && slices.Equal(p.Args, x.Args) {
						sent = p.At
						break
					}
				}
				t.Hits = append(t.Hits, hit{Client: c.By, Node: n, Sent: sent, Applied: x.At, Seq: x.Seq,
					Detail: c.By + "'s " + commandName(x.Args) + ", sent at " + fmtT(sent) + ", ran on " + n + " at " + fmtT(x.At) +
						" and changed " + k.Key + ", which held " + t.owner(c.Was) + "'s value"})
			}
		}
	}
	slices.SortFunc(t.Hits, func(a, b hit) int { return a.Seq - b.Seq })
}

// findStory sets the span the violations' stories cover, when it is a
// part of the run worth opening on.
func (t *timeline) findStory(r *model.Result) {
	if len(r.Violations) == 0 {
		return
	}
	lo, hi := t.End, time.Duration(0)
	for _, v := range r.Violations {
		from, to := min(v.From, v.To), max(v.From, v.To)
		lo, hi = min(lo, from), max(hi, to)
		for _, c := range v.Clients {
			if at, ok := t.lastAcquired(c, from); ok {
				lo = min(lo, at)
				if end, ok := t.releaseAfter(c, from); ok {
					hi = max(hi, end)
				}
			}
		}
	}
	pad := max((hi-lo)/10, time.Millisecond)
	lo, hi = max(lo-pad, 0), min(hi+pad, t.End)
	if hi <= lo || hi-lo > t.End*4/5 {
		return // the story is most of the run: open on all of it
	}
	t.Story = &storySpan{From: lo, To: hi}
}
