package libs

import (
	"context"
	"errors"
	"testing"
	"time"

	goredislib "github.com/redis/go-redis/v9"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	. "locksim/realclient"
)

// fencedLock is a user's own lock on go-redis: SET NX PX and INCR of a
// token counter in one script, compare-and-delete to release.
type fencedLock struct {
	c          *goredislib.Client
	key, value string
	ttl        time.Duration
	token      int64
	n          int
}

var (
	fencedAcquire = goredislib.NewScript(`if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) end
return 0`)
	fencedRelease = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)
	errTaken = errors.New("fenced: taken")
)

func newFenced(env Env) (Lock, error) {
	return &fencedLock{c: env.Clients[0], key: env.Key, ttl: env.TTL, value: env.Client}, nil
}

func (l *fencedLock) Lock(ctx context.Context) error {
	l.n++
	v := l.value + ":" + time.Now().Format("150405.000000") // unique per hold, from the bubble's clock
	for {
		tok, err := fencedAcquire.Run(ctx, l.c, []string{l.key, l.key + ":token"}, v, l.ttl.Milliseconds()).Int64()
		if err == nil && tok > 0 {
			l.token, l.value = tok, v
			return nil
		}
		select {
		case <-ctx.Done():
			return errTaken
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (l *fencedLock) Unlock(ctx context.Context) error {
	return fencedRelease.Run(ctx, l.c, []string{l.key}, l.value).Err()
}

func (l *fencedLock) Token() int64 { return l.token }

// A user's own fenced lock on go-redis under gc-pause: mutual exclusion
// breaks, but the resource rejects A's stale token, so no stale write is
// accepted; without a token the strict resource refuses to run.
func TestOwnFencedLockKeepsTheResourceSafe(t *testing.T) {
	r, err := RunScenario(t, "gc-pause", newFenced, WithName("own-fenced"), WithFencing(model.FenceStrict))
	if err != nil {
		t.Fatal(err)
	}
	explain(t, "own-fenced", r)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if !broke(r, invariant.MutualExclusion) || broke(r, invariant.StaleWrite) {
		t.Errorf("own fenced lock under gc-pause: broken %v, want mutual-exclusion but not stale-write", invariant.Broken(r.Violations))
	}
	rejected := false
	for _, e := range r.History {
		if e.Kind == history.KindResWrite && e.Actor == model.ResourceName && e.Reply == "(integer) 0" && e.Peer == "A" {
			rejected = true
		}
	}
	if !rejected {
		t.Errorf("the resource never rejected A's stale write")
	}
	r, err = RunScenario(t, "gc-pause", newRedislock, WithName("redislock"), WithFencing(model.FenceStrict))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err == nil {
		t.Errorf("redislock (no token) under strict fencing ran; want an error saying it gives no token")
	}
}
