package fieldbugs

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// OrphanRenew is a single-node lock with a Redisson-style watchdog whose
// acquisition completes asynchronously: the SET runs on its own goroutine,
// which arms the watchdog when it succeeds, while Lock waits for it or
// for its deadline. Its buggy build arms the watchdog even when Lock has
// already given up (its cancel found no watchdog to stop), so a key
// nobody holds is renewed for as long as the process lives.
//
// Sources:
//   - https://github.com/redisson/redisson/issues/7272 ("Watchdog renewal
//     can outlive unlock(): cancelLockRenewal races the acquire's async
//     scheduleExpirationRenewal"; "the cancel can run before the
//     schedule"), with the fix proposed in
//     https://github.com/redisson/redisson/pull/7277
//   - https://github.com/redisson/redisson/issues/1966 (a timeout between
//     attempts leaves a renewal scheduled: "a lock renewed even after
//     unlock")
//
// Mechanism: the reply to A's SET comes late (a delay on the node's link
// to A), after Lock's deadline: Lock returns an error and cancels a
// watchdog that does not exist yet. Then the reply arrives, the goroutine
// arms the watchdog, and A's key is renewed forever: nobody holds the
// lock, nobody can take it, A's own later Locks included. The fix
// remembers that Lock gave up and deletes the key instead of renewing it.
type OrphanRenew struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	buggy bool

	mu     sync.Mutex
	value  string
	cancel context.CancelFunc // the armed watchdog, nil if none
	done   chan struct{}
}

// setAttempt is one asynchronous SET NX.
type setAttempt struct {
	value     string
	abandoned bool // Lock gave up on it (under OrphanRenew.mu)
	result    chan error
}

// errTaken says the attempt found the key taken.
var errTaken = ErrNotObtained

// NewOrphanRenew returns the lock on key with lease ttl.
func NewOrphanRenew(rdb *redis.Client, key string, ttl time.Duration, o Options) *OrphanRenew {
	return &OrphanRenew{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy}
}

// Lock takes the key, polling until ctx ends.
func (l *OrphanRenew) Lock(ctx context.Context) error {
	value := rand.Text() // one value for every attempt of this Lock
	for {
		a := &setAttempt{value: value, result: make(chan error, 1)}
		go l.send(a)
		select {
		case err := <-a.result:
			if err == nil {
				return nil
			}
			if err != errTaken {
				return err
			}
		case <-ctx.Done():
			l.mu.Lock()
			a.abandoned = true
			l.mu.Unlock()
			l.stopWatchdog() // finds none when the SET has not completed yet
			return ErrNotObtained
		}
		if err := wait(ctx, PollEvery); err != nil {
			return ErrNotObtained
		}
	}
}

// send runs one SET NX and, when it took the key, arms the watchdog (or,
// in the fixed build, deletes the key if Lock gave up meanwhile).
func (l *OrphanRenew) send(a *setAttempt) {
	ok, err := l.rdb.SetNX(context.Background(), l.key, a.value, l.ttl).Result()
	switch {
	case err != nil:
		a.result <- err
		return
	case !ok:
		a.result <- errTaken
		return
	}
	l.mu.Lock()
	gaveUp := a.abandoned && !l.buggy
	if !gaveUp {
		l.value = a.value
		wctx, cancel := context.WithCancel(context.Background())
		l.cancel, l.done = cancel, make(chan struct{})
		go func(done chan struct{}) {
			defer close(done)
			renew(l.rdb, l.key, a.value, l.ttl, wctx.Done(), func(error) bool { return true })
		}(l.done)
	}
	l.mu.Unlock()
	if gaveUp {
		_ = release(context.Background(), l.rdb, l.key, a.value)
	}
	a.result <- nil
}

// stopWatchdog stops the armed watchdog, if any, and waits for it.
func (l *OrphanRenew) stopWatchdog() {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.cancel = nil
	l.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// Unlock stops the watchdog and deletes the key if it is still ours.
func (l *OrphanRenew) Unlock(ctx context.Context) error {
	l.stopWatchdog()
	return release(ctx, l.rdb, l.key, l.Value())
}

// Value is the value of the current hold.
func (l *OrphanRenew) Value() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.value
}
