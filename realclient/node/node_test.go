package node

import (
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/realclient"
	"locksim/sim"
)

// pauseCase: A pauses 1.5 s after it acquires, with a 1 s lease; B then
// takes the lock; A's release comes after.
func pauseCase(name string) locksim.Case {
	s := model.Spec{
		Design:   realclient.DesignPrefix + name,
		Topology: model.Topology{Masters: 1},
		Workload: model.Workload{Cycles: 2, Work: 50 * time.Millisecond, Start: 5 * time.Millisecond},
		Faults: []sim.Fault{
			{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}},
		},
	}.WithDefaults()
	return locksim.Case{Spec: s, Seed: 1}
}

func TestSmoke(t *testing.T) {
	r, err := realclient.Run(t, pauseCase("plain-del"), Setup("js/locks/plain-del.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	t.Log(r.History.Text())
	t.Log(r.Violations)
}
