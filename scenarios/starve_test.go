package scenarios

import (
	"strings"
	"testing"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// TestStarveIsNotAPause: in redisson-2665 the starved watchdog's holder
// loses mutual exclusion and the explanation names the starved task;
// the same window as a pause of the whole process, with the client
// deadline, breaks nothing either way, and neither does the starvation
// with it: what the deadline cannot stop is a pause between its check and
// the write (gc-pause), which a starved watchdog alone never makes.
func TestStarveIsNotAPause(t *testing.T) {
	sc, err := Lookup("redisson-2665")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := sc.SpecFor(model.Watchdog)
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Run(spec, 1)
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	named := false
	for _, v := range r.Violations {
		if v.Invariant == invariant.MutualExclusion && strings.Contains(v.Explanation, "A's watchdog task was starved of CPU") {
			named = true
		}
	}
	if !named {
		t.Errorf("no mutual-exclusion violation names the starved watchdog: %v", r.Violations)
	}
	spec.Options.Deadline = true
	for _, kind := range []sim.FaultKind{sim.FaultStarve, sim.FaultPause} {
		s := spec
		s.Faults = []sim.Fault{spec.Faults[0]}
		s.Faults[0].Kind = kind
		if kind == sim.FaultPause {
			s.Faults[0].Task = ""
		}
		r, err := model.Run(s, 1)
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		if b := invariant.Broken(r.Violations); len(b) > 0 {
			t.Errorf("%s with the client deadline broke %v", kind, b)
		}
	}
}
