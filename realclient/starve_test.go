package realclient

import (
	"slices"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// A starve fault of a real client's watchdog holds its renewal commands
// (extend-send) until the window's end, while its caller goes on: the
// correct twin, extending every 300ms a 1s lease over 3s of work, keeps
// its lock without the fault; with its renewals starved for 2s the key
// expires, B takes it, and A's caller, trusting its lock until Unlock,
// works on (a second holder). Its extensions leave only at the window's
// end, and none left during it.
func TestStarvedRealWatchdog(t *testing.T) {
	spec := model.Spec{
		Options:  model.Options{Extend: true, RenewEvery: 300 * time.Millisecond},
		Workload: model.Workload{Cycles: 1, Work: 3 * time.Second, Start: 10 * time.Millisecond},
	}
	cfg, err := newConfig([]Option{WithName("twin"), WithCaller(CallerTrusting)})
	if err != nil {
		t.Fatal(err)
	}
	run := func(faults []sim.Fault) *model.Result {
		s := spec
		s.Design = DesignPrefix + "twin"
		s.Faults = faults
		r, err := cfg.run(t, s.WithDefaults(), 1, newTwin(twinBugs{}))
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		return r
	}
	if r := run(nil); len(r.Violations) > 0 {
		t.Fatalf("without faults: %v", invariant.Broken(r.Violations))
	}
	starve := sim.Fault{Kind: sim.FaultStarve, Target: "A", Task: "watchdog", Dur: 2 * time.Second, At: 100 * time.Millisecond,
		After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}
	r := run([]sim.Fault{starve})
	if !slices.Contains(invariant.Broken(r.Violations), invariant.MutualExclusion) {
		t.Errorf("A's renewals starved for 2s past its 1s lease: mutual exclusion held\n%s", r.History.Text())
	}
	var from time.Duration
	for _, e := range r.History {
		switch {
		case e.Kind == sim.KindStarve && e.Actor == "A":
			from = e.At
		case e.Kind == history.KindExtendSend && e.Actor == "A" && from > 0 && e.At > from && e.At < from+2*time.Second:
			t.Errorf("A's extension left at %v, inside its watchdog's starvation (%v to %v)", e.At, from, from+2*time.Second)
		}
	}
	if from == 0 {
		t.Errorf("no starve event in the history\n%s", r.History.Text())
	}
}
