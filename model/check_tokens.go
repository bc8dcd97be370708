package model

import (
	"slices"
	"strconv"

	"locksim/sim"
)

// checkTokens reports broken fencing-token order (InvTokenOrder):
//
//   - a token granted (acquired with Token > 0) to two acquisitions with
//     different lock values;
//   - an acquisition whose acquire-start came after another acquisition's
//     acquired event, yet was granted a token not larger than that one;
//   - the resource accepting (res-write N == 1) a token not larger than one
//     it accepted before. A nonstrict resource accepts an equal token by
//     design; it is still reported. With cfg.Fencing off (or empty) the
//     resource makes no token promise and this part is skipped.
//
// Re-recording a token for the same lock value (nested reentrant
// acquires) is one grant, not two.
func checkTokens(ix *historyIndex, cfg CheckConfig) []Violation {
	var vs []Violation
	startOf := map[int]int{} // acquired pos -> its acquire-start pos
	for _, a := range ix.acqs {
		startOf[a.pos] = a.start
	}
	granted := map[int64]int{} // token -> pos of its first grant
	seen := map[string]bool{}  // lock value + token already granted
	maxGrant := -1             // pos of the grant with the largest token so far
	maxAtStart := map[int]int{}
	lastAccepted := -1 // pos of the accepted write with the largest token
	fenced := cfg.Fencing == FenceStrict || cfg.Fencing == FenceNonstrict || cfg.Fencing == FenceStrictReads
	for _, pos := range ix.marked {
		e := ix.h[pos]
		switch e.Kind {
		case KindAcquireStart:
			maxAtStart[pos] = maxGrant
		case KindAcquired:
			if e.Token <= 0 {
				continue
			}
			k := e.Value + "\x00" + strconv.FormatInt(e.Token, 10)
			if seen[k] {
				continue
			}
			seen[k] = true
			start := startOf[pos]
			if first, ok := granted[e.Token]; ok {
				vs = append(vs, ix.duplicateToken(first, pos, start))
			} else if start >= 0 {
				if m := maxAtStart[start]; m >= 0 && ix.h[m].Token >= e.Token {
					vs = append(vs, ix.tokenRegression(m, pos, start))
				}
				granted[e.Token] = pos
			} else {
				granted[e.Token] = pos
			}
			if maxGrant < 0 || e.Token > ix.h[maxGrant].Token {
				maxGrant = pos
			}
		case KindResWrite:
			if !fenced || e.N != 1 || e.Token <= 0 {
				continue
			}
			if lastAccepted >= 0 && e.Token <= ix.h[lastAccepted].Token {
				vs = append(vs, ix.acceptedOld(lastAccepted, pos, cfg.Fencing))
			}
			if lastAccepted < 0 || e.Token > ix.h[lastAccepted].Token {
				lastAccepted = pos
			}
		}
	}
	return vs
}

// duplicateToken explains the grant at pos of the token first granted at
// first.
func (ix *historyIndex) duplicateToken(first, pos, start int) Violation {
	a, b := ix.h[first], ix.h[pos]
	text := "token " + strconv.FormatInt(b.Token, 10) + " was granted twice: to " + a.Actor + " at " +
		sim.FormatTime(a.At) + fromNodes(ix, first) + " and again to " + b.Actor + " at " + sim.FormatTime(b.At) + fromNodes(ix, pos)
	cited := []int{first, pos}
	if start > first {
		text += ", although " + b.Actor + " started acquiring at " + sim.FormatTime(ix.h[start].At) + ", after the first grant"
		cited = append(cited, start)
	}
	text += ix.promotionsBetween(first, pos, &cited)
	return ix.tokenViolation(a, b, a.Actor, b.Actor, cited, text)
}

// tokenRegression explains the grant at pos, whose acquisition started
// (at start) after the grant at prev of a token at least as large.
func (ix *historyIndex) tokenRegression(prev, pos, start int) Violation {
	a, b := ix.h[prev], ix.h[pos]
	cited := []int{prev, start, pos}
	text := b.Actor + " started acquiring at " + sim.FormatTime(ix.h[start].At) + ", after " + a.Actor +
		" was granted token " + strconv.FormatInt(a.Token, 10) + " at " + sim.FormatTime(a.At) + ", yet was granted the smaller token " +
		strconv.FormatInt(b.Token, 10) + " at " + sim.FormatTime(b.At) + fromNodes(ix, pos)
	text += ix.promotionsBetween(prev, pos, &cited)
	return ix.tokenViolation(a, b, a.Actor, b.Actor, cited, text)
}

// acceptedOld explains the resource accepting at pos a token not larger
// than the one it accepted at prev.
func (ix *historyIndex) acceptedOld(prev, pos int, f Fencing) Violation {
	a, b := ix.h[prev], ix.h[pos]
	text := "the resource accepted " + b.Peer + "'s write with token " + strconv.FormatInt(b.Token, 10) + " at " +
		sim.FormatTime(b.At) + " although it had already accepted token " + strconv.FormatInt(a.Token, 10) +
		" from " + a.Peer + " at " + sim.FormatTime(a.At)
	switch {
	case f == FenceNonstrict && a.Token == b.Token:
		text += ": the nonstrict resource accepts an equal token"
	case f == FenceStrict || f == FenceStrictReads:
		text += ": a strict resource must reject it"
	}
	cited := []int{prev, pos}
	if p := ix.clientWrite(b.Peer, b, pos); p >= 0 {
		cited = append(cited, p)
	}
	return ix.tokenViolation(a, b, a.Peer, b.Peer, cited, text)
}

// tokenViolation is a token-order violation at b's instant between the
// tokens of events a and b, whose clients are ca and cb.
func (ix *historyIndex) tokenViolation(a, b sim.Event, ca, cb string, cited []int, text string) Violation {
	return Violation{
		Invariant:   InvTokenOrder,
		Clients:     distinctClients(ca, cb),
		From:        b.At,
		To:          b.At,
		Tokens:      []int64{a.Token, b.Token},
		Events:      ix.seqs(cited...),
		Explanation: text,
	}
}

// promotionsBetween renders the promotions between two history positions
// (the usual way a token counter goes back), adding them to cited.
func (ix *historyIndex) promotionsBetween(from, to int, cited *[]int) string {
	s := ""
	for p := from + 1; p < to; p++ {
		if x := ix.h[p]; x.Kind == sim.KindPromote {
			s += "; " + x.Actor + " was promoted to primary at " + sim.FormatTime(x.At)
			*cited = append(*cited, p)
		}
	}
	return s
}

// distinctClients returns its arguments without repeats, in order.
func distinctClients(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
