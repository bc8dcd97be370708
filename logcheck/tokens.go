package logcheck

import (
	"math"
	"strconv"
	"time"

	"locksim/model/invariant"
)

// checkToken judges a grant with a token against the key's earlier grants
// (token-unique): the same token granted to another acquisition (another
// client or lock value) is certain whatever the clocks; a token at or
// below one granted before the acquisition started is certain when the
// start follows that grant at every offset, possible when at some.
func (c *Checker) checkToken(ks *keyState, g grantRec) {
	for i := range ks.grants {
		o := &ks.grants[i]
		if o.token == g.token && o.value == g.value && o.client == g.client {
			return // the same acquisition recorded again (a nested hold)
		}
	}
	for i := range ks.grants {
		o := ks.grants[i]
		if o.token == g.token && (o.client != g.client || o.value != g.value) {
			c.add(tokenViolation(ks, o, g, Certain, 0, 0, "token "+strconv.FormatInt(g.token, 10)+" was granted twice: to "+
				o.client+" at "+fmtTime(o.time)+" ("+o.at+") and again to "+g.client+" at "+fmtTime(g.time)+" ("+g.at+")"))
			ks.grants = append(ks.grants, g)
			return
		}
	}
	if o := ks.oldGrant; o != nil && o.token == g.token && (o.client != g.client || o.value != g.value) {
		c.add(tokenViolation(ks, *o, g, Certain, 0, 0, "token "+strconv.FormatInt(g.token, 10)+" was granted twice: to "+
			o.client+" at "+fmtTime(o.time)+" ("+o.at+") and again to "+g.client+" at "+fmtTime(g.time)+" ("+g.at+")"))
		ks.grants = append(ks.grants, g)
		return
	}
	if g.hasStart {
		// The largest token granted before the attempt started, certainly
		// or possibly.
		var worst *grantRec
		var how Certainty
		var omin, omax time.Duration
		consider := func(o *grantRec) {
			if o.token < g.token {
				return
			}
			cert, lo, hi := c.order(o.host, o.time, o.time, g.host, g.start, g.start)
			if cert == "" || (how == Certain && cert == Possible) {
				return
			}
			if worst == nil || cert == Certain && how == Possible || o.token > worst.token {
				worst, how, omin, omax = o, cert, lo, hi
			}
		}
		for i := range ks.grants {
			consider(&ks.grants[i])
		}
		if ks.oldGrant != nil {
			consider(ks.oldGrant)
		}
		if worst != nil {
			text := g.client + " started acquiring at " + fmtTime(g.start) + ", after " + worst.client + " was granted token " +
				strconv.FormatInt(worst.token, 10) + " at " + fmtTime(worst.time) + " (" + worst.at + "), yet was granted the smaller token " +
				strconv.FormatInt(g.token, 10) + " at " + fmtTime(g.time) + " (" + g.at + ")"
			if how == Possible {
				text += offsetsText(worst.host, g.host, omin, omax, c.bound(worst.host, g.host), "the start followed that grant")
			}
			c.add(tokenViolation(ks, *worst, g, how, omin, omax, text))
		}
	}
	ks.grants = append(ks.grants, g)
}

func offsetsText(h1, h2 string, lo, hi time.Duration, s int64, what string) string {
	if h1 == h2 || s == 0 {
		return " (one clock: " + what + " is uncertain only by the events' own windows)"
	}
	return ": " + what + " only if " + offsetPhrase(h1, h2, lo, hi) + " (the bound allows ±" + time.Duration(s).String() + " between them)"
}

func tokenViolation(ks *keyState, a, b grantRec, how Certainty, lo, hi time.Duration, text string) Violation {
	return Violation{Invariant: invariant.TokenUnique, Certainty: how, Key: ks.name, Clients: distinct(a.client, b.client),
		Hosts: []string{a.host, b.host}, Tokens: []int64{a.token, b.token}, Where: []string{a.at, b.at},
		From: b.time, To: b.time, OffsetMin: lo, OffsetMax: hi, Explanation: text}
}

