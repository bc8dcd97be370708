package logcheck

import (
	"slices"
	"time"

	"locksim/model/invariant"
)

// checkLiveness judges one acquisition that waited from a.start to end
// (its grant, its refusal, or its host's log end) on its host's clock:
// a stretch longer than Options.Liveness in which no other client
// believed it held the key, at every clock offset, is a certain liveness
// violation. Each other belief is widened by the offset bound between its
// host and the waiter's, so the free stretch is free whatever the offsets;
// liveness is never reported as possible (the widened beliefs would have
// to move together, which the bound does not say).
//
// The same stretch judges available with Options.Available: the user
// gives that bound for a log whose faults were all ones the design
// tolerates (a log does not show them).
func (c *Checker) checkLiveness(ks *keyState, ck *clientKey, a *pending, end int64, endAt string) {
	c.checkWaited(invariant.Liveness, c.opt.Liveness, "the liveness bound", ks, ck, a, end, endAt)
	c.checkWaited(invariant.Available, c.opt.Available, "the availability bound", ks, ck, a, end, endAt)
}

func (c *Checker) checkWaited(id invariant.ID, bound time.Duration, boundName string, ks *keyState, ck *clientKey, a *pending, end int64, endAt string) {
	if bound <= 0 || time.Duration(end-a.start) <= bound {
		return
	}
	type span struct{ from, to int64 }
	var busy []span
	add := func(b *belief, to int64) {
		if b.client == ck.client {
			return
		}
		s := c.bound(b.host, ck.host)
		if b.from-s < end && to+s > a.start {
			busy = append(busy, span{b.from - s, to + s})
		}
	}
	for _, b := range ks.closed {
		add(b, b.to)
	}
	for _, o := range ks.clients {
		if b := o.open; b != nil {
			add(b, min(b.deadline, max(c.now, end)))
		}
	}
	slices.SortFunc(busy, func(x, y span) int {
		switch {
		case x.from < y.from:
			return -1
		case x.from > y.from:
			return 1
		}
		return 0
	})
	at, gapFrom, gapTo := a.start, int64(0), int64(0)
	for _, s := range append(busy, span{end, end}) {
		if s.from > at && s.from-at > gapTo-gapFrom {
			gapFrom, gapTo = at, min(s.from, end)
		}
		at = max(at, s.to)
		if at >= end {
			break
		}
	}
	if time.Duration(gapTo-gapFrom) <= bound {
		return
	}
	c.add(Violation{Invariant: id, Certainty: Certain, Key: ks.name, Clients: []string{ck.client}, Hosts: []string{ck.host},
		Where: []string{a.at, endAt}, From: gapFrom, To: gapTo,
		Explanation: ck.client + " waited for the key from " + fmtTime(a.start) + " (" + a.at + ") to " + fmtTime(end) + endWhere(endAt) +
			", and from " + fmtTime(gapFrom) + " to " + fmtTime(gapTo) + " (" + time.Duration(gapTo-gapFrom).String() +
			", more than " + boundName + " " + bound.String() + ") no other client believed it held the key, whatever the clocks' offsets"})
}

func endWhere(at string) string {
	if at == "" {
		return " (still waiting when its host's log ends)"
	}
	return " (" + at + ")"
}
