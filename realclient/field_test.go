package realclient

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
)

// untilHidden is a lock that reports no validity: only Lock and Unlock of
// the lock it wraps are visible.
type untilHidden struct{ l Lock }

func (u untilHidden) Lock(ctx context.Context) error   { return u.l.Lock(ctx) }
func (u untilHidden) Unlock(ctx context.Context) error { return u.l.Unlock(ctx) }

// twinTTL is the twin lock with its own key TTL, hidden Until: a library
// whose keys live ttl while it may declare another deadline.
func twinTTL(ttl time.Duration) Setup {
	return func(env Env) (Lock, error) {
		return untilHidden{&twinLock{c: env.Clients[0], key: env.Key, name: env.Client, ttl: ttl}}, nil
	}
}

// Premature loss is judged from what the library promises: its Until, or
// the deadline it declares (Options.Deadline: TTL - Margin from the
// request that took the key). A library with neither has no verdict on
// it in every run, never "held"; a declared deadline longer than the keys
// the library sets is a premature loss.
func TestPrematureLossNeedsAPromise(t *testing.T) {
	spec := model.Spec{Workload: model.Workload{Cycles: 1, Work: 800 * time.Millisecond, Start: 10 * time.Millisecond}}
	withUntil := runSpec(t, "twin", spec, newTwin(twinBugs{}))
	if slices.Contains(undecided(withUntil), invariant.PrematureLoss) {
		t.Errorf("a lock with Until: premature-loss undecided, want judged")
	}
	hidden := runSpec(t, "hidden", spec, twinTTL(time.Second))
	if !slices.Contains(undecided(hidden), invariant.PrematureLoss) {
		t.Errorf("a lock with neither Until nor a declared deadline: premature-loss judged, want no verdict")
	}

	declared := spec
	declared.Options.Deadline = true
	r := runSpec(t, "declared", declared, twinTTL(time.Second))
	explain(t, "declared", r)
	if slices.Contains(undecided(r), invariant.PrematureLoss) || len(r.Violations) > 0 {
		t.Errorf("declared deadline, keys of a TTL: undecided %v, broken %v, want judged and held", undecided(r), invariant.Broken(r.Violations))
	}
	o := declared.WithDefaults().Options
	for _, e := range r.History {
		if e.Kind == history.KindAcquired && (e.Dur <= 0 || e.Dur > o.TTL-o.Margin) {
			t.Errorf("%s's acquired validity %v, want in (0, TTL-Margin = %v]", e.Actor, e.Dur, o.TTL-o.Margin)
		}
	}
	// Keys of half a TTL under a declared TTL - Margin: lost early.
	r = runSpec(t, "declared", declared, twinTTL(500*time.Millisecond))
	explain(t, "short keys", r)
	if !broke(r, invariant.PrematureLoss) {
		t.Errorf("keys of 500ms under a declared deadline of about 1s: broken %v, want premature-loss", invariant.Broken(r.Violations))
	}
}

// Availability is judged on a real client only with its claim
// (WithAcquireBound), on three or more masters; without it the check
// does not judge it. A negative bound is refused.
func TestAcquireBoundIsTheClaim(t *testing.T) {
	spec := model.Spec{Design: DesignPrefix + "x", Topology: model.Topology{Masters: 3}}
	if ok, _ := spec.WithDefaults().CheckConfig().Judged(invariant.Available); ok {
		t.Errorf("no bound: available judged, want not judged (no verdict, never held)")
	}
	spec.Options.AcquireBound = 1500 * time.Millisecond
	cfg := spec.WithDefaults().CheckConfig()
	if ok, _ := cfg.Judged(invariant.Available); !ok || cfg.AvailableBound != 1500*time.Millisecond || len(cfg.Masters) != 3 || cfg.Tolerate != 1 {
		t.Errorf("bound 1.5s on 3 masters: judged %v, bound %v, masters %v, tolerate %d; want judged, 1.5s, 3 masters, 1", ok, cfg.AvailableBound, cfg.Masters, cfg.Tolerate)
	}
	one := spec
	one.Topology.Masters = 1
	if ok, _ := one.WithDefaults().CheckConfig().Judged(invariant.Available); ok {
		t.Errorf("one master: available judged, want not (no minority to tolerate)")
	}
	c := locksim.Case{Spec: spec, Seed: 1}
	c.Spec.Options.AcquireBound = -time.Second
	if _, err := Run(t, c, newTwin(twinBugs{})); err == nil || !strings.Contains(err.Error(), "WithAcquireBound") {
		t.Errorf("negative bound: err %v, want a refusal naming WithAcquireBound", err)
	}
}
