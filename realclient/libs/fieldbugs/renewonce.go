package fieldbugs

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/redis/go-redis/v9"
)

// RenewOnce is a single-node lock with a Redisson-style watchdog (the
// caller trusts the lock until Unlock, as Redisson's callers do). Its
// buggy build stops renewing after one failed renewal: a renewal that
// timed out is never rescheduled.
//
// Source: https://github.com/redisson/redisson/issues/775 ("will not
// reschedule a renewal if the attempt of the update fails. The update can
// fail during a failover, in which case the lock is gone for good").
//
// Mechanism: one renewal of A's key is slow (here a short delay on A's
// link to the node; in the report, a failover) and times out. The buggy
// watchdog gives up; the key expires while A still works, B takes it, and
// A writes under B's lock. The fix tries again at the next interval, which
// the key, renewed a third of a TTL earlier, outlives.
type RenewOnce struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	buggy bool
	value string
	stop  chan struct{}
	done  chan struct{}
}

// NewRenewOnce returns the lock on key with lease ttl.
func NewRenewOnce(rdb *redis.Client, key string, ttl time.Duration, o Options) *RenewOnce {
	return &RenewOnce{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy}
}

// Lock takes the key, polling until ctx ends, and starts the watchdog.
func (l *RenewOnce) Lock(ctx context.Context) error {
	value := rand.Text()
	if err := obtain(ctx, l.rdb, l.key, value, l.ttl); err != nil {
		return err
	}
	l.value, l.stop, l.done = value, make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		renew(l.rdb, l.key, value, l.ttl, stop, func(error) bool { return !l.buggy })
	}(l.stop, l.done)
	return nil
}

// Unlock stops the watchdog and deletes the key if it is still ours.
func (l *RenewOnce) Unlock(ctx context.Context) error {
	if l.stop != nil {
		close(l.stop)
		<-l.done
		l.stop = nil
	}
	return release(ctx, l.rdb, l.key, l.value)
}

// Value is the value of the current hold.
func (l *RenewOnce) Value() string { return l.value }
