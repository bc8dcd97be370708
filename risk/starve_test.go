package risk

import (
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// starvedWatchdog is a profile whose clients' renewal timers run late by
// 2s about once a second: longer than the lease, while the holder works on.
const starvedWatchdog = `"starvations": {"per_hour": 3600, "size": {"fixed": "2s"}}`

// TestStarvationsReachTheWatchdog: a profile's starvations are drawn as
// starve faults of the named task (the watchdog by default), and the
// estimate comes from running them: the watchdog that trusts its lease
// until release breaks mutual exclusion when its renewals run late, the
// one with a client deadline (it stops trusting the lease at its expiry)
// does not, under the same draws.
func TestStarvationsReachTheWatchdog(t *testing.T) {
	p := validationProfile(starvedWatchdog)
	p.Workload.Section = Dist{Points: []Quantile{{P: 0, V: 1500 * time.Millisecond}, {P: 1, V: 1500 * time.Millisecond}}}
	spec := model.Spec{Design: model.Watchdog}
	sm, err := NewSampler(p, spec)
	if err != nil {
		t.Fatal(err)
	}
	starves := 0
	for i := range 20 {
		for _, f := range sm.Draw(1, i, Proposal{Defensive: 1}).Spec.Faults {
			if f.Kind == sim.FaultStarve {
				starves++
				if f.Task != "watchdog" || f.Dur != 2*time.Second {
					t.Fatalf("drew %+v: want the watchdog starved for 2s", f)
				}
			}
		}
	}
	if starves == 0 {
		t.Fatal("20 draws drew no starvation")
	}
	est := func(s model.Spec) Estimate {
		r, err := Run(Config{Spec: s, Profile: p, Runs: 40, Seed: 3, Method: Plain, Invariants: []invariant.ID{invariant.MutualExclusion}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Estimates[0]
	}
	trusting := est(spec)
	if trusting.Hits == 0 {
		t.Errorf("the trusting watchdog: no violation in 40 runs of starved renewals (%+v)", trusting)
	}
	deadline := spec
	deadline.Options.Deadline = true
	if e := est(deadline); e.Hits != 0 {
		t.Errorf("the watchdog with a client deadline broke mutual exclusion under starvation: %+v", e)
	}
}

// TestStarvationsProfileFields: the task is checked by name, and an
// unknown field inside starvations is refused by name.
func TestStarvationsProfileFields(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`"starvations": {"per_hour": 1, "size": {"fixed": "1s"}, "task": "gc"}`, `starvations.task: "gc" is not a task`},
		{`"starvations": {"per_hour": 1, "size": {"fixed": "1s"}, "tasks": "main"}`, "starvations: tasks: no such field"},
		{`"starvations": {"per_hour": 1}`, "starvations.size: missing"},
	} {
		_, err := Parse(strings.NewReader(`{"name": "x", "workload": {"clients": 2, "acquisitions_per_second": 1, "section": {"fixed": "1ms"}}, ` + c.text + `}`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.text, err, c.want)
		}
	}
}