func distinct(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// checkWrite judges an accepted write against the key's earlier accepted
// writes (fencing): an accepted write whose token is below one the
// resource accepted before it, or with the same token from an older
// acquisition after a newer one's write. A write was applied somewhere in
// [sent, time] on its host's clock.
func (c *Checker) checkWrite(ks *keyState, w writeRec) {
	var worst *writeRec
	var how Certainty
	var omin, omax time.Duration
	consider := func(o *writeRec) {
		older := o.token > w.token
		if o.token == w.token && o.hasGrant && w.hasGrant && (o.client != w.client || o.value != w.value) {
			// the same token twice: w's acquisition must be the older
			if cert, _, _ := c.order(w.grant.host, w.grant.time, w.grant.time, o.grant.host, o.grant.time, o.grant.time); cert == Certain {
				older = true
			}
		}
		if !older {
			return
		}
		cert, lo, hi := c.order(o.host, o.lo, o.hi, w.host, w.lo, w.hi)
		if cert == "" || (how == Certain && cert == Possible) {
			return
		}
		if worst == nil || cert == Certain && how == Possible || o.token > worst.token {
			worst, how, omin, omax = o, cert, lo, hi
		}
	}
	for i := range ks.writes {
		consider(&ks.writes[i])
	}
	if ks.oldWrite != nil {
		consider(ks.oldWrite)
	}
	if worst != nil {
		text := "the resource accepted " + w.client + "'s write with token " + strconv.FormatInt(w.token, 10) + " (" + w.at +
			") after it had accepted token " + strconv.FormatInt(worst.token, 10) + " from " + worst.client + " (" + worst.at + ")"
		if worst.token == w.token {
			text += ", a newer acquisition's: the token was granted twice and the older holder got back in"
		} else {
			text += ": a fenced resource must reject a token below one it accepted"
		}
		if how == Possible {
			text += offsetsText(worst.host, w.host, omin, omax, c.bound(worst.host, w.host), "the other write came first")
		}
		v := Violation{Invariant: invariant.Fencing, Certainty: how, Key: ks.name, Clients: distinct(w.client, worst.client),
			Hosts: []string{worst.host, w.host}, Tokens: []int64{w.token, worst.token}, Where: []string{worst.at, w.at},
			From: w.hi, To: w.hi, OffsetMin: omin, OffsetMax: omax, Explanation: text}
		i := 0
		if how == Possible {
			i = 1
		}
		ks.fenceN[i]++
		if ks.fenceN[i] <= MaxPerInvariant {
			ks.fencing = append(ks.fencing, v)
		}
	}
	ks.writes = append(ks.writes, w)
}

// prune drops what no later event can be judged against: beliefs that
// ended more than the skew bound before now and before every open
// belief's start (less the bound), grants and writes older than the
// bound and than every open attempt (their largest token kept).
func (c *Checker) prune(ks *keyState) {
	s := int64(c.smax) + int64(c.opt.Reorder)
	horizon := c.now - s
	openFrom, attemptFrom := int64(math.MaxInt64), int64(math.MaxInt64)
	for _, ck := range ks.clients {
		if b := ck.open; b != nil && b.deadline < horizon {
			// Its validity ran out long ago and its client logged nothing
			// since: end it now, so that it holds nothing back.
			c.end(ks, ck, b.deadline, b.grantAt, "its validity ran out")
		}
		if ck.open != nil {
			openFrom = min(openFrom, ck.open.from)
		}
		if ck.attempt != nil {
			attemptFrom = min(attemptFrom, ck.attempt.start)
		}
	}
	if len(ks.clients) > 64 {
		// Idle clients (no belief, no attempt, quiet past the horizon):
		// per-request client names must not grow the state.
		for n, ck := range ks.clients {
			if ck.open == nil && ck.attempt == nil && ck.last < horizon {
				delete(ks.clients, n)
			}
		}
	}
	if len(ks.closed) > 8 {
		keep := ks.closed[:0]
		for _, b := range ks.closed {
			if b.to >= horizon || b.to+s > openFrom || (c.opt.Liveness > 0 || c.opt.Available > 0) && b.to+s > attemptFrom {
				keep = append(keep, b)
			}
		}
		clear(ks.closed[len(keep):])
		ks.closed = keep
	}
	if len(ks.grants) > 8 {
		keep := ks.grants[:0]
		for _, g := range ks.grants {
			if g.time >= horizon || g.time+s > attemptFrom {
				keep = append(keep, g)
			} else if ks.oldGrant == nil || g.token > ks.oldGrant.token {
				g := g
				ks.oldGrant = &g
			}
		}
		ks.grants = keep
	}
	if len(ks.writes) > 8 {
		keep := ks.writes[:0]
		for _, w := range ks.writes {
			if w.hi >= horizon {
				keep = append(keep, w)
			} else if ks.oldWrite == nil || w.token > ks.oldWrite.token {
				w := w
				ks.oldWrite = &w
			}
		}
		ks.writes = keep
	}
}
