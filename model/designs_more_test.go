package model_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// Redisson's fair, read-write and explicit-lease locks, the locks of
// several locks and the wall-clock deadline, each as the run that shows
// what it does; the verdicts come from the simulation.

// scenarioRun runs a catalogue scenario with design d (its own when ""),
// changed by edit when not nil.
func scenarioRun(t *testing.T, id, d string, seed uint64, edit func(*model.Spec)) *model.Result {
	t.Helper()
	sc, err := scenarios.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	if d == "" {
		d = sc.Design
	}
	spec, err := sc.SpecFor(d)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&spec)
	}
	r, err := model.Run(spec, seed)
	if err != nil || r.Err != nil {
		t.Fatalf("run: %v %v", err, r.Err)
	}
	return r
}

// Readers of the read-write lock hold it at once, and that is no
// violation: four clients, the last two reading, no faults. Some pair of
// read holds overlaps, no reader writes, and every write builds on the
// last.
func TestReadersShareTheLock(t *testing.T) {
	overlapped := false
	for seed := uint64(1); seed <= 20; seed++ {
		s := model.Spec{Design: model.ReadWriteLock, Clients: []string{"A", "B", "C", "D"},
			Workload: model.Workload{Cycles: 2, Work: 100 * time.Millisecond}}
		r, err := model.Run(s, seed)
		if err != nil || r.Err != nil {
			t.Fatalf("run: %v %v", err, r.Err)
		}
		if len(r.Violations) > 0 {
			t.Fatalf("seed %d: %v", seed, r.Violations)
		}
		ix := history.New(r.History)
		for i, a := range ix.Sections {
			for _, b := range ix.Sections[i+1:] {
				if a.Shared && b.Shared && a.Client != b.Client && b.From < a.To {
					overlapped = true
				}
			}
		}
		for _, w := range ix.Writes {
			if w.Client == "C" || w.Client == "D" {
				t.Fatalf("seed %d: reader %s wrote", seed, w.Client)
			}
		}
	}
	if !overlapped {
		t.Error("no two read holds overlapped in 20 seeds: the test shows nothing")
	}
}

// Found by the simulation: a fair lock whose queue stays busy (three
// clients holding 1.2s each, renewed) drops waiters that are still
// polling, because each grant takes a whole queue wait off every deadline;
// with short holds the same queue keeps its order.
func TestFairLockShedsWaitersOfABusyQueue(t *testing.T) {
	busy := scenarioRun(t, "busy-fair-queue", "", 1, nil)
	if got := brokenOf(busy); !cmp.Equal(got, []invariant.ID{invariant.FIFO}) {
		t.Errorf("busy queue: broken %v, want fifo only\n%v", got, busy.Violations)
	}
	short := scenarioRun(t, "busy-fair-queue", "", 1, func(s *model.Spec) { s.Workload.Work = 50 * time.Millisecond })
	if got := brokenOf(short); len(got) != 0 {
		t.Errorf("short holds: broken %v, want nothing", got)
	}
}

// A crashed waiter times out of the fair lock's queue: with Redisson's
// queue wait (tryLock's wait, 3s) later than the liveness bound, with a
// short one within it.
func TestFairLockCrashedWaiterTimesOut(t *testing.T) {
	if got := brokenOf(scenarioRun(t, "fair-crash", "", 1, nil)); !cmp.Equal(got, []invariant.ID{invariant.Liveness}) {
		t.Errorf("queue wait 3s: broken %v, want liveness", got)
	}
	r := scenarioRun(t, "fair-crash", "", 1, func(s *model.Spec) { s.Options.QueueWait = 500 * time.Millisecond })
	if got := brokenOf(r); len(got) != 0 {
		t.Errorf("queue wait 500ms: broken %v, want nothing", got)
	}
	if n := countKind(r.History, history.KindAcquired); n < 3 {
		t.Errorf("queue wait 500ms: %d acquisitions, want A's, then C's and A's second", n)
	}
	// A frozen waiter keeps its turn when it wakes before its place runs out.
	q := scenarioRun(t, "fair-queue", "", 1, func(s *model.Spec) { s.Faults[0].Dur = time.Second })
	if got := brokenOf(q); len(got) != 0 {
		t.Errorf("fair-queue with a 1s pause: broken %v, want nothing", got)
	}
}

