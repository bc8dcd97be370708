package realclient

import (
	"testing"
	"time"

	"locksim/model"
	"locksim/sim"
)

func TestExplore(t *testing.T) {
	five := WithTopology(model.Topology{Masters: 5})
	for _, tc := range []struct {
		id    string
		name  string
		setup Setup
		opts  []Option
	}{
		{"gc-pause", "redislock", newRedislock, nil},
		{"gc-pause", "redsync", newRedsync(), nil},
		{"gc-pause", "redsync5", newRedsync(), []Option{five}},
		{"pause-during-acquire", "redislock", newRedislock, nil},
		{"pause-during-acquire", "redsync", newRedsync(), nil},
		{"pause-during-acquire", "redsync5", newRedsync(), []Option{five}},
		{"clock-jump", "redsync5", newRedsync(), nil},
		{"failover-lost-write", "redislock", newRedislock, nil},
	} {
		r, err := RunScenario(t, tc.id, tc.setup, append(tc.opts, WithName(tc.name))...)
		if err != nil {
			t.Errorf("%s %s: %v", tc.id, tc.name, err)
			continue
		}
		t.Logf("%s %s: err=%v events=%d end=%v broken=%v", tc.id, tc.name, r.Err, len(r.History), sim.FormatTime(r.History[len(r.History)-1].At), model.Broken(r.Violations))
		for _, v := range r.Violations {
			t.Logf("   %s: %s", v.Invariant, v.Explanation)
		}
	}
	_ = time.Second
}
