package locksim

import (
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// TestFailureReportGroupsACause: Check's failure log shows the three
// overlaps of one paused hold of A as one block, its shared facts once.
func TestFailureReportGroupsACause(t *testing.T) {
	s := model.Spec{Design: "fenced", Fencing: model.FenceStrict, Options: model.Options{TTL: time.Second}, Clients: []string{"A", "B"},
		Workload: model.Workload{Cycles: 3, Work: 5 * time.Millisecond},
		Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1422500 * time.Microsecond,
			After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}}}
	r, err := model.Run(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Violations) != 3 {
		t.Fatalf("%d violations, want 3", len(r.Violations))
	}
	text := FailureReport(r, "case.json", "TestX")
	if !strings.Contains(text, "1-3. mutual-exclusion, three violations with one cause: A was paused") {
		t.Errorf("the failure report does not group the three overlaps:\n%s", text)
	}
	if n := strings.Count(text, "A acquired at 0.002949s from r1 with token 1"); n != 1 {
		t.Errorf("the fact they share appears %d times, want once:\n%s", n, text)
	}
}
