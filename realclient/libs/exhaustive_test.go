package libs

import (
	"slices"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	. "locksim/realclient"
	"locksim/sim"
)

// exhaustiveFaults are the twins' fault model: what a correct single-node
// lock with validity survives (no clock jumps, which break every lease).
var exhaustiveFaults = []sim.FaultKind{sim.FaultPause, sim.FaultPartition, sim.FaultDelay, sim.FaultDrop, sim.FaultNodeCrash}

// exhaustiveOptions is a small configuration for an exhaustive check: two
// clients, one cycle each, one master that fsyncs every write.
func exhaustiveOptions(name string, extra ...Option) []Option {
	return append([]Option{WithName(name), WithWorkload(model.Workload{Cycles: 1, Work: 50 * time.Millisecond, Start: 5 * time.Millisecond}),
		WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}), WithFaults(exhaustiveFaults...),
		WithInvariants(invariant.MutualExclusion, invariant.Liveness)}, extra...)
}

// Exhaustive mode on the real libraries, with the points of their own
// fault-free runs: no single fault of these kinds, at any point, breaks
// redsync (it stops trusting a lock whose validity a late reply spent);
// redislock breaks mutual exclusion under a pause between its SET and the
// reply, as TestLateReply found with one hand-placed fault, and the danger
// map marks that point.
func TestExhaustiveRealLibraries(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup Setup
		holds bool
	}{{"redislock", newRedislock, false}, {"redsync", newRedsync(), true}} {
		start := time.Now()
		res, err := Exhaustive(t, tc.setup, exhaustiveOptions(tc.name, WithExhaustive(1))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d points, %d schedules, %d broke, in %v\n%s", tc.name, res.Points, res.Total(), res.BrokenSchedules,
			time.Since(start).Round(time.Millisecond), res.Guarantee())
		if res.FirstError != nil || res.NoVerdict() != "" || !strings.HasPrefix(res.Guarantee(), "explored all ") {
			t.Fatalf("%s: no bounded guarantee: %s", tc.name, res.Guarantee())
		}
		var marks []string
		for _, p := range res.Danger {
			if k := strings.Fields(p.Trigger); len(k) > 1 && strings.HasSuffix(k[1], "-send") && !slices.Contains(marks, k[1]) {
				marks = append(marks, k[1])
			}
		}
		slices.Sort(marks)
		if !slices.Contains(marks, "acquire-send") || !slices.Contains(marks, "release-send") {
			t.Errorf("%s: the points' wire marks are %v; want acquire-send and release-send among them", tc.name, marks)
		}
		if res.Failed() == tc.holds {
			t.Errorf("%s: %d of %d schedules broke a counted invariant; want it to hold: %v", tc.name, res.BrokenSchedules, res.Total(), tc.holds)
		}
		if tc.holds {
			continue
		}
		found := false
		for _, p := range res.Danger {
			found = found || strings.Contains(p.Trigger, "acquire-send") && slices.Contains(p.Invariants, invariant.MutualExclusion) &&
				strings.HasPrefix(p.WorstFault, "pause")
		}
		if !found {
			t.Errorf("%s: no point at an acquire-send where a pause breaks mutual exclusion in the danger map", tc.name)
		}
	}
}

// Depth 2, narrowed to half-TTL pauses: every placement of one or two.
// redsync holds; redislock holds against one but breaks mutual exclusion
// with two (together past the TTL between its SET and the reply's use),
// which only the second fault's search reaches.
func TestExhaustiveDepthTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5,000 runs")
	}
	for _, tc := range []struct {
		name  string
		setup Setup
		holds bool
	}{{"redsync", newRedsync(), true}, {"redislock", newRedislock, false}} {
		start := time.Now()
		res, err := Exhaustive(t, tc.setup, exhaustiveOptions(tc.name, WithExhaustive(2), WithFaults(sim.FaultPause), WithDurations("ttl/2"))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d points, %v schedules by depth, %d broke, in %v\n%s", tc.name, res.Points, res.Schedules, res.BrokenSchedules,
			time.Since(start).Round(time.Millisecond), res.Guarantee())
		if len(res.Schedules) != 2 || !strings.HasPrefix(res.Guarantee(), "explored all ") || res.Failed() == tc.holds {
			t.Fatalf("%s: want depth 2 explored and holds = %v: %s", tc.name, tc.holds, res.Guarantee())
		}
		for _, b := range res.Breaks {
			if !strings.Contains(b.Mechanism, ", then ") {
				t.Errorf("%s: a single half-TTL pause broke it (%s); want only pairs", tc.name, b.Mechanism)
			}
		}
	}
}
