package libs

import (
	"context"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	. "locksim/realclient"
)

// With Options.Extend the workload's watchdog extends the lease (redsync's
// Extend) while A works longer than the TTL, so A keeps its lease and
// writes; without it, A's validity runs out in the middle of its work: its
// critical section ends there and it does not write (nothing breaks: the
// validity check does its job, at the cost of the work).
func TestWatchdogExtendsTheLease(t *testing.T) {
	for _, extend := range []bool{true, false} {
		s := model.Spec{
			Design:   DesignPrefix + "redsync",
			Options:  model.Options{Extend: extend},
			Workload: model.Workload{Cycles: 1, Work: 2500 * time.Millisecond, Start: 10 * time.Millisecond},
		}
		r, err := Run(t, locksim.Case{Spec: s, Seed: 1}, newRedsync())
		if err != nil {
			t.Fatal(err)
		}
		renewed := 0
		for _, e := range r.History {
			if e.Kind == history.KindRenew && e.N == 1 {
				renewed++
			}
		}
		explain(t, "redsync extend="+map[bool]string{true: "on", false: "off"}[extend], r)
		lost, wrote := 0, 0
		for _, e := range r.History {
			switch e.Kind {
			case history.KindLeaseLost:
				lost++
			case history.KindWrite:
				wrote++
			}
		}
		if len(r.Violations) > 0 || extend && wrote == 0 || !extend && lost == 0 {
			t.Errorf("extend=%v: violations %v, %d writes, %d lease-lost (renewals %d)", extend, invariant.Broken(r.Violations), wrote, lost, renewed)
		}
		if extend && renewed < 5 {
			t.Errorf("extend on: %d renewals in 2.5s of work with a 1s TTL, want at least 5", renewed)
		}
	}
}

// WithCriticalSection runs the user's own section against the resource.
func TestUserCriticalSection(t *testing.T) {
	wrote := 0
	section := func(ctx context.Context, r *Resource) error {
		v, err := r.Read(ctx)
		if err != nil {
			return err
		}
		r.Sleep(20 * time.Millisecond)
		ok, err := r.Write(ctx, v+1)
		if ok {
			wrote++
		}
		return err
	}
	s := model.Spec{Design: DesignPrefix + "redislock", Workload: model.Workload{Cycles: 2}}
	r, err := Run(t, locksim.Case{Spec: s, Seed: 1}, newRedislock, WithCriticalSection(section))
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	if wrote != 4 || len(r.Violations) != 0 {
		t.Errorf("wrote %d times with violations %v, want 4 accepted writes and none", wrote, invariant.Broken(r.Violations))
	}
	var last int64
	for _, e := range r.History {
		if e.Kind == history.KindResWrite && e.Reply == "(integer) 1" {
			last++
		}
	}
	if last != 4 {
		t.Errorf("the resource accepted %d writes, want 4", last)
	}
}
