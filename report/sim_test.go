package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// TestRealHistories renders real simulated runs of every catalogue design,
// with and without a pause, crash and partition, to catch histories the
// hand-built fixtures do not cover. It checks only that rendering works
// and is stable; the golden tests check the output.
func TestRealHistories(t *testing.T) {
	faults := map[string][]sim.Fault{
		"none": nil,
		"pause": {{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond,
			After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}},
		"chaos": {
			{Kind: sim.FaultNodeCrash, Target: "r1", At: 20 * time.Millisecond, Dur: 300 * time.Millisecond},
			{Kind: sim.FaultPartition, At: 400 * time.Millisecond, Dur: 200 * time.Millisecond, A: []string{"A"}, B: []string{"r1"}},
			{Kind: sim.FaultClockJump, Target: "r1", At: 700 * time.Millisecond, By: 2 * time.Second},
			{Kind: sim.FaultCrash, Target: "B", At: 900 * time.Millisecond},
		},
	}
	for _, d := range model.DesignIDs() {
		for _, name := range []string{"none", "pause", "chaos"} {
			t.Run(d+"/"+name, func(t *testing.T) {
				s := model.Spec{Design: d, Options: model.Options{TTL: time.Second, Deadline: name == "pause"},
					Faults: faults[name], Clients: []string{"A", "B", "C"}}
				r, err := model.Run(s, 3)
				if err != nil {
					t.Skipf("model cannot run %s: %v", d, err)
				}
				if h := r.History; len(r.Violations) == 0 && len(h) > 2 {
					// A made-up violation exercises the windows and stories.
					r.Violations = []invariant.Violation{{Invariant: invariant.MutualExclusion, Clients: []string{"A", "B"},
						From: h[len(h)/2].At, To: h[len(h)-1].At, Events: []int{len(h) / 2}, Explanation: "test"}}
				}
				meta := Meta{Scenario: name}
				var a, b bytes.Buffer
				for _, w := range []*bytes.Buffer{&a, &b} {
					if err := Text(w, r, TextOptions{Meta: meta}); err != nil {
						t.Fatal(err)
					}
				}
				if a.String() != b.String() {
					t.Error("Text is not deterministic")
				}
				if !strings.Contains(a.String(), "Verdicts:") {
					t.Errorf("no verdicts in\n%s", a.String())
				}
				var j bytes.Buffer
				if err := JSON(&j, r, meta); err != nil {
					t.Fatal(err)
				}
				if !json.Valid(j.Bytes()) {
					t.Error("JSON output is not valid JSON")
				}
				var page bytes.Buffer
				if err := HTML(&page, r, meta); err != nil {
					t.Fatal(err)
				}
				reportData(t, page.String())
			})
		}
	}
}
