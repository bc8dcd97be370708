package locksim

import (
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
)

// TestCheckWithoutEvidenceFails (issue 27): locksim.Check fails the test,
// with the reason, when it judged nothing: a budget spent before the first
// run, or an invariant to count that the design cannot judge (random runs
// and exhaustive mode alike).
func TestCheckWithoutEvidenceFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
		want string
	}{
		{"budget", []Option{WithBudget(time.Nanosecond)}, "no verdict: no run was made"},
		{"fifo", []Option{WithRuns(5), WithInvariants(invariant.FIFO)}, "invariant fifo cannot apply to design set-px-lua"},
		{"quorum on a design without one", []Option{WithRuns(5), WithOptions(model.Options{Quorum: 1})}, "quorum applies to designs that take a quorum"},
		{"exhaustive fifo", []Option{WithExhaustive(1), WithInvariants(invariant.FIFO)}, "invariant fifo cannot apply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTB{TB: t, Test: "TestNoEvidence"}
			design := "set-px-lua"
			if strings.HasPrefix(tc.name, "quorum") {
				design = "fair-lock"
			}
			Check(f, design, append(tc.opts, WithCaseDir(t.TempDir()))...)
			if !f.Broke || !strings.Contains(strings.Join(f.Logs, "\n"), tc.want) {
				t.Errorf("failed %v, logs %q; want a failure saying %q", f.Broke, f.Logs, tc.want)
			}
		})
	}
}
