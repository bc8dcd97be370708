package libs

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	. "locksim/realclient"
	"locksim/sim"
)

// The library findings the issue names, as verdicts of the simulation's
// checkers on the real libraries (versions pinned in go.mod and checked by
// TestLibraryVersionsPinned).

// runSpec runs one hand-built spec with a real client.
func runSpec(t *testing.T, name string, s model.Spec, setup Setup) *model.Result {
	t.Helper()
	s.Design = DesignPrefix + name
	r, err := Run(t, locksim.Case{Spec: s, Seed: 1}, setup)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("%s: run failed: %v", name, r.Err)
	}
	return r
}

func broke(r *model.Result, inv invariant.ID) bool {
	return slices.Contains(invariant.Broken(r.Violations), inv)
}

// explain logs the violations, for a reader of -v output.
func explain(t *testing.T, name string, r *model.Result) {
	t.Helper()
	t.Logf("%s: broken %v", name, invariant.Broken(r.Violations))
	for _, v := range r.Violations {
		t.Logf("  %s: %s", v.Invariant, v.Explanation)
	}
}

var libs = []struct {
	name  string
	setup Setup
}{{"redislock", newRedislock}, {"redsync", newRedsync()}}

// A stop-the-world pause of 3s, three times the 1s TTL, right after A's
// lock call returns. redislock has no notion of validity: A trusts its
// lease until it unlocks, so it loses mutual exclusion (B takes the expired
// key) and writes stale. redsync returns the lease's validity (Until),
// which the workload honours: A's critical section ends when Until passes
// on its clock, and it does not write after it: safe.
func TestFindingPauseAfterAcquire(t *testing.T) {
	want := map[string][]invariant.ID{"redislock": {invariant.MutualExclusion, invariant.StaleWrite}, "redsync": nil}
	for _, lib := range libs {
		r := runSpec(t, lib.name, model.Spec{
			Workload: model.Workload{Cycles: 1, Work: 50 * time.Millisecond, Start: 10 * time.Millisecond},
			Faults:   []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 3 * time.Second, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}},
		}, lib.setup)
		explain(t, lib.name, r)
		if got := invariant.Broken(r.Violations); !slices.Equal(got, want[lib.name]) {
			t.Errorf("%s after a 3s pause after acquire (TTL 1s): broken %v, want %v", lib.name, got, want[lib.name])
		}
	}
}

// The catalogue's gc-pause: the pause comes after the write was decided
// (after any validity check), so both libraries let the stale write in and
// lose an update; redislock also loses mutual exclusion, while redsync's
// section ended when its validity ran out, before B acquired.
func TestFindingGCPauseBreaksBothLibraries(t *testing.T) {
	for _, lib := range libs {
		r, err := RunScenario(t, "gc-pause", lib.setup, WithName(lib.name))
		if err != nil {
			t.Fatal(err)
		}
		explain(t, lib.name, r)
		for _, inv := range []invariant.ID{invariant.StaleWrite, invariant.LostUpdate} {
			if !broke(r, inv) {
				t.Errorf("%s under gc-pause: want %s broken, got %v", lib.name, inv, invariant.Broken(r.Violations))
			}
		}
		if got, want := broke(r, invariant.MutualExclusion), lib.name == "redislock"; got != want {
			t.Errorf("%s under gc-pause: mutual exclusion broken = %v, want %v", lib.name, got, want)
		}
	}
}

// pause-during-acquire: A's lock request lands, then A freezes for 1.2s
// (TTL 1s) before it reads the reply. redislock trusts the late OK and
// enters while B holds the lock; redsync measures how long the acquire
// took, finds no validity left, releases and retries, and stays safe.
func TestFindingPauseDuringAcquireBreaksRedislockNotRedsync(t *testing.T) {
	want := map[string]bool{"redislock": true, "redsync": false}
	for _, lib := range libs {
		r, err := RunScenario(t, "pause-during-acquire", lib.setup, WithName(lib.name))
		if err != nil {
			t.Fatal(err)
		}
		explain(t, lib.name, r)
		if !slices.ContainsFunc(r.History, func(e sim.Event) bool { return e.Kind == sim.KindPause && e.Actor == "A" }) {
			t.Fatalf("%s: the pause never started: the scenario did not place it", lib.name)
		}
		if got := broke(r, invariant.MutualExclusion); got != want[lib.name] {
			t.Errorf("%s under pause-during-acquire: mutual exclusion broken = %v, want %v (violations %v)", lib.name, got, want[lib.name], invariant.Broken(r.Violations))
		}
	}
}

