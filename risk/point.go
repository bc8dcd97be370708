package risk

import (
	"fmt"
	"math"
	"time"

	"locksim/sim"
)

// PointChance is how likely the profile makes one fault like f (its kind
// and target, at least its size) start within exposure: the chance that a
// point of a danger map is reached, for the acquisition the point belongs
// to. For a Poisson process of rate λ whose sizes exceed the fault's with
// probability S, it is 1 - exp(-λ × exposure × S); a clock jump counts
// only the jumps in its direction. ok is false, with the reason, when the
// profile has no process for the fault's kind.
func PointChance(p Profile, f sim.Fault, exposure time.Duration) (chance float64, what string, ok bool) {
	var a *Arrivals
	size := f.Dur
	share := 1.0
	switch f.Kind {
	case sim.FaultPause:
		a = p.Pauses
	case sim.FaultStarve:
		if st := p.Starvations; st != nil && (f.Task == "" || f.Task == st.task()) {
			a = &st.Arrivals
		}
	case sim.FaultPartition:
		a = p.Partitions
	case sim.FaultNodeCrash:
		a = p.NodeCrashes
	case sim.FaultClockJump:
		if p.ClockJumps != nil {
			a = &p.ClockJumps.Arrivals
			size = f.By
			share = 1 - p.ClockJumps.BackwardFraction
			if f.By < 0 {
				size, share = -f.By, p.ClockJumps.BackwardFraction
			}
		}
	default:
		return 0, fmt.Sprintf("the profile has no %s faults", f.Kind), false
	}
	if a == nil || a.PerHour == 0 {
		return 0, fmt.Sprintf("the profile has no %s faults", f.Kind), false
	}
	s := a.Size.Survival(size) * share
	if size == 0 { // a fault of any size: every one counts
		s = share
	}
	lambda := a.PerHour / float64(time.Hour)
	chance = -math.Expm1(-lambda * float64(exposure) * s)
	what = fmt.Sprintf("a %s of at least %v starting in these %v: %.3g an hour of the process or node x %.3g of sizes", f.Kind, size, exposure.Round(time.Microsecond), a.PerHour, s)
	return chance, what, true
}
