package sim

import "locksim/network"

// applyFault starts fault i (of Config.Faults) now, schedules its end,
// and records whether it took effect (FaultOutcomes). What a kind does is
// its FaultKindTable entry's apply.
func (w *World) applyFault(i int, f Fault) {
	w.faultOut[i] = FaultFired
	end := network.Forever
	if f.Dur > 0 {
		end = w.now + f.Dur
	}
	if info, ok := FaultKindOf(f.Kind); ok {
		info.apply(w, i, f, end)
	}
}
