package libs

import (
	"strings"
	"testing"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"locksim"
	"locksim/model"
	. "locksim/realclient"
	"locksim/sim"
)

// clusterReshardSpec: two clients take "lock" (slot 8718, served by r3,
// the primary of the second of three shards) on a cluster while the slot
// moves to r1 from 500ms for 1s, the legacy way (ASK, then MOVED).
func clusterReshardSpec(name string) model.Spec {
	return model.Spec{Design: DesignPrefix + name, Options: model.Options{Extend: true},
		Workload: model.Workload{Cycles: 1, Work: 2500 * time.Millisecond, Start: 10 * time.Millisecond},
		Topology: model.Topology{Cluster: true},
		Faults:   []sim.Fault{{Kind: sim.FaultSlotMigrate, Target: "r1", Key: "lock", At: 500 * time.Millisecond, Dur: time.Second}}}
}

// redsync (one goredis pool on go-redis's ClusterClient) and redislock
// (on the ClusterClient as its redis.Scripter), both unmodified, hold the
// lock on a cluster while its slot is resharded: the cluster client
// follows the ASK and MOVED redirects under them.
func TestLibrariesOnAClusterClientAcrossResharding(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup Setup
	}{
		{"redsync-cluster", func(env Env) (Lock, error) {
			c := env.NewClusterClient(nil)
			return redsyncLock{redsync.New(goredis.NewPool(c)).NewMutex(env.Key, redsync.WithExpiry(env.TTL))}, nil
		}},
		{"redislock-cluster", func(env Env) (Lock, error) {
			return &redisLock{c: redislock.New(env.NewClusterClient(nil)), key: env.Key, ttl: env.TTL}, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Run(t, locksim.Case{Spec: clusterReshardSpec(tc.name), Seed: 3}, tc.setup)
			if err != nil {
				t.Fatal(err)
			}
			if r.Err != nil || len(r.Violations) > 0 {
				t.Fatalf("run error %v, violations %v", r.Err, r.Violations)
			}
			var redirected, acquired int
			for _, e := range r.History {
				if e.Kind == sim.KindExec && (strings.HasPrefix(e.Reply, "(error) ASK ") || strings.HasPrefix(e.Reply, "(error) MOVED ")) {
					redirected++
				}
				if e.Kind == "acquired" {
					acquired++
				}
			}
			if redirected == 0 || acquired != 2 {
				t.Errorf("%d redirects, %d acquisitions; want the library's commands redirected and both clients to acquire\n%s", redirected, acquired, r.History.Text())
			}
		})
	}
}
