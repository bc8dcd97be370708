package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
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

// neverGrants is a Lua design whose acquire never takes the lock: it can
// break nothing but liveness.
var neverGrants = model.Spec{Design: model.LuaDesignID, Lua: &model.LuaScripts{
	Acquire: "return 0", Release: "return redis.call('DEL', KEYS[1])"}}

// A lock that never grants, counted only on mutual exclusion and lost
// update, judged nothing: its runs are vacuous (only the uncounted
// liveness broke), the check has no verdict, and exhaustive mode refuses
// to explore around a fault-free run in which nobody acquired.
func TestNeverGrantingLockHasNoVerdict(t *testing.T) {
	counted := []invariant.ID{invariant.MutualExclusion, invariant.LostUpdate}
	c := CheckConfig{Campaign: Campaign{Base: neverGrants, Gen: scenarios.Gen{Kinds: []sim.FaultKind{}}, Runs: 5, Seed: 1, Invariants: counted}, Workers: 1}
	res, err := Check(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.VacuousRuns != 5 || res.NoVerdict() == "" {
		t.Errorf("vacuous runs %d, no verdict %q; want 5 and a reason", res.VacuousRuns, res.NoVerdict())
	}
	if _, err := Exhaustive(ExhaustiveConfig{Base: neverGrants, Invariants: counted}); err == nil || !strings.Contains(err.Error(), "no client acquired") {
		t.Errorf("exhaustive on a lock that never grants: %v, want an error", err)
	}
	// Counting liveness, the same lock is broken, not vacuous.
	c.Invariants = nil
	if res, err = Check(c); err != nil || !res.Failed() {
		t.Errorf("counting liveness: failed %v (%v), want a liveness break", res.Failed(), err)
	}
}

// Faults that never take effect test nothing (evict on etcd-lease: a
// raft member has no Redis key to evict): a check in which no drawn fault
// fired has no verdict.
func TestCheckWhoseFaultsNeverFiredHasNoVerdict(t *testing.T) {
	res := &CheckResult{Runs: 3, Counts: map[invariant.ID]int{}, Coverage: Coverage{Drawn: 4, AskedKinds: []sim.FaultKind{sim.FaultEvict}}}
	if nv := res.NoVerdict(); !strings.Contains(nv, "no fault took effect") {
		t.Errorf("no fault fired: no verdict %q", nv)
	}
	res.Coverage.Fired = 1
	if nv := res.NoVerdict(); nv != "" {
		t.Errorf("one fault fired: no verdict %q, want a verdict", nv)
	}
	// With no fault asked for, fault-free runs are the verdict.
	res.Coverage = Coverage{}
	if nv := res.NoVerdict(); nv != "" {
		t.Errorf("--faults none: no verdict %q, want a verdict", nv)
	}
}

// A run in which liveness had no verdict (the only node down for good)
// is tallied as undecided, not held; a check of only such runs, counting
// only liveness, has no verdict.
func TestUndecidedLivenessIsNotHeld(t *testing.T) {
	s := model.Spec{Design: model.SetPxLua, Faults: []sim.Fault{{Kind: sim.FaultNodeCrash, Target: "r1", At: 20 * time.Millisecond}}}.WithDefaults()
	out, err := model.Verdict(s, 1)
	if err != nil || out.Err != nil {
		t.Fatal(err, out.Err)
	}
	if !slices.Contains(out.Undecided, invariant.Liveness) {
		t.Fatalf("r1 down for good: undecided %v, want liveness", out.Undecided)
	}
	res := &CheckResult{Runs: 2, Counts: map[invariant.ID]int{}, Counted: []invariant.ID{invariant.Liveness}, Judged: map[invariant.ID]string{}}
	res.add(RunOutcome{Undecided: []invariant.ID{invariant.Liveness}})
	res.Runs = 1
	if nv := res.NoVerdict(); !strings.Contains(nv, "had no verdict") {
		t.Errorf("every run undecided: no verdict %q", nv)
	}
}

// Pauses asked for at the watchdog of a design without one would go
// nowhere (they once went silently to the critical section): refused.
func TestPauseAtWatchdogNeedsAWatchdog(t *testing.T) {
	gen := scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause}, PauseAt: []scenarios.Place{scenarios.PlaceWatchdog}}
	c := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: gen, Runs: 1}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "no watchdog") {
		t.Errorf("set-px-lua with pauses at its watchdog: %v, want a refusal", err)
	}
	c.Base.Design = model.Watchdog
	if err := c.Validate(); err != nil {
		t.Errorf("watchdog with pauses at its watchdog: %v", err)
	}
}

