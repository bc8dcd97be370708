package sim

// FaultOutcome is what became of one scheduled fault by the end of a run:
// whether it took effect, and if not, why. A fault that never took effect
// tested nothing, so reports and coverage count it apart.
type FaultOutcome uint8

// The outcomes.
const (
	// FaultNotTriggered: the fault waits for an event (Fault.After) that
	// never happened.
	FaultNotTriggered FaultOutcome = iota
	// FaultAfterEnd: the fault was due (at its time, or its offset after
	// its trigger) after the run had ended.
	FaultAfterEnd
	// FaultNoTarget: the fault was applied but found nothing to act on: a
	// client already crashed, a node already down, no such key with a
	// TTL, no message on the link within its window.
	FaultNoTarget
	// FaultFired: the fault took effect.
	FaultFired
	// FaultNoPressure: a memory-pressure burst fit under its node's
	// maxmemory: nothing was evicted and no write refused (pressure.go).
	FaultNoPressure
)

// Fired reports whether the fault took effect.
func (o FaultOutcome) Fired() bool { return o == FaultFired }

// String says in a few words what became of the fault.
func (o FaultOutcome) String() string {
	switch o {
	case FaultNotTriggered:
		return "never fired: its trigger never happened"
	case FaultAfterEnd:
		return "never fired: due after the run ended"
	case FaultNoTarget:
		return "never fired: its target was not there (already down, no such key, no message on the link)"
	case FaultFired:
		return "fired"
	case FaultNoPressure:
		return "never fired: the node had room for the burst (nothing evicted, no write refused)"
	}
	return "unknown"
}

// netHit ties a delay or drop fault to its network window, whose hits say
// at the end whether it took effect.
type netHit struct {
	fault, window int
	drop          bool
}

// FaultOutcomes returns, for each of Config.Faults in order, what became
// of it. It is complete after Finish (a delay or drop window counts as
// fired once it has delayed or lost a message); nil for a run without
// faults. The world keeps one byte per fault and checks nothing per event.
func (w *World) FaultOutcomes() []FaultOutcome {
	for _, h := range w.netHits {
		hits := 0
		if h.drop {
			hits = w.net.DropHits(h.window)
		} else {
			hits = w.net.DelayHits(h.window)
		}
		if hits > 0 {
			w.faultOut[h.fault] = FaultFired
		}
	}
	return w.faultOut
}
