package engine

import (
	"testing"

	"locksim/model/invariant"
	"locksim/verdict"
)

// TestCheckResultVerdict: a check's verdict is decided from its facts in
// the ranking verdict.Decide gives, with the words the CLI prints.
func TestCheckResultVerdict(t *testing.T) {
	held := func() *CheckResult {
		return &CheckResult{Runs: 5, Planned: 5, Counted: invariant.All, Judged: map[invariant.ID]string{},
			Counts: map[invariant.ID]int{}, Uncounted: map[invariant.ID]int{}}
	}
	r := held()
	if v := r.Verdict(); v.Kind != verdict.Held || v.ExitCode() != 0 {
		t.Errorf("held: %v", v)
	}
	r.FirstFail = &RunOutcome{Index: 2, Broken: []invariant.ID{invariant.MutualExclusion}}
	if v := r.Verdict(); v.Kind != verdict.Broken || v.ExitCode() != 1 {
		t.Errorf("broken: %v", v)
	}
	r.FirstError = &RunOutcome{Index: 3, Seed: 4, Error: "boom"}
	if v := r.Verdict(); v.Kind != verdict.Stopped || v.String() != "run 3 (seed 4) stopped: boom" || v.ExitCode() != 2 {
		t.Errorf("stopped: %v", v)
	}
	r.Interrupted = true
	if v := r.Verdict(); v.Kind != verdict.Interrupted || v.ExitCode() != 130 || v.String() != "no verdict: interrupted after 5 runs: a partial tally" {
		t.Errorf("interrupted: %v", v)
	}
	r = held()
	r.VacuousRuns = 5
	if v := r.Verdict(); v.Kind != verdict.None || v.ExitCode() != 2 || v.Why != r.NoVerdict() {
		t.Errorf("vacuous: %v", v)
	}
	x := &ExhaustiveResult{Schedules: []int{3}, BrokenSchedules: 0}
	if v := x.Verdict(); v.Kind != verdict.Held {
		t.Errorf("exhaustive held: %v", v)
	}
	x.UnfiredSchedules = 3
	if v := x.Verdict(); v.Kind != verdict.None {
		t.Errorf("exhaustive, no fault fired: %v", v)
	}
	x.FirstError = &Schedule{Index: 1, Error: "boom"}
	if v := x.Verdict(); v.Kind != verdict.Stopped || v.String() != "schedule 1 stopped: boom" {
		t.Errorf("exhaustive stopped: %v", v)
	}
}
