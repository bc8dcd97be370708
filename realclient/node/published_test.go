package node

import (
	"strings"
	"testing"

	"locksim/realclient"
)

// TestPublishedPairs runs published npm releases, the one with a field
// bug and the one that fixed it, under the same faults (Pairs: the
// case, the critical section and the upstream issue).
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
	for _, p := range Pairs {
		for _, tc := range []struct {
			module string
			broken bool
		}{{p.Buggy, true}, {p.Fixed, false}} {
			r, err := realclient.Run(t, p.Case, Setup(tc.module), realclient.WithCriticalSection(p.Section))
			if err != nil {
				t.Fatal(err)
			}
			if r.Err != nil {
				t.Fatalf("%s: %v", tc.module, r.Err)
			}
			var want []string
			for _, v := range r.Violations {
				if v.Invariant == p.Want {
					want = append(want, v.Explanation)
				}
			}
			if tc.broken != (len(want) > 0) {
				t.Errorf("%s: %s %q, want broken = %v\n%s", tc.module, p.Want, want, tc.broken, r.History.Text())
			}
			t.Logf("%s: %d violations; %s: %s", tc.module, len(r.Violations), p.Want, strings.Join(want, "; "))
		}
	}
}
