package realclient

import (
	"strings"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/sim"
)

// clusterSpec is two clients taking "lock" (slot 8718, served by r2, the
// primary of the second of three shards) on a cluster, while the slot
// moves to r1 from 500ms for 1s: the clients hold and extend the lock
// across the move.
func clusterSpec(atomic bool) model.Spec {
	s := keySpec("cluster-twin")
	s.Topology.Cluster = true
	s.Faults = []sim.Fault{{Kind: sim.FaultSlotMigrate, Target: "r1", Key: "lock", At: 500 * time.Millisecond, Dur: time.Second, Atomic: atomic}}
	return s
}

// go-redis's own cluster client (Env.NewClusterClient), unmodified, runs a
// lock on a simulated cluster while its key's slot is resharded: it reads
// CLUSTER SLOTS, follows the ASK redirects of the migration (sending
// ASKING) and the MOVED ones after it, and the lock holds. Two runs of a
// seed give one history.
func TestGoRedisClusterClientFollowsReshardingRedirects(t *testing.T) {
	setup := func(env Env) (Lock, error) {
		c := env.NewClusterClient(nil)
		return &twinLock{c: c, key: env.Key, name: env.Client, ttl: env.TTL}, nil
	}
	var hashes []string
	for i := 0; i < 2; i++ {
		r, err := Run(t, locksim.Case{Spec: clusterSpec(false), Seed: 7}, setup)
		if err != nil {
			t.Fatal(err)
		}
		if r.Err != nil || len(r.Violations) > 0 {
			t.Fatalf("run error %v, violations %v", r.Err, r.Violations)
		}
		hashes = append(hashes, r.History.Hash())
		if i > 0 {
			continue
		}
		var slots, ask, asking, moved, movedFollowed bool
		lastMoved := map[string]bool{}
		for _, e := range r.History {
			if e.Kind != sim.KindExec {
				continue
			}
			cmd := strings.ToUpper(strings.Join(e.Args, " "))
			switch {
			case strings.HasPrefix(cmd, "CLUSTER SLOTS"):
				slots = true
			case cmd == "ASKING" && e.Actor == "r1":
				asking = true
			case strings.Contains(e.Reply, "ASK 8718 r1:6379"):
				ask = true
			case strings.Contains(e.Reply, "MOVED 8718 r1:6379"):
				moved, lastMoved[e.Peer] = true, true
			case lastMoved[e.Peer] && e.Actor == "r1":
				movedFollowed = true
			}
		}
		if !slots || !ask || !asking || !moved || !movedFollowed {
			t.Errorf("go-redis read CLUSTER SLOTS %v, got ASK %v and sent ASKING %v, got MOVED %v and followed it to r1 %v; want all\n%s",
				slots, ask, asking, moved, movedFollowed, r.History.Text())
		}
	}
	if hashes[0] != hashes[1] {
		t.Errorf("two runs of seed 7: hashes %v, want one", hashes)
	}
}

// The same under Redis 8.4's atomic slot migration: go-redis's writes to
// the paused slot (A's extension, B's SET NX) wait for the hand-over, get
// MOVED and follow it. The 1s pause outlasts the 1s TTL, so the key
// expires on the old owner while A's extension waits (nothing is left to
// move): A's extension then fails on the new owner and B takes the lock
// there; A stopped at its validity, so nothing is violated.
func TestGoRedisClusterClientAcrossAtomicMigration(t *testing.T) {
	setup := func(env Env) (Lock, error) {
		return &twinLock{c: env.NewClusterClient(nil), key: env.Key, name: env.Client, ttl: env.TTL}, nil
	}
	s := clusterSpec(true)
	s.Topology.Server = "redis-8.4"
	r, err := Run(t, locksim.Case{Spec: s, Seed: 7}, setup)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Violations) > 0 {
		t.Fatalf("run error %v, violations %v", r.Err, r.Violations)
	}
	var waited, followed bool
	lastMoved := map[string]bool{}
	for _, e := range r.History {
		switch {
		case e.Kind == sim.KindSlotMoved && !strings.Contains(e.Note, " 0 writes waited"):
			waited = true
		case e.Kind == sim.KindExec && strings.Contains(e.Reply, "MOVED 8718 r1:6379"):
			lastMoved[e.Peer] = true
		case e.Kind == sim.KindExec && lastMoved[e.Peer] && e.Actor == "r1":
			followed = true
		}
	}
	if !waited || !followed {
		t.Errorf("a write waited for the hand-over %v, go-redis followed the MOVED to r1 %v; want both\n%s", waited, followed, r.History.Text())
	}
}
