package node

import (
	"context"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/realclient"
	"locksim/sim"
)

// Pair is a published npm release with a field bug and the release that
// fixed it, both pinned by js/package-lock.json (npm aliases), with the
// case under which the buggy one breaks Want and the fixed one does not.
// TestPublishedPairs runs them; realclient/libs's library matrix
// generator reports them.
type Pair struct {
	Name           string
	Package        string // the npm package
	Buggy, Fixed   string // the lock modules, relative to this package's directory
	BuggyVersion   string // the npm versions the aliases pin
	FixedVersion   string
	BuggyAlias     string // the npm aliases in js/package.json
	FixedAlias     string
	Source         string // the upstream issue and fix
	Want           invariant.ID
	Mechanism      string
	Case           locksim.Case
	Section        realclient.CriticalSection
	AlsoBrokenBoth string // what both releases break, and why that is not the bug
}

// Pairs are the published npm pairs.
var Pairs = []Pair{{
	Name:         "redis-semaphore-reacquire-after-expiry",
	Package:      "redis-semaphore",
	Buggy:        "js/libs/redis-semaphore-5.3.0.cjs",
	Fixed:        "js/libs/redis-semaphore-5.3.1.cjs",
	BuggyVersion: "5.3.0", FixedVersion: "5.3.1",
	BuggyAlias: "redis-semaphore-5.3.0", FixedAlias: "redis-semaphore-5.3.1",
	Source: "swarthy/redis-semaphore issue #175 (\"Mutex silently reacquires lock when expired between refreshes\", " +
		"https://github.com/swarthy/redis-semaphore/issues/175), fixed by PR #177, first published in 5.3.1",
	Want: invariant.LostUpdate,
	Mechanism: "A reads the resource and works 3 s (B 50 ms) and pauses 1.5 s right after its read, past its 1 s lease; " +
		"B takes the lock, increments and releases; at the resume A's late refresh goes out: 5.3.0's refresh script sets the key again, " +
		"the mutex still says it is acquired, and A writes the value it read before the pause (B's increment lost); " +
		"5.3.1's refresh fails, onLockLost fires, and A does not write",
	AlsoBrokenBoth: "mutual-exclusion (A was paused holding what it believed was the lock: only the data differs)",
	Case: locksim.Case{Spec: model.Spec{
		Design:   realclient.DesignPrefix + "redis-semaphore",
		Topology: model.Topology{Masters: 1},
		Workload: model.Workload{Cycles: 1, Start: 20 * time.Millisecond},
		Faults: []sim.Fault{
			{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindRead}},
		},
	}, Seed: 1}, // realclient.Run resolves it (defaults applied) as every run does
	Section: longerForA,
}}

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
