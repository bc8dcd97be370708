package fieldbugs

import (
	"context"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// IsAcquired is a single-node lock in the style of RedLock.net: a
// background timer extends the key every ttl/2, and the caller asks
// IsAcquired before it acts. Its buggy build keeps IsAcquired a flag that
// only Unlock clears: a timer that is starved or whose extension finds
// another holder's key changes nothing, and the timer keeps trying.
//
// Sources:
//   - https://github.com/samcook/RedLock.net/issues/48 ("When the auto
//     extend timer gets to starvation ... another process locks the same
//     key, then the extend gets to conflict but it still tries to acquire
//     the lock on the next interval ... the client will never know")
//   - https://github.com/samcook/RedLock.net/issues/93 (two instances
//     process at once while the first "still think that isAcquired ==
//     true")
//
// Mechanism: A's extensions are held up on the network (here a delay on
// A's link to the node, the simulation's stand-in for a starved timer)
// past the lease; B takes the expired key. A checks IsAcquired right
// before its write, gets true, and writes while B holds the lock. The fix
// bounds IsAcquired by the lease the last successful extension (or the
// acquisition) gave, and clears it when an extension finds another value.
type IsAcquired struct {
	lease leased
	buggy bool

	acquired bool // under lease.mu
	cancel   context.CancelFunc
	done     chan struct{}
}

// NewIsAcquired returns the lock on key with lease ttl.
func NewIsAcquired(rdb *redis.Client, key string, ttl time.Duration, o Options) *IsAcquired {
	return &IsAcquired{lease: leased{rdb: rdb, key: key, ttl: ttl}, buggy: o.Buggy}
}

// Lock takes the key, polling until ctx ends, and starts the timer.
func (l *IsAcquired) Lock(ctx context.Context) error {
	if err := l.lease.Lock(ctx); err != nil {
		return err
	}
	tctx, cancel := context.WithCancel(context.Background())
	l.lease.mu.Lock()
	l.acquired = true
	l.lease.mu.Unlock()
	l.cancel, l.done = cancel, make(chan struct{})
	go l.extendTimer(tctx, l.lease.Value(), l.done)
	return nil
}

// extendTimer extends the key every ttl/2 until ctx ends.
func (l *IsAcquired) extendTimer(ctx context.Context, value string, done chan struct{}) {
	defer close(done)
	ttl := l.lease.ttl
	for {
		if wait(ctx, ttl/2) != nil {
			return
		}
		start := time.Now()
		err := extend(ctx, l.lease.rdb, l.lease.key, value, ttl)
		switch {
		case err == nil:
			l.lease.setUntil(start.Add(ttl))
		case errors.Is(err, redis.ErrClosed), ctx.Err() != nil:
			return
		case errors.Is(err, ErrNotHeld) && !l.buggy:
			l.lease.mu.Lock()
			l.acquired = false
			l.lease.mu.Unlock()
			return
		}
		// Otherwise (a network error; in the buggy build a conflict too)
		// try again at the next interval.
	}
}

// IsAcquired reports whether the caller still holds the lock.
func (l *IsAcquired) IsAcquired() bool {
	l.lease.mu.Lock()
	defer l.lease.mu.Unlock()
	if l.buggy {
		return l.acquired
	}
	return l.acquired && time.Now().Before(l.lease.until)
}

// Until is the end of the lease the acquisition or the last successful
// extension gave (what the library knows; callers ask IsAcquired).
func (l *IsAcquired) Until() time.Time { return l.lease.Until() }

// Unlock stops the timer and deletes the key if it is still ours.
func (l *IsAcquired) Unlock(ctx context.Context) error {
	if l.cancel != nil {
		l.cancel()
		<-l.done
	}
	l.lease.mu.Lock()
	l.acquired = false
	l.lease.mu.Unlock()
	return l.lease.Unlock(ctx)
}

// Value is the value of the current hold.
func (l *IsAcquired) Value() string { return l.lease.Value() }
