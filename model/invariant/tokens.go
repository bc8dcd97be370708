package invariant

import (
	"slices"
	"strconv"
	"strings"

	"locksim/model/history"
	"locksim/sim"
)

// checkTokenUnique judges the token source: no token is granted (acquired
// with Token > 0) to two acquisitions with different lock values, and an
// acquisition whose attempt started after another's grant gets a larger
// token. Re-recording a token for the same value (nested reentrant holds)
// is one grant.
func checkTokenUnique(ix *history.Index) []Violation {
	var vs []Violation
	granted := map[int64]int{} // token -> pos of its first grant
	seen := map[string]bool{}  // lock value + token already granted
	maxGrant := -1             // pos of the grant with the largest token so far
	// The largest grant before each attempt started.
	maxAtStart := map[int]int{}
	acqs := ix.Acquisitions
	next := 0
	for _, at := range ix.Attempts {
		for ; next < len(acqs) && acqs[next].Pos < at.Start; next++ {
			if a := acqs[next]; a.Token > 0 && (maxGrant < 0 || a.Token > ix.H[maxGrant].Token) {
				maxGrant = a.Pos
			}
		}
		maxAtStart[at.Start] = maxGrant
	}
	maxGrant = -1
	for _, a := range acqs {
		if a.Token <= 0 {
			continue
		}
		k := a.Value + "\x00" + strconv.FormatInt(a.Token, 10)
		if seen[k] {
			continue
		}
		seen[k] = true
		if first, ok := granted[a.Token]; ok {
			vs = append(vs, duplicateToken(ix, first, a.Pos, a.Start))
		} else {
			if m, ok := maxAtStart[a.Start]; ok && a.Start >= 0 && m >= 0 && ix.H[m].Token >= a.Token {
				vs = append(vs, tokenRegression(ix, m, a.Pos, a.Start))
			}
			granted[a.Token] = a.Pos
		}
		if maxGrant < 0 || a.Token > ix.H[maxGrant].Token {
			maxGrant = a.Pos
		}
	}
	return vs
}

// duplicateToken explains the grant at pos of the token first granted at
// first.
func duplicateToken(ix *history.Index, first, pos, start int) Violation {
	a, b := ix.H[first], ix.H[pos]
	x := &explanation{ix: ix}
	x.cite(first, pos)
	text := "token " + strconv.FormatInt(b.Token, 10) + " was granted twice: to " + a.Actor + " at " +
		sim.FormatTime(a.At) + fromPeer(a) + " and again to " + b.Actor + " at " + sim.FormatTime(b.At) + fromPeer(b)
	if start > first {
		text += ", although " + b.Actor + " started acquiring at " + sim.FormatTime(ix.H[start].At) + ", after the first grant"
		x.cite(start)
	}
	text += promotionsBetween(ix, first, pos, x) + evictionsBetween(ix, first, pos, x)
	return tokenViolation(TokenUnique, a, b, a.Actor, b.Actor, x, text)
}

// tokenRegression explains the grant at pos, whose attempt started (at
// start) after the grant at prev of a token at least as large.
func tokenRegression(ix *history.Index, prev, pos, start int) Violation {
	a, b := ix.H[prev], ix.H[pos]
	x := &explanation{ix: ix}
	x.cite(prev, start, pos)
	text := b.Actor + " started acquiring at " + sim.FormatTime(ix.H[start].At) + ", after " + a.Actor +
		" was granted token " + strconv.FormatInt(a.Token, 10) + " at " + sim.FormatTime(a.At) + ", yet was granted the smaller token " +
		strconv.FormatInt(b.Token, 10) + " at " + sim.FormatTime(b.At) + fromPeer(b)
	text += promotionsBetween(ix, prev, pos, x)
	return tokenViolation(TokenUnique, a, b, a.Actor, b.Actor, x, text)
}

// checkFencing judges a resource's accepted writes against the token
// order: none below a token accepted before, and, with an equal token,
// none from an older acquisition (granted earlier) after a newer one's
// write (a token the source reissued: a nonstrict resource accepts the
// equal token, so the fence no longer keeps the old holder out). Two
// acquisitions that wrote one after the other with one token, the older
// first, are not flagged: nothing got past the fence. The registry runs
// it for TokenAtLeast (nonstrict) only: a TokenAbove resource (strict,
// strict-reads) rejects all of these itself, so the invariant could not
// break there. A write without a token (0) is not fenced and not judged;
// nor is any write under NoFencing or VersionCheck.
func checkFencing(ix *history.Index, rule FenceRule) []Violation {
	if rule == NoFencing || rule == VersionCheck {
		return nil
	}
	var accepted []*history.Write
	for i := range ix.Writes {
		if w := &ix.Writes[i]; w.Accepted && w.Token > 0 {
			accepted = append(accepted, w)
		}
	}
	slices.SortFunc(accepted, func(a, b *history.Write) int { return a.Applied - b.Applied })
	grantOf := writeGrants(ix)
	// older reports whether w's acquisition was granted before n's; false
	// when either is unknown.
	older := func(w, n *history.Write) bool {
		gw, okw := grantOf(w)
		gn, okn := grantOf(n)
		return okw && okn && gw < gn
	}
	var vs []Violation
	var best *history.Write   // the first accepted write with the largest token
	var newest *history.Write // of the accepted writes with best's token, the one of the newest acquisition
	for _, w := range accepted {
		switch {
		case best == nil || w.Token > best.Token:
			best, newest = w, w
			continue
		case w.Token < best.Token:
			vs = append(vs, acceptedOld(ix, best, w, rule))
		case rule == TokenAbove:
			vs = append(vs, acceptedOld(ix, best, w, rule))
		case older(w, newest):
			vs = append(vs, acceptedOld(ix, newest, w, rule))
		}
		if w.Token == best.Token && older(newest, w) {
			newest = w
		}
	}
	return vs
}