// redsync on five masters: right after A acquires on all five, the wall
// clocks of k nodes jump 2s forward (past the 1s TTL), so A's key expires
// there at once. With k = 2, B can reach only 2 of the 3 it needs and the
// lock holds; with k = 3, B gets a majority while A still trusts its
// validity, and mutual exclusion breaks.
func TestFindingRedsyncClockJumpOnTwoOfFiveHoldsOnThreeBreaks(t *testing.T) {
	for _, tc := range []struct {
		k    int
		want bool
	}{{2, false}, {3, true}} {
		k, want := tc.k, tc.want
		var faults []sim.Fault
		for i := 1; i <= k; i++ {
			faults = append(faults, sim.Fault{Kind: sim.FaultClockJump, Target: "r" + strconv.Itoa(i), By: 2 * time.Second,
				After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}})
		}
		r := runSpec(t, "redsync", model.Spec{
			Topology: model.Topology{Masters: 5},
			Workload: model.Workload{Cycles: 1, Work: 500 * time.Millisecond, Start: 10 * time.Millisecond},
			Faults:   faults,
		}, newRedsync())
		explain(t, "redsync k="+strconv.Itoa(k), r)
		if got := broke(r, invariant.MutualExclusion); got != want {
			t.Errorf("redsync on 5 masters with %d clocks jumped: mutual exclusion broken = %v, want %v", k, got, want)
		}
	}
}

// failover-lost-write: r1 crashes right after A acquires, before its SET
// reached the replica r2; the sentinel promotes r2. The clients' go-redis
// connections to r1 are reset, and their new dials go to the primary the
// sentinel announced: B acquires on r2 while A still holds the lock it got
// on r1. redislock, a single-primary lock without WAIT, breaks as the
// catalogue's single-primary designs do.
func TestFailoverClientsFollowTheNewPrimary(t *testing.T) {
	r, err := RunScenario(t, "failover-lost-write", newRedislock, WithName("redislock"))
	if err != nil {
		t.Fatal(err)
	}
	explain(t, "redislock", r)
	onR2 := slices.ContainsFunc(r.History, func(e sim.Event) bool {
		return e.Actor == "B" && e.Kind == history.KindAcquired && e.Peer == "r2"
	})
	if !onR2 {
		t.Errorf("B never acquired on the promoted r2")
	}
	if !broke(r, invariant.MutualExclusion) {
		t.Errorf("redislock under failover-lost-write: want mutual exclusion broken, got %v", invariant.Broken(r.Violations))
	}
}

// The same story with go-redis's own Sentinel client: it asks the
// simulated sentinel for m1's primary, subscribes to +switch-master, and
// after the promotion sends B's lock request to r2.
func TestFailoverClientFollowsSwitchMaster(t *testing.T) {
	r, err := RunScenario(t, "failover-lost-write", redislockSentinel, WithName("redislock-sentinel"))
	if err != nil {
		t.Fatal(err)
	}
	explain(t, "redislock on NewFailoverClient", r)
	for _, want := range []func(sim.Event) bool{
		func(e sim.Event) bool {
			return e.Actor == sim.SentinelName && e.Kind == sim.KindExec && len(e.Args) > 1 && e.Args[1] == "get-master-addr-by-name"
		},
		func(e sim.Event) bool {
			return e.Actor == "B" && e.Kind == sim.KindMessage && e.Note == "m1 r1 6379 r2 6379"
		},
		func(e sim.Event) bool { return e.Actor == "B" && e.Kind == history.KindAcquired && e.Peer == "r2" },
	} {
		if !slices.ContainsFunc(r.History, want) {
			t.Errorf("the history lacks an event: the Sentinel client did not ask, hear of or follow the failover")
		}
	}
	if !broke(r, invariant.MutualExclusion) {
		t.Errorf("want mutual exclusion broken, got %v", invariant.Broken(r.Violations))
	}
}
