package engine

import (
	"slices"

	"locksim/model"
	"locksim/scenarios"
	"locksim/sim"
)

// Coverage is what a check's faults did: how many took effect, per kind
// and per placement, and how many runs saw a failover, a clock step or a
// crash. A fault that never fired (its trigger never happened, it was due
// after the run ended, its target was gone) tested nothing; a kind or
// placement the check draws from that never fired in any run is a warning
// (Warnings).
type Coverage struct {
	// Drawn and Fired count the faults of every run, and those of them
	// that took effect.
	Drawn, Fired int
	// Kinds counts fired faults per kind; Places fired pauses and client
	// crashes per placement (scenarios.PlaceOf).
	Kinds  map[sim.FaultKind]int
	Places map[scenarios.Place]int
	// ClockStepRuns counts runs where a clock jump fired; CrashRuns runs
	// where a client or node crash fired. (Failovers: CheckResult.FailoverRuns.)
	ClockStepRuns, CrashRuns int
	// AskedKinds and AskedPlaces are what the check draws from: each one
	// that never fired is a warning.
	AskedKinds  []sim.FaultKind
	AskedPlaces []scenarios.Place
	// Interleave is what the same-instant scheduler saw (interleave.go).
	Interleave InterleaveCoverage
}

// newCoverage is the empty coverage of c, whose base spec resolves to
// base.
func newCoverage(c CheckConfig, base *model.Resolved) Coverage {
	return Coverage{Kinds: map[sim.FaultKind]int{}, Places: map[scenarios.Place]int{},
		AskedKinds: c.Gen.KindsDrawn(), AskedPlaces: c.Gen.PlacesFor(base), Interleave: newInterleaveCoverage(c.Base.Interleave)}
}

// add counts one run's faults; fired[i] tells whether faults[i] took
// effect.
func (cv *Coverage) add(faults []sim.Fault, unfired []int) {
	step, crash := false, false
	for i, f := range faults {
		cv.Drawn++
		if slices.Contains(unfired, i) {
			continue
		}
		cv.Fired++
		cv.Kinds[f.Kind]++
		if scenarios.IsPlaced(f.Kind) {
			if p := scenarios.PlaceOf(f); p != "" {
				cv.Places[p]++
			}
		}
		step = step || f.Kind == sim.FaultClockJump
		crash = crash || f.Kind == sim.FaultCrash || f.Kind == sim.FaultNodeCrash
	}
	if step {
		cv.ClockStepRuns++
	}
	if crash {
		cv.CrashRuns++
	}
}

// Warnings names each kind and placement the check draws from that never
// fired, in the order they are asked for.
func (cv *Coverage) Warnings() []string {
	var out []string
	for _, k := range cv.AskedKinds {
		if cv.Kinds[k] == 0 {
			out = append(out, "fault kind "+string(k)+" never fired")
		}
	}
	for _, p := range cv.AskedPlaces {
		if cv.Places[p] == 0 {
			out = append(out, "placement "+string(p)+" (pauses and client crashes) never fired")
		}
	}
	return out
}
