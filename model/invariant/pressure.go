package invariant

import (
	"strconv"
	"strings"

	"locksim/model/history"
	"locksim/sim"
)

// A memory-pressure fault (sim.FaultMemoryPressure) writes a burst of
// other data to a node, which evicts by its maxmemory-policy. The
// explanations of a key evicted after such a burst name it: what was
// written, when, and under which limit and policy; a token granted twice
// cites the evictions of the burst's node between the two grants (the
// fencing counter evicted starts over).

// pressureBefore returns the position of the last memory-pressure burst
// on node at or before pos, or -1.
func pressureBefore(ix *history.Index, node string, pos int) int {
	last := -1
	for _, p := range ix.Faults {
		if p > pos {
			break
		}
		if e := ix.H[p]; e.Kind == sim.KindMemoryPressure && e.Actor == node {
			last = p
		}
	}
	return last
}

// pressureText says which burst the eviction at pos followed, citing it,
// or "" when no memory-pressure burst on its node came before it. pos is
// the evict event, or the key change it caused (a loss's), recorded at
// the same instant after it.
func pressureText(x *explanation, pos int) string {
	e := x.ix.H[pos]
	for p := pos - 1; e.Kind != sim.KindEvict && p >= 0 && x.ix.H[p].At == e.At; p-- {
		if h := x.ix.H[p]; h.Kind == sim.KindEvict && h.Actor == e.Actor && h.Key == e.Key {
			e, pos = h, p
		}
	}
	if e.Kind != sim.KindEvict || e.Note == "" {
		return ""
	}
	p := pressureBefore(x.ix, e.Actor, pos)
	if p < 0 {
		return ""
	}
	b := x.ix.H[p]
	x.cite(p)
	return " under memory pressure (" + e.Note + "): another application wrote " + strconv.FormatInt(b.N, 10) +
		" bytes to " + b.Actor + " at " + sim.FormatTime(b.At) + " (" + b.Note + ")"
}

// evictionsBetween renders the evictions that followed a memory-pressure
// burst between two positions (a fencing counter evicted starts over),
// citing them.
func evictionsBetween(ix *history.Index, from, to int, x *explanation) string {
	s := ""
	for p := from + 1; p < to; p++ {
		e := ix.H[p]
		if e.Kind != sim.KindEvict || strings.HasPrefix(e.Key, sim.FillKeyPrefix) {
			continue
		}
		if t := pressureText(x, p); t != "" {
			s += "; " + e.Actor + " evicted " + e.Key + " at " + sim.FormatTime(e.At) + t
			x.cite(p)
		}
	}
	return s
}
