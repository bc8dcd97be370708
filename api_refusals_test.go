package locksim

import (
	"strings"
	"testing"
	"time"

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
		f := &fakeTB{TB: t, Test: "TestNegativeTopology"}
		func() {
			defer func() {
				if x := recover(); x != nil {
					t.Errorf("%+v: panic %v", c.topo, x)
				}
			}()
			Check(f, "set-px-lua", WithTopology(c.topo), WithRuns(3), WithCaseDir(t.TempDir()))
		}()
		if out := strings.Join(f.Logs, "\n"); !f.Broke || !strings.Contains(out, c.want) {
			t.Errorf("%+v: failed %v, want a refusal %q:\n%s", c.topo, f.Broke, c.want, out)
		}
	}
}

// Check refuses a pause place it does not know, as the CLI's --pause-at
// does (new-user trial: WithPauseAt("wirte") ran and reported "held",
// with the pauses placed where nobody asked).
func TestCheckRefusesUnknownPausePlace(t *testing.T) {
	f := &fakeTB{TB: t, Test: "TestUnknownPausePlace"}
	Check(f, "set-px-lua", WithPauseAt("wirte"), WithRuns(3), WithCaseDir(t.TempDir()))
	if out := strings.Join(f.Logs, "\n"); !f.Broke || !strings.Contains(out, `unknown pause place "wirte"`) {
		t.Errorf("failed %v, want a refusal naming the place:\n%s", f.Broke, out)
	}
}

// An explicit TTL, run count or worker count of zero or less is refused,
// as the CLI's --ttl 0s, --runs 0 and --workers 0 are: left as the zero
// value it silently meant the default, so WithTTL(cfg.TTL) with an unset
// field judged a 1s lease the caller never wrote (new-user trial). Check,
// Matrix and Danger refuse alike (one table: harness.Settings.Refused).
func TestCheckRefusesExplicitZeros(t *testing.T) {
	for _, c := range []struct {
		opt  Option
		want string
	}{
		{WithTTL(0), "WithTTL(0s): the lease TTL must be positive"},
		{WithTTL(-time.Second), "WithTTL(-1s)"},
		{WithRuns(0), "WithRuns(0): want at least 1 run"},
		{WithWorkers(0), "WithWorkers(0): want at least 1 worker"},
	} {
		f := &fakeTB{TB: t, Test: "TestExplicitZeros"}
		Check(f, "set-px-lua", c.opt, WithCaseDir(t.TempDir()))
		if out := strings.Join(f.Logs, "\n"); !f.Broke || !strings.Contains(out, c.want) {
			t.Errorf("Check: failed %v, want a refusal %q:\n%s", f.Broke, c.want, out)
		}
		if _, err := Matrix("set-px-lua", nil, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Matrix: %v, want a refusal %q", err, c.want)
		}
	}
	if _, err := Danger("set-px-lua", WithTTL(0)); err == nil || !strings.Contains(err.Error(), "WithTTL(0s)") {
		t.Errorf("Danger: %v, want WithTTL(0s) refused", err)
	}
}