func countKind(h sim.History, k sim.Kind) int {
	n := 0
	for _, e := range h {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// The lock of several locks: how many grants keep a lease alive (no other
// client can gather its quorum), and the one-instance "Redlock" against
// locks on independent masters under one empty restart.
func TestLocksOfSeveralLocks(t *testing.T) {
	for _, tc := range []struct {
		design string
		opts   model.Options
		quorum int // grants that keep a lease alive
	}{
		{model.Redlock, model.Options{}, 3},            // 5 masters, 3 needed
		{model.MultiLock, model.Options{}, 1},          // 3 masters, all needed
		{model.MultiLock, model.Options{Quorum: 2}, 2}, // RedissonRedLock on 3 masters
		{model.RedlockOneNode, model.Options{}, 2},     // 3 keys of one node, 2 needed
		{model.SetPxLua, model.Options{}, 1},
	} {
		s := model.Spec{Design: tc.design, Options: tc.opts}.WithDefaults()
		if got := s.CheckConfig().Quorum; got != tc.quorum {
			t.Errorf("%s %+v: quorum %d, want %d", tc.design, tc.opts.Quorum, got, tc.quorum)
		}
	}
	me := []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate}
	for _, tc := range []struct {
		design string
		quorum int
		want   []invariant.ID
	}{
		{model.RedlockOneNode, 0, me},
		{model.MultiLock, 0, nil},
		{model.MultiLock, 2, nil},
		{model.Redlock, 0, nil},
	} {
		r := scenarioRun(t, "one-node-restart", tc.design, 1, func(s *model.Spec) { s.Options.Quorum = tc.quorum })
		if got := brokenOf(r); !cmp.Equal(got, tc.want) {
			t.Errorf("one-node-restart, %s quorum %d: broken %v, want %v", tc.design, tc.quorum, got, tc.want)
		}
	}
	// Multi-lock needs every master: with one down for good nobody acquires.
	s := model.Spec{Design: model.MultiLock, Faults: []sim.Fault{{Kind: sim.FaultNodeCrash, Target: "r2"}}}
	r, err := model.Run(s, 1)
	if err != nil || r.Err != nil {
		t.Fatalf("run: %v %v", err, r.Err)
	}
	if n := countKind(r.History, history.KindAcquired); n != 0 {
		t.Errorf("multi-lock with r2 down: %d acquisitions, want none", n)
	}
}

// Redisson's tryLock(wait, lease): an explicit lease runs no watchdog, so
// a section longer than the lease loses it with no fault; lock() with the
// watchdog (reentrant-hash) renews it.
func TestExplicitLeaseRunsNoWatchdog(t *testing.T) {
	el := scenarioRun(t, "explicit-lease", "", 1, nil)
	if n := countKind(el.History, history.KindRenew); n != 0 {
		t.Errorf("explicit-lease renewed %d times", n)
	}
	if got := brokenOf(el); !slices.Contains(got, invariant.MutualExclusion) {
		t.Errorf("explicit-lease: broken %v, want mutual-exclusion", got)
	}
	wd := scenarioRun(t, "explicit-lease", model.ReentrantHash, 1, nil)
	if n := countKind(wd.History, history.KindRenew); n == 0 || len(wd.Violations) > 0 {
		t.Errorf("reentrant-hash: %d renewals, violations %v", n, wd.Violations)
	}
}

// The wall-clock deadline (System.currentTimeMillis() in Java): with the deadline on the wall clock a
// step back makes A trust a lease that ran out; on the monotonic clock A
// does not write. A step forward while B waits makes B give up before
// its wait has passed on the monotonic clock.
func TestWallClockDeadline(t *testing.T) {
	me := []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate}
	if got := brokenOf(scenarioRun(t, "wall-clock-jump", "", 1, nil)); !cmp.Equal(got, me) {
		t.Errorf("wall clock: broken %v, want %v", got, me)
	}
	if got := brokenOf(scenarioRun(t, "wall-clock-jump", "", 1, func(s *model.Spec) { s.Options.WallClock = false })); len(got) != 0 {
		t.Errorf("monotonic clock: broken %v, want nothing", got)
	}
	gaveUp := func(wall bool) time.Duration {
		s := model.Spec{Design: model.Watchdog, Options: model.Options{WallClock: wall},
			Workload: model.Workload{Work: 4 * time.Second, Start: 10 * time.Millisecond},
			Faults:   []sim.Fault{{Kind: sim.FaultClockJump, Target: "B", By: 2 * time.Second, At: 100 * time.Millisecond}}}
		r, err := model.Run(s, 1)
		if err != nil || r.Err != nil {
			t.Fatalf("run: %v %v", err, r.Err)
		}
		for _, e := range r.History {
			if e.Actor == "B" && e.Kind == history.KindAcquireFailed {
				return e.At
			}
		}
		t.Fatalf("B never gave up (wall %v)", wall)
		return 0
	}
	if w, m := gaveUp(true), gaveUp(false); !(w < 1100*time.Millisecond && m > 3*time.Second) {
		t.Errorf("B gave up at %v on the wall clock, %v on the monotonic one: want by 1.1s and after 3s", w, m)
	}
}
