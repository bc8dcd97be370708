package node

import (
	"context"
	"strings"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/realclient"
	"locksim/sim"
)

// TestPublishedPairs runs published npm releases, the one with a field
// bug and the one that fixed it, under the same faults.
//
// redis-semaphore 5.3.0 / 5.3.1, swarthy/redis-semaphore issue #175
// ("Mutex silently reacquires lock when expired between refreshes"),
// fixed by PR #177: A reads the resource and works for 3 s (B for 50 ms:
// longerForA); A pauses for 1.5 s right after the read, past its 1 s lease
// (its refresh, due at 0.8 s, goes out at the resume), the key expires, B
// takes the lock, increments and releases; at the resume 5.3.0's refresh script sets the
// key again, the mutex still says it is acquired, and A writes the value
// it read before the pause: B's increment is lost. 5.3.1's refresh fails,
// onLockLost fires, and A does not write. (Mutual exclusion is broken in
// both: A was paused holding what it believed was the lock.)
func TestPublishedPairs(t *testing.T) {
	requireNode(t)
	s := model.Spec{
		Design:   realclient.DesignPrefix + "redis-semaphore",
		Topology: model.Topology{Masters: 1},
		Workload: model.Workload{Cycles: 1, Start: 20 * time.Millisecond},
		Faults: []sim.Fault{
			{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindRead}},
		},
	}.WithDefaults()
	for _, tc := range []struct {
		module string
		broken bool
	}{{"js/libs/redis-semaphore-5.3.0.cjs", true}, {"js/libs/redis-semaphore-5.3.1.cjs", false}} {
		r, err := realclient.Run(t, locksim.Case{Spec: s, Seed: 1}, Setup(tc.module), realclient.WithCriticalSection(longerForA))
		if err != nil {
			t.Fatal(err)
		}
		if r.Err != nil {
			t.Fatalf("%s: %v", tc.module, r.Err)
		}
		var lost []string
		for _, v := range r.Violations {
			if v.Invariant == invariant.LostUpdate {
				lost = append(lost, v.Explanation)
			}
		}
		if tc.broken != (len(lost) > 0) {
			t.Errorf("%s: lost updates %q, want broken = %v\n%s", tc.module, lost, tc.broken, r.History.Text())
		}
		t.Logf("%s: %d violations; lost updates: %s", tc.module, len(r.Violations), strings.Join(lost, "; "))
	}
}

// longerForA is the standard read-modify-write with 3 s of work for A and
// 50 ms for B, and the validity check before the write.
func longerForA(ctx context.Context, r *realclient.Resource) error {
	v, err := r.Read(ctx)
	if err != nil {
		return nil
	}
	work := 50 * time.Millisecond
	if l, ok := r.Lock.(withUntil); ok && l.p.env.Client == "A" {
		work = 3 * time.Second
	}
	r.Sleep(work)
	if l, ok := r.Lock.(realclient.Validity); ok && !time.Now().Before(l.Until()) {
		return nil // the library says the lock was lost: no write
	}
	_, _ = r.Write(ctx, v+1)
	return nil
}
