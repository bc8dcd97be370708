package realclient

import (
	"testing"
	"time"

	"locksim/model"
	"locksim/sim"
)

func TestSmoke(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   Setup
		masters int
	}{{"redislock", newRedislock, 1}, {"redsync", newRedsync(), 1}, {"redsync5", newRedsync(), 5}} {
		s := model.Spec{Design: DesignPrefix + tc.name, Workload: model.Workload{Cycles: 2}, Topology: model.Topology{Masters: tc.masters},
			Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: "acquired"}}}}
		s = s.WithDefaults()
		r, err := runOnce(t, runConfig{name: tc.name, setup: tc.setup, spec: s, seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: err=%v events=%d broken=%v hash=%s", tc.name, r.Err, len(r.History), model.Broken(r.Violations), r.History.Hash()[:12])
		if testing.Verbose() {
			t.Log(r.History.Text())
		}
	}
}
