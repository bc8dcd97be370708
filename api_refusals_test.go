package locksim

import (
	"strings"
	"testing"

	"locksim/model"
)

// Check refuses a topology with a negative count of masters or replicas,
// saying which (new-user trial: Masters -1 panicked with "index out of
// range" in the run generator before any run).
func TestCheckRefusesNegativeTopology(t *testing.T) {
	for _, c := range []struct {
		topo model.Topology
		want string
	}{
		{model.Topology{Masters: -1}, "masters -1 is negative"},
		{model.Topology{Replicas: -2}, "replicas -2 is negative"},
	} {
		f := &fakeTB{TB: t, name: "TestNegativeTopology"}
		func() {
			defer func() {
				if x := recover(); x != nil {
					t.Errorf("%+v: panic %v", c.topo, x)
				}
			}()
			Check(f, "set-px-lua", WithTopology(c.topo), WithRuns(3), WithCaseDir(t.TempDir()))
		}()
		if out := strings.Join(f.logs, "\n"); !f.failed || !strings.Contains(out, c.want) {
			t.Errorf("%+v: failed %v, want a refusal %q:\n%s", c.topo, f.failed, c.want, out)
		}
	}
}

// Check refuses a pause place it does not know, as the CLI's --pause-at
// does (new-user trial: WithPauseAt("wirte") ran and reported "held",
// with the pauses placed where nobody asked).
func TestCheckRefusesUnknownPausePlace(t *testing.T) {
	f := &fakeTB{TB: t, name: "TestUnknownPausePlace"}
	Check(f, "set-px-lua", WithPauseAt("wirte"), WithRuns(3), WithCaseDir(t.TempDir()))
	if out := strings.Join(f.logs, "\n"); !f.failed || !strings.Contains(out, `unknown pause place "wirte"`) {
		t.Errorf("failed %v, want a refusal naming the place:\n%s", f.failed, out)
	}
}
