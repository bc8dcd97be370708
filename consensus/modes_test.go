package consensus

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
)

// TestExhaustiveOneFault places every one-fault schedule on the fault-free
// run of each consensus design (exhaustive mode, depth 1): no single fault
// of any kind breaks mutual exclusion, the token source or the fencing
// rule; the fenced design loses no update, the unfenced one does (a write
// delayed or held past the lease).
func TestExhaustiveOneFault(t *testing.T) {
	for _, tc := range []struct {
		design   string
		loseData bool
	}{{EtcdLease, false}, {EtcdLeaseUnfenced, true}} {
		r, err := engine.Exhaustive(engine.ExhaustiveConfig{Base: model.Spec{Design: tc.design}})
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, n := range r.Schedules {
			total += n
		}
		if total < 1000 {
			t.Errorf("%s: %d schedules, want the whole space (over a thousand)", tc.design, total)
		}
		for _, id := range []invariant.ID{invariant.MutualExclusion, invariant.TokenUnique, invariant.Liveness} {
			if r.Counts[id] > 0 {
				t.Errorf("%s: %d one-fault schedules broke %s", tc.design, r.Counts[id], id)
			}
		}
		if lost := r.Counts[invariant.LostUpdate] > 0; lost != tc.loseData {
			t.Errorf("%s: %d schedules lost an update; want some: %v", tc.design, r.Counts[invariant.LostUpdate], tc.loseData)
		}
	}
}

// TestSweepDelay maps the write's network delay against the TTL: the
// revision keeps every cell's data, the unfenced lease loses it.
func TestSweepDelay(t *testing.T) {
	axis := func(ds ...time.Duration) engine.Axis {
		a := engine.Axis{}
		for _, d := range ds {
			a.Values = append(a.Values, float64(d))
		}
		return a
	}
	for _, tc := range []struct {
		design   string
		loseData bool
	}{{EtcdLease, false}, {EtcdLeaseUnfenced, true}} {
		sw, err := engine.Sweep(engine.SweepConfig{Param: "delay", Design: model.Spec{Design: tc.design}, Seeds: 1,
			X: axis(time.Second, 2*time.Second), Y: axis(500*time.Millisecond, 3*time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		lost := 0
		for _, row := range sw.Cells {
			for _, c := range row {
				if c.Runs == 0 {
					t.Fatalf("%s: a cell did not run", tc.design)
				}
				if slices.Contains(c.Invariants, invariant.LostUpdate) {
					lost++
				}
			}
		}
		if (lost > 0) != tc.loseData {
			t.Errorf("%s: %d of 4 cells lost an update; want some: %v", tc.design, lost, tc.loseData)
		}
	}
}

// TestSpentLeaseIsGivenBack replays a case check found (testdata/
// spent-lease.json: A frozen 1.5s inside its acquire, under a 1s lease):
// the put's reply comes after A's lease budget ran out, and A must give
// the lease back rather than hold it with no time left, which broke mutual
// exclusion once the leader expired the lease and B took it.
func TestSpentLeaseIsGivenBack(t *testing.T) {
	c, err := engine.LoadCase(filepath.Join("testdata", "spent-lease.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Run(c.Spec, c.Seed)
	if err != nil || r.Err != nil {
		t.Fatalf("%v %v", err, r.Err)
	}
	if slices.Contains(invariant.Broken(r.Violations), invariant.MutualExclusion) {
		t.Errorf("mutual exclusion broken after a pause inside the acquire:\n%v", r.Violations)
	}
}