// VerdictOf, which the JSON summary lists and every report words, tells
// held from broken, not checked and no verdict, and says how many runs
// had no liveness verdict.
func TestCheckVerdictOf(t *testing.T) {
	r := &CheckResult{Runs: 10, Counted: []invariant.ID{invariant.MutualExclusion, invariant.Liveness},
		Counts:    map[invariant.ID]int{invariant.MutualExclusion: 2},
		Uncounted: map[invariant.ID]int{invariant.StaleWrite: 1},
		Undecided: map[invariant.ID]int{invariant.Liveness: 3},
		Judged:    map[invariant.ID]string{invariant.Fencing: "the resource is not fenced"},
		FirstFail: &RunOutcome{}}
	for _, tc := range []struct {
		id      invariant.ID
		verdict string
		broken  int
	}{
		{invariant.MutualExclusion, VerdictBroken, 2},
		{invariant.StaleWrite, VerdictBroken, 1},
		{invariant.Fencing, VerdictNotChecked, 0},
		{invariant.Liveness, VerdictHeld, 0},
		{invariant.LostUpdate, VerdictHeld, 0},
	} {
		v := r.VerdictOf(tc.id)
		if v.Verdict != tc.verdict || v.BrokenRuns != tc.broken {
			t.Errorf("%s: %+v, want %s with %d broken runs", tc.id, v, tc.verdict, tc.broken)
		}
	}
	if v := r.VerdictOf(invariant.Liveness); v.UndecidedRuns != 3 {
		t.Errorf("liveness: %d undecided runs, want 3", v.UndecidedRuns)
	}
	r.Undecided[invariant.Liveness] = 10
	if v := r.VerdictOf(invariant.Liveness); v.Verdict != VerdictNone {
		t.Errorf("liveness undecided in every run: %s, want %s", v.Verdict, VerdictNone)
	}
}

// A run that wrote nothing (its only node down from the start: nobody
// acquires, nothing is written) judged the write invariants without a
// verdict; a run that wrote judged them. A check's tally counts the
// first as no verdict for lost-update and stale-write, not as held: held
// in the runs that wrote, and no verdict when no run wrote.
func TestNoWriteRunIsNotHeldForWrites(t *testing.T) {
	down := model.Spec{Design: model.SetPxLua, Faults: []sim.Fault{{Kind: sim.FaultNodeCrash, Target: "r1"}}}.WithDefaults()
	out, err := model.Verdict(down, 1)
	if err != nil || out.Err != nil {
		t.Fatal(err, out.Err)
	}
	if out.WriteAccepted || !slices.Contains(out.Undecided, invariant.LostUpdate) || !slices.Contains(out.Undecided, invariant.StaleWrite) {
		t.Fatalf("r1 down from the start: wrote %v, undecided %v, want nothing written and lost-update, stale-write undecided", out.WriteAccepted, out.Undecided)
	}
	up, err := model.Verdict(model.Spec{Design: model.SetPxLua}.WithDefaults(), 1)
	if err != nil || up.Err != nil {
		t.Fatal(err, up.Err)
	}
	if !up.WriteAccepted || slices.Contains(up.Undecided, invariant.LostUpdate) || slices.Contains(up.Undecided, invariant.StaleWrite) {
		t.Fatalf("fault-free: wrote %v, undecided %v, want writes judged", up.WriteAccepted, up.Undecided)
	}
	res := &CheckResult{Counts: map[invariant.ID]int{}, Counted: invariant.All, Judged: map[invariant.ID]string{}}
	res.add(RunOutcome{Undecided: up.Undecided})
	res.add(RunOutcome{Undecided: out.Undecided})
	v := res.VerdictOf(invariant.LostUpdate)
	if v.Verdict != VerdictHeld || v.UndecidedRuns != 1 {
		t.Fatalf("lost-update, one run wrote and one did not: %+v, want held with 1 run undecided", v)
	}
	if v := res.VerdictOf(invariant.MutualExclusion); v.UndecidedRuns != 0 {
		t.Fatalf("mutual-exclusion counted %d undecided runs, want 0", v.UndecidedRuns)
	}
	none := &CheckResult{Counts: map[invariant.ID]int{}, Counted: invariant.All, Judged: map[invariant.ID]string{}}
	none.add(RunOutcome{Undecided: out.Undecided})
	v = none.VerdictOf(invariant.StaleWrite)
	if v.Verdict != VerdictNone || !strings.Contains(v.Why, "wrote nothing") {
		t.Fatalf("stale-write, no run wrote: %+v, want no verdict saying the run wrote nothing", v)
	}
}
