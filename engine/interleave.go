package engine

import (
	"fmt"
	"math"
	"strconv"

	"locksim/sim"
)

// InterleaveCoverage is what a check's same-instant scheduler
// (model.Spec.Interleave) saw over its runs, and the bound it gives.
type InterleaveCoverage struct {
	// Policy is the scheduler; the fixed order has nothing to report.
	Policy sim.Interleave
	// Runs counts the runs tallied; MaxChoices the most choice points
	// (steps with two or more concurrent candidates: PCT's steps) in a
	// run, MaxLanes the most lanes that competed in one (its threads).
	Runs, MaxChoices, MaxLanes int
}

func newInterleaveCoverage(spec string) InterleaveCoverage {
	il, _ := sim.ParseInterleave(spec) // validated with the spec
	return InterleaveCoverage{Policy: il}
}

func (ic *InterleaveCoverage) add(o RunOutcome) {
	ic.Runs++
	ic.MaxChoices = max(ic.MaxChoices, o.Choices)
	ic.MaxLanes = max(ic.MaxLanes, o.Lanes)
}

// Active reports whether a scheduler other than the fixed order ran.
func (ic *InterleaveCoverage) Active() bool { return ic.Policy.Policy != sim.InterleaveFixed }

// PCTBound is PCT's probability, per run, of finding a bug of depth d: a
// bug needs one thread first (1 in k, the threads) and d-1 orderings, each
// a change point on one particular choice point (1 in H, the horizon the
// change points are drawn among): at least 1/(k·H^(d-1)) (Burckhardt et
// al. 2010, Theorem 9, with its n threads and k steps). It holds for the
// runs whose choice points all fall within the horizon (n <= H); 0 when
// k is 0 (no run had a choice to make).
func PCTBound(d, k, horizon int) float64 {
	if k <= 0 || d < 1 || horizon < 1 {
		return 0
	}
	return 1 / (float64(k) * math.Pow(float64(horizon), float64(d-1)))
}

// Bound states what the scheduler's runs guarantee, in one sentence.
func (ic *InterleaveCoverage) Bound() string {
	il := ic.Policy
	seen := fmt.Sprintf("runs had up to n=%d choice points (steps with two or more concurrent events ready at one instant) and k=%d competing threads (tasks, links, the world)",
		ic.MaxChoices, ic.MaxLanes)
	switch il.Policy {
	case sim.InterleaveRandom:
		return fmt.Sprintf("interleave random (each choice uniform among the concurrent events ready): %s; no depth bound: a race that needs one particular order at one choice point among c candidates is taken with probability 1/c per run", seen)
	case sim.InterleavePCT:
		d, h := il.Depth, il.ChangeHorizon()
		p := PCTBound(d, ic.MaxLanes, h)
		s := fmt.Sprintf("interleave %s (PCT, depth d=%d: %d priority change point(s) among the first H=%d choice points): %s; a bug of depth %d among n steps and k threads is found with probability at least 1/(k·H^(d-1)) = 1/%s per run",
			il, d, d-1, h, seen, d, oneIn(p))
		if ic.MaxChoices > h {
			s += fmt.Sprintf(" where its orderings fall within the first %d choice points (runs had up to %d: raise H with pct:%d/%d)", h, ic.MaxChoices, d, ic.MaxChoices)
		} else if ic.Runs > 0 && p > 0 {
			s += fmt.Sprintf(", so the %d runs find one that every run's drawn configuration and faults can reach with probability at least %s", ic.Runs, percent(1-math.Pow(1-p, float64(ic.Runs))))
		}
		return s
	}
	return ""
}

// oneIn renders 1/p as a whole number ("1/160000").
func oneIn(p float64) string {
	if p <= 0 {
		return "∞"
	}
	return strconv.FormatFloat(math.Round(1/p), 'f', 0, 64)
}

func percent(f float64) string {
	return strconv.FormatFloat(100*f, 'g', 3, 64) + "%"
}
