package model_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// TestFaultOutcomes: every fault says whether it took effect, and if not
// why (issue 27): a trigger that never matched, a time after the run, a
// target already gone, a link that carried nothing in the window.
func TestFaultOutcomes(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	faults := []sim.Fault{
		{Kind: sim.FaultPause, Target: "A", At: ms(1), Dur: ms(10)},                                                        // fires
		{Kind: sim.FaultPause, Target: "A", Dur: ms(10), After: &sim.Trigger{Actor: "A", Kind: history.KindWrite, Nth: 5}}, // one cycle: no 5th write
		{Kind: sim.FaultNodeCrash, Target: "r1", At: ms(30)},                                                               // fires, forever
		{Kind: sim.FaultNodeCrash, Target: "r1", At: ms(40)},                                                               // r1 already down
		{Kind: sim.FaultDrop, From: "r1", To: model.ResourceName, Count: 1, At: ms(45), Dur: ms(1)},                        // no node talks to the resource
		{Kind: sim.FaultPause, Target: "B", At: 50 * time.Minute, Dur: ms(10)},                                             // after the run
		{Kind: sim.FaultDelay, From: "A", To: "*", Extra: ms(1), At: 0, Dur: ms(5)},                                        // A's first requests: delayed
	}
	r, err := model.Run(model.Spec{Design: model.SetPxLua, Faults: faults}, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.FaultOutcome{sim.FaultFired, sim.FaultNotTriggered, sim.FaultFired, sim.FaultNoTarget, sim.FaultNoTarget, sim.FaultAfterEnd, sim.FaultFired}
	if diff := cmp.Diff(want, r.FaultOutcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 3, 4, 5}, r.Unfired()); diff != "" {
		t.Errorf("Unfired (-want +got):\n%s", diff)
	}
	o, err := model.Verdict(model.Spec{Design: model.SetPxLua, Faults: faults}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, o.FaultOutcomes); diff != "" {
		t.Errorf("Verdict's outcomes (-want +got):\n%s", diff)
	}
}
