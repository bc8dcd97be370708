package report

import (
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
	"locksim/sim/resp"
)

// pinnedPrimary is set-px-lua given the primary's address (r1) instead of
// asking Sentinel: after a failover it keeps calling the old primary.
type pinnedPrimary struct{}

func (pinnedPrimary) Name() string         { return "pinned-primary" }
func (pinnedPrimary) Traits() model.Traits { return model.Traits{ToleratesFailover: true} }
func (pinnedPrimary) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	r, err := c.Call("r1", "SET", c.Key, v, "NX", "PX", c.TTLms())
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{"r1"}}, r.Kind == resp.Status && r.Str == "OK", nil
}
func (pinnedPrimary) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call("r1", "DEL", c.Key)
	return err
}

// TestFailoverAvailabilityIsMarked: a Sentinel setup's available
// violation (r1 crashes, r2 is promoted, the pinned client never follows)
// is marked on the timeline (its window on the waiting client's row and
// the !N line) and explained as a failover Sentinel repairs.
func TestFailoverAvailabilityIsMarked(t *testing.T) {
	s := model.Spec{Custom: pinnedPrimary{}, Design: "pinned-primary",
		Topology: model.Topology{Masters: 1, Replicas: 1, Sentinel: sim.SentinelConfig{Enabled: true, DownAfter: 500 * time.Millisecond}},
		Workload: model.Workload{Cycles: 2, Work: 100 * time.Millisecond},
		Options:  model.Options{TTL: time.Second},
		Faults:   []sim.Fault{{Kind: sim.FaultNodeCrash, Target: "r1", At: 150 * time.Millisecond}}}
	r, err := model.Run(s, 1)
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	if !strings.Contains(strings.Join(idsOf(r.Violations), ","), string(invariant.Available)) {
		t.Fatalf("available not broken: %v", idsOf(r.Violations))
	}
	var b strings.Builder
	if err := TimelineText(&b, r, 80); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "^ available (") {
		t.Errorf("the timeline does not mark the available violation:\n%s", b.String())
	}
	b.Reset()
	if err := ViolationsText(&b, r, 78); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), "ones Sentinel repairs by a failover") {
		t.Errorf("the explanation does not name the failover claim:\n%s", b.String())
	}
}

func idsOf(vs []invariant.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, string(v.Invariant))
	}
	return out
}
