package engine

import (
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/scenarios"
	"locksim/sim"
)

// TestCheckOfVacuousRunsHasNoVerdict: runs in which no client acquired
// judge nothing; a check made only of them has no verdict (issue 27).
func TestCheckOfVacuousRunsHasNoVerdict(t *testing.T) {
	c := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua, Until: time.Nanosecond}, Gen: scenarios.Gen{Kinds: []sim.FaultKind{}}, Runs: 3, Seed: 1}, Workers: 1}
	res, err := Check(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.VacuousRuns != 3 || !strings.Contains(res.NoVerdict(), "no client acquired") {
		t.Errorf("vacuous runs %d, no verdict %q; want 3 and a reason", res.VacuousRuns, res.NoVerdict())
	}
}

// TestExhaustiveUnfiredSchedules: a schedule whose fault never fired and
// that broke nothing does not count toward the guarantee; all of them
// unfired is no guarantee.
func TestExhaustiveUnfiredSchedules(t *testing.T) {
	res := &ExhaustiveResult{Design: "d", Schedules: []int{0}, Danger: []DangerPoint{{}}}
	a := &aggregate{res: res, groups: map[string]*Break{}}
	a.add(Schedule{Unfired: true, point: 0}, true)
	a.add(Schedule{point: 0}, true)
	res.Schedules = []int{2}
	if res.UnfiredSchedules != 1 || res.Danger[0].Schedules != 1 {
		t.Errorf("unfired %d, danger schedules %d; want 1 and 1", res.UnfiredSchedules, res.Danger[0].Schedules)
	}
	if g := res.Guarantee(); !strings.Contains(g, "1 schedule whose fault never took effect") {
		t.Errorf("guarantee does not say so: %s", g)
	}
	res.UnfiredSchedules = 2
	if nv := res.NoVerdict(); !strings.Contains(nv, "a fault never took effect") || !strings.Contains(res.Guarantee(), "no guarantee") {
		t.Errorf("all unfired: no verdict %q, guarantee %q", nv, res.Guarantee())
	}
}
