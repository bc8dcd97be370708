package invariant

import (
	"slices"
	"strconv"
	"strings"

	"locksim/model/history"
	"locksim/sim"
)

// checkLostUpdate reports every accepted write that did not add one to the
// resource's value. The workload's critical sections are read-modify-
// writes (read n, write n+1), so after its k-th accepted write the
// resource holds its initial value plus k; a write whose value is not the
// previous value plus one was computed from a read that missed accepted
// writes, whose increments it overwrote. The initial value is the first
// read served before the first accepted write, else 0. Each overwrite is
// reported once; the check goes on from the value the resource holds.
func checkLostUpdate(ix *history.Index) []Violation {
	accepted := make([]*history.Write, 0, len(ix.Writes)) // one allocation, not a dozen growths
	for i := range ix.Writes {
		if w := &ix.Writes[i]; w.Accepted {
			accepted = append(accepted, w)
		}
	}
	if len(accepted) == 0 {
		return nil
	}
	slices.SortFunc(accepted, func(a, b *history.Write) int { return a.Applied - b.Applied })
	cur := int64(0)
	first := -1
	for _, r := range ix.Reads {
		if r.Served >= 0 && !r.Refused && r.Served < accepted[0].Applied && (first < 0 || r.Served < first) {
			first, cur = r.Served, r.N
		}
	}
	var vs []Violation
	for i, w := range accepted {
		if w.N != cur+1 {
			vs = append(vs, lostViolation(ix, w, cur, accepted[:i]))
		}
		cur = w.N
	}
	return vs
}

// lostViolation explains the accepted write w, which set the resource to
// w.N when it held cur. The lost increments are those of the accepted
// writes applied after the writer's last read.
func lostViolation(ix *history.Index, w *history.Write, cur int64, before []*history.Write) Violation {
	x := &explanation{ix: ix}
	x.cite(w.Applied)
	read := -1
	var readN int64
	for _, r := range ix.Reads {
		if r.Client == w.Client && r.Served >= 0 && r.Served < w.Applied && r.Served > read {
			read, readN = r.Served, r.N
		}
	}
	var lost []*history.Write
	for _, p := range before {
		if p.Applied > read {
			lost = append(lost, p)
		}
	}
	if read < 0 && len(before) > 0 {
		lost = before[len(before)-1:] // no read recorded: the previous write
	}
	text := w.Client + "'s write at " + sim.FormatTime(ix.H[w.Applied].At)
	if w.Token != 0 {
		text += " with token " + strconv.FormatInt(w.Token, 10)
	}
	text += " set the resource to " + strconv.FormatInt(w.N, 10)
	if read >= 0 {
		text += " from the " + strconv.FormatInt(readN, 10) + " it read at " + sim.FormatTime(ix.H[read].At)
		x.cite(read)
	}
	text += ", but the resource held " + strconv.FormatInt(cur, 10)
	clients := []string{w.Client}
	tokens := nonzero(w.Token)
	from := ix.H[w.Applied].At
	var names, whose []string
	for _, p := range lost {
		e := ix.H[p.Applied]
		s := p.Client + "'s write at " + sim.FormatTime(e.At)
		if p.Token != 0 {
			s += " with token " + strconv.FormatInt(p.Token, 10)
		}
		s += " (" + strconv.FormatInt(p.N, 10) + ")"
		names = append(names, s)
		whose = append(whose, p.Client)
		clients = distinct(append(clients, p.Client)...)
		tokens = append(tokens, nonzero(p.Token)...)
		x.cite(p.Applied)
		from = min(from, e.At)
	}
	switch len(lost) {
	case 0:
	case 1:
		text += " after " + names[0] + ": " + whose[0] + "'s increment was lost"
	default:
		text += " after " + strings.Join(names, ", ") + ": " + strconv.Itoa(len(lost)) + " increments were lost"
	}
	return Violation{
		Invariant:   LostUpdate,
		Clients:     clients,
		From:        from,
		To:          ix.H[w.Applied].At,
		Tokens:      tokens,
		Events:      x.seqs(),
		Explanation: text,
	}
}
