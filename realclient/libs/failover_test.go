package libs

import (
	"context"
	"fmt"
	"testing"
	"time"

	goredislib "github.com/redis/go-redis/v9"

	"locksim/model"
	"locksim/model/invariant"
	. "locksim/realclient"
	"locksim/sim"
)

// pinnedRedislock is bsm/redislock on a go-redis client given the
// primary's address (r1:6379) instead of the group's or Sentinel's: after a
// failover it keeps dialing the old primary. Its turn hook asks the
// governor as the harness's own clients do.
func pinnedRedislock(env Env) (Lock, error) {
	c := goredislib.NewClient(&goredislib.Options{Addr: "r1:6379", Dialer: env.Dialer, PoolSize: 10})
	c.AddHook(turnHook{env})
	env.CloseAtExit(c)
	return newRedislockOn(c, env)
}

type turnHook struct{ env Env }

func (h turnHook) DialHook(next goredislib.DialHook) goredislib.DialHook { return next }
func (h turnHook) ProcessHook(next goredislib.ProcessHook) goredislib.ProcessHook {
	return func(ctx context.Context, cmd goredislib.Cmder) error {
		h.env.Turn("m1", argStrings(cmd)...)
		return next(ctx, cmd)
	}
}
func (h turnHook) ProcessPipelineHook(next goredislib.ProcessPipelineHook) goredislib.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredislib.Cmder) error {
		var args []string
		for _, c := range cmds {
			args = append(args, argStrings(c)...)
		}
		h.env.Turn("m1", args...)
		return next(ctx, cmds)
	}
}

func argStrings(c goredislib.Cmder) []string {
	var out []string
	for _, a := range c.Args() {
		out = append(out, fmt.Sprint(a))
	}
	return out
}

// A Sentinel setup's availability claim on a real client: one primary r1
// with its replica r2 under Sentinel (down-after 1s, discovery 100ms), r1
// crashing for good at 0.5s, and the claim stated with WithAcquireBound
// (here in the spec: Options.AcquireBound, 3s, over the 1s down-after +
// 0.1s discovery + a 1s TTL for the key r1's last holder left on r2).
// redislock on go-redis's Sentinel client (NewFailoverClient) and on the
// harness's client for m1 (which dials the primary the sentinel announced)
// follow the failover and hold; on a client pinned to r1:6379 it never
// acquires again: broken. Without the bound the claim is not judged.
func TestRealClientAvailableUnderFailover(t *testing.T) {
	spec := model.Spec{
		Topology: model.Topology{Masters: 1, Replicas: 1,
			Sentinel: sim.SentinelConfig{Enabled: true, DownAfter: time.Second, DiscoveryDelay: 100 * time.Millisecond}},
		Options:  model.Options{TTL: time.Second, AcquireWait: 10 * time.Second, AcquireBound: 3 * time.Second},
		Workload: model.Workload{Duration: 6 * time.Second, Work: 100 * time.Millisecond, Think: 50 * time.Millisecond, Start: 10 * time.Millisecond},
		Faults:   []sim.Fault{{Kind: sim.FaultNodeCrash, Target: "r1", At: 500 * time.Millisecond}},
	}
	named := spec
	named.Design = DesignPrefix + "x"
	cfg := named.WithDefaults().CheckConfig()
	if ok, why := cfg.Judged(invariant.Available); !ok || !cfg.Failover || cfg.AvailableBound != 3*time.Second {
		t.Fatalf("a Sentinel topology with a bound: available judged %v (%s), failover %v, bound %v; want judged, failover, 3s", ok, why, cfg.Failover, cfg.AvailableBound)
	}
	for _, lib := range []struct {
		name   string
		setup  Setup
		broken bool
	}{{"redislock-sentinel", redislockSentinel, false}, {"redislock", newRedislock, false}, {"redislock-pinned", pinnedRedislock, true}} {
		r := runSpec(t, lib.name, spec, lib.setup)
		explain(t, lib.name, r)
		if got := broke(r, invariant.Available); got != lib.broken {
			t.Errorf("%s: available broken %v, want %v", lib.name, got, lib.broken)
		}
		acquiredAfter := false
		for _, e := range r.History {
			acquiredAfter = acquiredAfter || e.Kind == "acquired" && e.At > 1500*time.Millisecond
		}
		if acquiredAfter == lib.broken {
			t.Errorf("%s: acquired after the failover %v, want %v", lib.name, acquiredAfter, !lib.broken)
		}
	}
	noBound := named
	noBound.Options.AcquireBound = 0
	if ok, _ := noBound.WithDefaults().CheckConfig().Judged(invariant.Available); ok {
		t.Errorf("a Sentinel topology without a bound: available judged, want not judged (no verdict, never held)")
	}
}
