package fieldbugs

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// StickyLocal is a lock in the style of Spring Integration's
// RedisLockRegistry: a process-local lock first (so the process's own
// goroutines queue locally), then the key in Redis. Its buggy build
// returns from Unlock when it finds the key expired before it has let the
// local lock go.
//
// Sources:
//   - https://github.com/spring-projects/spring-integration/issues/1888
//     ("the unlock method throws an IllegalStateException, however it does
//     not unlock the local reentrant lock ... ThreadB ... can never
//     succeed"), fixed in
//     https://github.com/spring-projects/spring-integration/pull/1890
//   - https://github.com/spring-projects/spring-integration/issues/2660
//     (the same class of hang after a failed release)
//
// Mechanism: A's key expires before A releases (a pause after its
// section). Unlock finds the key gone and reports it, but the local lock
// stays taken: every later Lock in A's process waits for it until its
// deadline, while the lock is free in Redis. The process never locks
// again. The fix lets the local lock go whatever Redis said.
type StickyLocal struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	buggy bool
	local chan struct{} // one slot: the process-local lock
	value string
}

// NewStickyLocal returns the lock on key with lease ttl.
func NewStickyLocal(rdb *redis.Client, key string, ttl time.Duration, o Options) *StickyLocal {
	return &StickyLocal{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy, local: make(chan struct{}, 1)}
}

// Lock takes the local lock, then the key, until ctx ends.
func (l *StickyLocal) Lock(ctx context.Context) error {
	select {
	case l.local <- struct{}{}:
	case <-ctx.Done():
		return errors.Wrap(ErrNotObtained, "waiting for the process-local lock")
	}
	l.value = rand.Text()
	if err := obtain(ctx, l.rdb, l.key, l.value, l.ttl); err != nil {
		<-l.local
		return err
	}
	return nil
}

// Unlock deletes the key if it is still ours and lets the local lock go.
func (l *StickyLocal) Unlock(ctx context.Context) error {
	if !l.buggy {
		defer func() { <-l.local }()
	}
	if err := release(ctx, l.rdb, l.key, l.value); err != nil {
		return errors.Wrap(err, "lock was released in the store due to expiration")
	}
	if l.buggy {
		<-l.local
	}
	return nil
}

// Value is the value of the current hold.
func (l *StickyLocal) Value() string { return l.value }
