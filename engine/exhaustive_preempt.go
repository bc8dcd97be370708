package engine

import (
	"fmt"
	"strings"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/sim"
)

// MaxPreemptions bounds ExhaustiveConfig.Preemptions.
const MaxPreemptions = 2

// Preemption bounding (as loom and CHESS bound preemptions): with
// Preemptions p, every schedule the fault placements ran that broke
// nothing (and the fault-free run) is run again with every ordering of at
// most p same-instant choices. A choice point is a step where two or more
// concurrent events were ready at one instant (sim's lanes: different
// tasks, different links, the world); a reorder runs, at one choice point,
// another of them instead of the one scheduled first. The reorders of a
// schedule are placed at its own run's choice points; a second reorder
// goes after the first, at a choice point of the run the first led to.
// Every run is in sim.InterleaveScript mode, whose histories without a
// reorder are the fixed order's, byte for byte.

// preemptSpec is x.spec under the script policy with the given reorders.
func preemptSpec(s model.Spec, script []sim.Reorder) model.Spec {
	s.Interleave = sim.Interleave{Policy: sim.InterleaveScript, Script: script}.String()
	return s
}

// reorderLabel names a reorder by what ran first: "reorder at 0.002000s:
// B->r1 before A->r1".
func reorderLabel(cp sim.ChoicePoint, pick int) string {
	return "reorder at " + sim.FormatTime(cp.At) + ": " + cp.Lanes[pick] + " before " + cp.Lanes[0]
}

// extensions lists the schedules that add one reorder to base, at each of
// its choice points after its last reorder, with each other candidate.
func extensions(base Schedule) []Schedule {
	from := 0
	if n := len(base.script); n > 0 {
		from = base.script[n-1].At
	}
	var out []Schedule
	for i, cp := range base.points {
		at := i + 1
		if at <= from {
			continue
		}
		for pick := 1; pick < len(cp.Lanes); pick++ {
			s := Schedule{Faults: base.Faults, point: base.point, opt: base.opt, size: base.size,
				Mechanism: append(append([]string{}, base.Mechanism...), reorderLabel(cp, pick)),
				Classes:   append(append([]string{}, base.Classes...), ""),
				script:    append(append([]sim.Reorder{}, base.script...), sim.Reorder{At: at, Pick: pick})}
			s.Preempt = preemptSpec(model.Spec{}, s.script).Interleave
			out = append(out, s)
		}
	}
	return out
}

// preempt runs the reorder rounds over the clean schedules the fault
// placements left (bases, the fault-free run first), one round per
// reorder, refusing a round above the bound before running it.
func (x *explorer) preempt(bases []Schedule, agg *aggregate, done int) error {
	for round := 1; round <= x.cfg.Preemptions; round++ {
		var next []Schedule
		for _, b := range bases {
			next = append(next, extensions(b)...)
		}
		if done+len(next) > x.max() && !x.cfg.StopAtFirst {
			return errors.Errorf("exhaustive: %d schedules with %d reorder(s) on top of the %d before, more than the bound of %d: %s",
				len(next), round, done, x.max(), narrow)
		}
		bases = bases[:0]
		n := 0
		if x.interrupted() {
			return nil
		}
		ordered(len(next), x.cfg.Workers, x.more(), func(j int) Schedule { return x.run(next[j]) }, func(_ int, s Schedule) bool {
			s.Index = done
			done++
			n++
			agg.add(s, false)
			if x.cfg.Progress != nil {
				x.cfg.Progress(done, 0)
			}
			if s.Error != "" || agg.stop(s) {
				return false
			}
			if clean(s) {
				bases = append(bases, s)
			}
			if x.cfg.StopAtFirst && done >= x.max() {
				agg.res.HitBound = true
				return false
			}
			return true
		})
		agg.res.Preempted = append(agg.res.Preempted, n)
		if agg.res.FirstError != nil || agg.res.Stopped || agg.res.HitBound {
			break
		}
	}
	return nil
}

// clean: a schedule that ran, broke nothing and whose faults all fired,
// which the next round extends.
func clean(s Schedule) bool { return s.Error == "" && len(s.Broken) == 0 && !s.Unfired }

// preemptionClause is the guarantee's part about reorders: "" without
// them.
func (r *ExhaustiveResult) preemptionClause() string {
	if r.Preemptions == 0 {
		return ""
	}
	var counts []string
	for i, n := range r.Preempted {
		counts = append(counts, thousands(n)+" with "+[]string{"one reorder", "two reorders"}[i])
	}
	on := "on the fault-free run and on every fault schedule above that broke nothing"
	if len(r.Kinds) == 0 {
		on = "on the fault-free run (no faults placed)"
	}
	return fmt.Sprintf("; and %s, every ordering of its same-instant choices with at most %s (a reorder runs, where two or more concurrent events are ready at one instant, another of them first): %s",
		on, plural(r.Preemptions, "reorder"), strings.Join(counts, " and "))
}
