package libs

import (
	"os"
	"strconv"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	. "locksim/realclient"
	"locksim/scenarios"
	"locksim/sim"
)

// TestStressRandomSchedules runs many random fault schedules over every
// supported kind (REALCLIENT_STRESS=N runs; default 40) and wants each run
// to finish without error: no hang, no panic, no run error.
func TestStressRandomSchedules(t *testing.T) {
	n := 40
	if v, err := strconv.Atoi(os.Getenv("REALCLIENT_STRESS")); err == nil {
		n = v
	}
	if testing.Short() {
		n = 10
	}
	kinds := []sim.FaultKind{sim.FaultPause, sim.FaultPartition, sim.FaultDelay, sim.FaultDrop, sim.FaultNodeCrash, sim.FaultClockJump, sim.FaultEvict}
	failover := model.Topology{Masters: 1, Replicas: 1, Persistence: sim.PersistEverySec,
		Sentinel: sim.SentinelConfig{Enabled: true, DownAfter: time.Second, DiscoveryDelay: 100 * time.Millisecond}}
	for _, tc := range []struct {
		name  string
		setup Setup
		topo  model.Topology
	}{{"redislock", newRedislock, model.Topology{Masters: 1}}, {"redsync", newRedsync(), model.Topology{Masters: 1}},
		{"redsync", newRedsync(), model.Topology{Masters: 5}}, {"redislock", newRedislock, failover},
		{"redislock-sentinel", redislockSentinel, failover}} {
		base := model.Spec{Design: DesignPrefix + tc.name, Topology: tc.topo, Workload: model.Workload{Cycles: 2}}
		gen := scenarios.Gen{Kinds: kinds, Swarm: true, NodeClocksOnly: true, Wire: true}
		broken := 0
		for i := 0; i < n; i++ {
			s := gen.Run(scenarios.Rand(uint64(i)), base)
			r, err := Run(t, locksim.Case{Spec: s, Seed: uint64(i)}, tc.setup)
			if err != nil {
				t.Fatalf("%s run %d %v: %v", tc.name, i, s.Faults, err)
			}
			if r.Err != nil {
				t.Errorf("%s on %d masters, run %d (%s), faults %v: %v", tc.name, tc.topo.Masters, i, scenarios.Describe(s), s.Faults, r.Err)
			}
			if len(r.Violations) > 0 {
				broken++
			}
		}
		t.Logf("%s on %d masters: %d of %d random runs broke an invariant", tc.name, tc.topo.Masters, broken, n)
	}
}
