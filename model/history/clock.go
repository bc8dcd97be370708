package history

import (
	"math/bits"
	"sort"
	"time"

	"locksim/sim"
)

// TrueAt returns the true instant at which a client's monotonic clock
// reads mono, from the client's own events: every event a client records
// carries its monotonic reading (Local) at a true time (At), and between
// two of them the clock runs at one rate (a rate change is itself an
// event), so the answer is exact up to a nanosecond of rounding. Past the
// client's last event the clock keeps the rate it had since its last rate
// change; before its first event it runs at rate 1.
func (ix *Index) TrueAt(client string, mono time.Duration) time.Duration {
	a := ix.clients[client]
	if a == nil {
		return mono // no events (clients holds every client with one)
	}
	ps, rs := a.pos, a.clock // rs[i] is h[ps[i]]'s Local and At
	j := sort.Search(len(rs), func(i int) bool { return rs[i].local >= mono })
	if j < len(rs) {
		next := rs[j]
		if j == 0 || next.local == mono {
			return next.at - (next.local - mono)
		}
		prev := rs[j-1]
		return prev.at + scaleCeil(mono-prev.local, next.at-prev.at, next.local-prev.local)
	}
	last := rs[len(rs)-1]
	// The range since the last rate change has one rate: measure it.
	base := rs[max(a.drift, 0)]
	dAt, dLocal := last.at-base.at, last.local-base.local
	if dAt <= 0 || dLocal <= 0 {
		b := &ix.H[ps[max(a.drift, 0)]]
		if b.Kind != sim.KindClockDrift {
			return last.at + (mono - last.local) // one instant only: rate 1
		}
		dLocal, dAt = time.Duration(1_000_000+b.N), 1_000_000
	}
	return last.at + scaleCeil(mono-last.local, dAt, dLocal)
}

// scaleCeil returns ceil(a*num/den) for a, num >= 0 and den > 0 without
// overflowing.
func scaleCeil(a, num, den time.Duration) time.Duration {
	if a <= 0 || num <= 0 || den <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(num))
	if hi >= uint64(den) {
		return time.Duration(1<<63 - 1) // beyond any run
	}
	q, r := bits.Div64(hi, lo, uint64(den))
	if r != 0 {
		q++
	}
	if q > 1<<63-1 {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(q)
}

// TrueAtWall returns the true instant at which a client's wall clock has
// advanced by d since the client's event at pos: the first instant at or
// after that event when mono + jumps >= its mono + d, where jumps are the
// steps of the client's wall clock recorded after pos (its clock-jump
// events; the wall clock follows the monotonic one's rate). A backward step
// postpones the instant, a forward one brings it nearer, or to the step
// itself. Jumps a clock was configured with rather than faulted are not
// events and are not seen.
func (ix *Index) TrueAtWall(client string, pos int, d time.Duration) time.Duration {
	e := ix.H[pos]
	target := e.Local + d // on the scale mono + (jumps since pos)
	var jumped time.Duration
	from := e.At
	for _, p := range ix.clientPos[client] {
		j := ix.H[p]
		if p <= pos || j.Kind != sim.KindClockJump {
			continue
		}
		if t := max(ix.TrueAt(client, target-jumped), from); t < j.At {
			return t // reached before this step
		}
		jumped += j.Dur
		from = j.At
		if j.Local+jumped >= target {
			return j.At // the step itself carried the clock past it
		}
	}
	return max(ix.TrueAt(client, target-jumped), from)
}
