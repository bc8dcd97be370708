package realclient

import (
	"testing"
	"time"

	"locksim/model"
	"locksim/sim"
)

func TestDetSmoke(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   Setup
		masters int
	}{{"redislock", newRedislock, 1}, {"redsync5", newRedsync(), 5}} {
		s := model.Spec{Design: DesignPrefix + tc.name, Workload: model.Workload{Cycles: 3}, Topology: model.Topology{Masters: tc.masters},
			Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: "acquired"}},
				{Kind: sim.FaultPartition, A: []string{"B"}, B: []string{"r1"}, At: 100 * time.Millisecond, Dur: 2 * time.Second},
				{Kind: sim.FaultDelay, From: "A", To: "r1", Extra: 300 * time.Millisecond, At: 0, Dur: time.Second}}}
		s = s.WithDefaults()
		hashes := map[string]int{}
		for i := 0; i < 10; i++ {
			r, err := runOnce(t, runConfig{name: tc.name, setup: tc.setup, spec: s, seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			hashes[r.History.Hash()]++
		}
		t.Logf("%s: %d distinct hashes", tc.name, len(hashes))
	}
}
