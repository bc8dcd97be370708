package realclient

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// renewOptions is the interleaving tests' setting: a caller whose
// critical section does no I/O (it locks and unlocks at once, so the
// library's renewal goroutine and Unlock are pending together), clients
// that keep trying for 8 TTLs, and liveness and exclusion judged.
func renewOptions(name string, il Interleave, faults ...sim.FaultKind) []Option {
	return []Option{WithName(name), WithInterleave(il),
		WithCriticalSection(noSection),
		WithWorkload(model.Workload{Duration: 8 * time.Second, Think: 100 * time.Millisecond}),
		WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}),
		WithInvariants(invariant.MutualExclusion, invariant.Liveness), WithFaults(faults...)}
}

// noSection is a critical section without I/O.
func noSection(context.Context, *Resource) error { return nil }

// catches runs n generated runs (seeds 1..n, as Check's WithRuns draws
// them) and counts those that broke a counted invariant.
func catches(t *testing.T, setup Setup, n int, opts []Option) (broke int, what []invariant.ID) {
	t.Helper()
	c, err := newConfig(opts)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r, err := c.run(t, c.Gen.Run(scenarios.Rand(seed), c.Base), seed, setup)
		if err != nil {
			t.Fatal(err)
		}
		if r.Err != nil {
			t.Fatalf("seed %d: %v", seed, r.Err)
		}
		if f := invariant.Broken(r.Failures()); len(f) > 0 {
			broke++
			what = invariant.Sorted(append(what, f...))
		}
	}
	return broke, what
}

// The late-armed renewal (Redisson #7272's race, renewLock) is a race
// between two goroutines of one process at one instant: the fixed order
// never takes the losing side, with or without pauses, partitions, delays
// and node crashes; the seeded interleaving takes it in most runs and
// breaks liveness (the key re-set every TTL/3 by a renewal nobody owns);
// the correct twin holds under every interleaving.
func TestInterleaveFindsLateArmedRenewal(t *testing.T) {
	const n = 12
	faults := []sim.FaultKind{sim.FaultPause, sim.FaultPartition, sim.FaultDelay, sim.FaultNodeCrash}
	for _, tc := range []struct {
		what    string
		lateArm bool
		il      Interleave
		faults  []sim.FaultKind
		want    bool // some run breaks liveness
	}{
		{"late-arm, fixed order, no faults", true, InterleaveFixed, nil, false},
		{"late-arm, fixed order, random faults", true, InterleaveFixed, faults, false},
		{"late-arm, interleaved, no faults", true, InterleaveRandom, nil, true},
		{"correct twin, interleaved, no faults", false, InterleaveRandom, nil, false},
		{"correct twin, interleaved, random faults", false, InterleaveRandom, faults, false},
	} {
		broke, what := catches(t, newRenewLock(tc.lateArm), n, renewOptions("renew", tc.il, tc.faults...))
		t.Logf("%s: %d of %d runs broke %v", tc.what, broke, n, what)
		switch {
		case tc.want && (broke < n/2 || len(what) != 1 || what[0] != invariant.Liveness):
			t.Errorf("%s: %d of %d runs broke %v; want liveness in at least half", tc.what, broke, n, what)
		case !tc.want && broke > 0:
			t.Errorf("%s: %d of %d runs broke %v; want none", tc.what, broke, n, what)
		}
	}
}

// The same seed gives the same interleaving, byte for byte; another seed
// another one; and the default stays the fixed order.
func TestInterleaveDeterminism(t *testing.T) {
	spec := faultySpec("renew", 1)
	spec.Workload = model.Workload{Cycles: 3, Start: 5 * time.Millisecond}
	run := func(il Interleave, seed uint64) string {
		r, err := runOnce(t, runConfig{name: "renew", setup: newRenewLock(true), spec: spec, seed: seed, interleave: il,
			section: noSection})
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		return r.History.Hash()
	}
	first := run(InterleaveRandom, 7)
	for range 20 {
		if h := run(InterleaveRandom, 7); h != first {
			t.Fatalf("seed 7 interleaved gave two histories: %s and %s", first, h)
		}
	}
	differs := false
	for seed := uint64(1); seed <= 6 && !differs; seed++ {
		differs = run(InterleaveRandom, seed) != run(InterleaveFixed, seed)
	}
	if !differs {
		t.Error("the interleaving gave the fixed order's history for seeds 1..6: the seed does not reach the order")
	}
}

// An interleave mode that does not exist is refused, not run as the fixed
// order.
func TestInterleaveUnknownModeRefused(t *testing.T) {
	if _, err := newConfig([]Option{WithInterleave(Interleave(9))}); err == nil || !strings.Contains(err.Error(), "interleave mode 9") {
		t.Errorf("got %v; want the mode refused", err)
	}
}

// TestCmdArgsAsSprint checks that cmdArgs renders every kind of argument
// go-redis passes as fmt.Sprint does: the text orders the turns.
func TestCmdArgsAsSprint(t *testing.T) {
	args := []any{"SET", "lock", int(-3), int64(1 << 40), uint64(7), 1.5, true, []byte("v"), time.Second, nil}
	got := cmdArgs(nil, redis.NewCmd(context.Background(), args...))
	for i, a := range args {
		if want := fmt.Sprint(a); got[i] != want {
			t.Errorf("argument %d (%T): cmdArgs = %q, fmt.Sprint = %q", i, a, got[i], want)
		}
	}
}
