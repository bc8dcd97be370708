package libs

import (
	"context"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredislib "github.com/redis/go-redis/v9"

	. "locksim/realclient"
)

// The two libraries as a user would wire them, for this package's tests.

// redsyncLock is go-redsync/redsync on every master.
type redsyncLock struct{ m *redsync.Mutex }

func newRedsync(opts ...redsync.Option) Setup {
	return func(env Env) (Lock, error) {
		pools := make([]redis.Pool, len(env.Clients))
		for i, c := range env.Clients {
			pools[i] = goredis.NewPool(c)
		}
		all := append([]redsync.Option{redsync.WithExpiry(env.TTL)}, opts...)
		return redsyncLock{redsync.New(pools...).NewMutex(env.Key, all...)}, nil
	}
}

func (l redsyncLock) Lock(ctx context.Context) error { return l.m.LockContext(ctx) }
func (l redsyncLock) Unlock(ctx context.Context) error {
	_, err := l.m.UnlockContext(ctx)
	return err
}
func (l redsyncLock) Extend(ctx context.Context) error {
	_, err := l.m.ExtendContext(ctx)
	return err
}
func (l redsyncLock) Until() time.Time { return l.m.Until() }

// redisLock is bsm/redislock on the first master.
type redisLock struct {
	c   *redislock.Client
	key string
	ttl time.Duration
	l   *redislock.Lock
}

func newRedislock(env Env) (Lock, error) {
	return &redisLock{c: redislock.New(env.Clients[0]), key: env.Key, ttl: env.TTL}, nil
}

func (l *redisLock) Lock(ctx context.Context) error {
	lk, err := l.c.Obtain(ctx, l.key, l.ttl, &redislock.Options{
		RetryStrategy: redislock.LinearBackoff(20 * time.Millisecond)})
	l.l = lk
	return err
}
func (l *redisLock) Unlock(ctx context.Context) error { return l.l.Release(ctx) }
func (l *redisLock) Extend(ctx context.Context) error { return l.l.Refresh(ctx, l.ttl, nil) }

// newRedislockOn is bsm/redislock on the given go-redis client.
func newRedislockOn(c *goredislib.Client, env Env) (Lock, error) {
	return &redisLock{c: redislock.New(c), key: env.Key, ttl: env.TTL}, nil
}

// redislockSentinel is bsm/redislock on go-redis's own Sentinel client
// (redis.NewFailoverClient) for m1.
func redislockSentinel(env Env) (Lock, error) {
	return newRedislockOn(env.NewFailoverClient("m1", nil), env)
}
