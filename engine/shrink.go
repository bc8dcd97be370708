package engine

import (
	"time"

	"locksim/sim"
)

// Shrink greedily minimises a failing schedule: it drops faults, then
// halves durations (and memory-pressure sizes) and pulls start times
// earlier, keeping each change for which stillFails holds. It makes at most maxRuns runs.
func Shrink(faults []sim.Fault, stillFails func([]sim.Fault) bool, maxRuns int) []sim.Fault {
	cur := append([]sim.Fault(nil), faults...)
	runs := 0
	try := func(c []sim.Fault) bool {
		if runs >= maxRuns {
			return false
		}
		runs++
		if stillFails(c) {
			cur = c
			return true
		}
		return false
	}
	for changed := true; changed && runs < maxRuns; {
		changed = false
		for i := 0; i < len(cur); i++ {
			c := append(append([]sim.Fault(nil), cur[:i]...), cur[i+1:]...)
			if try(c) {
				changed, i = true, i-1
			}
		}
		for i := range cur {
			for _, mut := range []func(*sim.Fault) bool{
				func(f *sim.Fault) bool { f.Dur /= 2; return f.Dur > time.Millisecond },
				func(f *sim.Fault) bool { f.At /= 2; return f.At > time.Millisecond },
				func(f *sim.Fault) bool { f.Extra /= 2; return f.Extra > time.Millisecond },
				func(f *sim.Fault) bool { f.By /= 2; return f.By > time.Millisecond || f.By < -time.Millisecond },
				func(f *sim.Fault) bool { f.Size /= 2; return f.Size > 0 }, // a memory-pressure burst
			} {
				c := append([]sim.Fault(nil), cur...)
				if mut(&c[i]) && try(c) {
					changed = true
				}
			}
		}
	}
	return cur
}
