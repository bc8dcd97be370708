package model

import (
	"slices"
	"strconv"
	"strings"

	"locksim/sim"
)

// checkLostUpdate reports every accepted write that did not add one to the
// resource's value (InvLostUpdate). The workload's sections are
// read-modify-writes (read n, write n+1), so the resource's value after
// its k-th accepted write must be its initial value plus k; a write whose
// new value is not the previous value plus one was computed from a read
// that missed earlier accepted writes, whose increments it overwrote.
//
// The new value of an accepted write is the resource's res-write Note
// ("value=7"), or else the N of the writer's write event. The initial
// value is the first res-read before the first accepted write, else 0.
// Each overwrite is reported once, then the check continues from the value
// the resource actually holds.
func checkLostUpdate(ix *historyIndex) []Violation {
	var vs []Violation
	cur, known := int64(0), true
	first := true
	var accepted []int // positions of accepted writes so far
	for _, pos := range ix.marked {
		e := ix.h[pos]
		if e.Kind == KindResRead && first {
			cur, first = e.N, false
			continue
		}
		if e.Kind != KindResWrite || e.N != 1 {
			continue
		}
		first = false
		n, ok := resWriteValue(e)
		if !ok {
			if p := ix.clientWrite(e.Peer, e, pos); p >= 0 {
				n, ok = ix.h[p].N, true
			}
		}
		if !ok {
			known = false // cannot follow the value through this write
			accepted = append(accepted, pos)
			continue
		}
		if known && n != cur+1 {
			vs = append(vs, ix.lostViolation(pos, n, cur, accepted))
		}
		cur, known = n, true
		accepted = append(accepted, pos)
	}
	return vs
}

// lostViolation explains the accepted write at pos that set the resource
// to n when it held cur. The lost increments are those of the accepted
// writes between the writer's last read and this write.
func (ix *historyIndex) lostViolation(pos int, n, cur int64, accepted []int) Violation {
	w := ix.h[pos]
	writer := w.Peer
	read := -1
	for p := pos - 1; p >= 0; p-- {
		if x := ix.h[p]; x.Kind == KindResRead && x.Peer == writer {
			read = p
			break
		}
	}
	var lost []int
	for _, p := range accepted {
		if p > read {
			lost = append(lost, p)
		}
	}
	if read < 0 && len(accepted) > 0 {
		lost = accepted[len(accepted)-1:] // no read recorded: the previous write
	}
	text := writer + "'s write at " + sim.FormatTime(w.At)
	if w.Token != 0 {
		text += " with token " + strconv.FormatInt(w.Token, 10)
	}
	text += " set the resource to " + strconv.FormatInt(n, 10)
	if read >= 0 {
		r := ix.h[read]
		text += " from the " + strconv.FormatInt(r.N, 10) + " it read at " + sim.FormatTime(r.At)
	}
	text += ", but the resource held " + strconv.FormatInt(cur, 10)
	clients := []string{writer}
	tokens := nonzeroTokens(w.Token)
	cited := []int{pos, read}
	from := w.At
	var names, whose []string
	for _, p := range lost {
		x := ix.h[p]
		s := x.Peer + "'s write at " + sim.FormatTime(x.At)
		if x.Token != 0 {
			s += " with token " + strconv.FormatInt(x.Token, 10)
		}
		if v, ok := resWriteValue(x); ok {
			s += " (" + strconv.FormatInt(v, 10) + ")"
		}
		names = append(names, s)
		whose = append(whose, x.Peer)
		if !slices.Contains(clients, x.Peer) {
			clients = append(clients, x.Peer)
		}
		tokens = append(tokens, nonzeroTokens(x.Token)...)
		cited = append(cited, p)
		from = min(from, x.At)
	}
	switch len(lost) {
	case 0:
	case 1:
		text += " after " + names[0] + ": " + whose[0] + "'s increment was lost"
	default:
		text += " after " + strings.Join(names, ", ") + ": " + strconv.Itoa(len(lost)) + " increments were lost"
	}
	return Violation{
		Invariant:   InvLostUpdate,
		Clients:     clients,
		From:        from,
		To:          w.At,
		Tokens:      tokens,
		Events:      ix.seqs(cited...),
		Explanation: text,
	}
}