// writeGrants returns, for a write, where a node granted the acquisition
// it was written under: the client's latest acquisition with the write's
// lock value before the write (a value may come back in a later
// acquisition), at the command that made a key hold the value
// (Attempt.Granted), which can come long before the client heard of it
// (a paused client, a late reply); the acquired event where no grant was
// seen. ok is false for a write under no known acquisition.
func writeGrants(ix *history.Index) func(*history.Write) (pos int, ok bool) {
	nodeGrant := map[int]int{} // attempt start -> where a node granted it
	for _, a := range ix.Attempts {
		if a.Granted >= 0 {
			nodeGrant[a.Start] = a.Granted
		}
	}
	type grant struct {
		client, value string
		acquired, at  int
	}
	var grants []grant
	for _, a := range ix.Acquisitions {
		if a.Count > 1 {
			continue // a nested hold: its outer acquisition's grant
		}
		at := a.Pos
		if g, ok := nodeGrant[a.Start]; ok {
			at = g
		}
		grants = append(grants, grant{a.Client, a.Value, a.Pos, at})
	}
	return func(w *history.Write) (int, bool) {
		by := w.Prepared
		if by < 0 {
			by = w.Sent
		}
		if by < 0 {
			by = w.Applied
		}
		pos, ok := 0, false
		for _, g := range grants {
			if g.client == w.Client && g.value == w.Value && g.acquired <= by {
				pos, ok = g.at, true
			}
		}
		return pos, ok
	}
}

// acceptedOld explains the resource accepting b's token after a's.
func acceptedOld(ix *history.Index, a, b *history.Write, rule FenceRule) Violation {
	ea, eb := ix.H[a.Applied], ix.H[b.Applied]
	x := &explanation{ix: ix}
	x.cite(a.Applied, b.Applied, b.Prepared)
	text := "the resource accepted " + b.Client + "'s write with token " + strconv.FormatInt(b.Token, 10) + " at " +
		sim.FormatTime(eb.At) + " although it had already accepted token " + strconv.FormatInt(a.Token, 10) +
		" from " + a.Client + " at " + sim.FormatTime(ea.At)
	switch {
	case rule == TokenAbove:
		text += ": a strict resource must reject a token at or below one it accepted"
	case b.Token == a.Token:
		text += ", a newer acquisition's: the token was granted twice, and a nonstrict resource, which accepts a token " +
			"equal to the last, let the older holder back in after the newer one had written (a strict one would have rejected it)"
	default:
		text += ": a nonstrict resource must reject a token below one it accepted"
	}
	// The writer of the accepted write comes first, with its token: its
	// critical section holds the violation's instant (WindowWrite).
	return Violation{
		Invariant:   Fencing,
		Clients:     distinct(b.Client, a.Client),
		From:        eb.At,
		To:          eb.At,
		Tokens:      []int64{b.Token, a.Token},
		Events:      x.seqs(),
		Explanation: text,
	}
}

// tokenViolation is a token violation at b's instant between the tokens of
// a and b, whose clients are ca and cb.
func tokenViolation(id ID, a, b sim.Event, ca, cb string, x *explanation, text string) Violation {
	return Violation{
		Invariant:   id,
		Clients:     distinct(ca, cb),
		From:        b.At,
		To:          b.At,
		Tokens:      []int64{a.Token, b.Token},
		Events:      x.seqs(),
		Explanation: text,
	}
}

// promotionsBetween renders the promotions between two positions (the
// usual way a token counter goes back), citing them.
func promotionsBetween(ix *history.Index, from, to int, x *explanation) string {
	s := ""
	for _, p := range ix.Promotions {
		if p.Pos > from && p.Pos < to {
			s += "; " + p.Node + " was promoted to primary at " + sim.FormatTime(ix.H[p.Pos].At)
			x.cite(p.Pos)
		}
	}
	return s
}

// fromPeer renders " from r1,r2" for an acquired event.
func fromPeer(e sim.Event) string {
	if strings.TrimSpace(e.Peer) == "" {
		return ""
	}
	return " from " + e.Peer
}
