package fieldbugs

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// FirstAttempt is a single-node lock that extends itself (node-redlock's
// using()): it tries to extend when less than ttl/2 of its expiration is
// left, and gives up once the expiration has passed. Its buggy build
// counts the expiration from the first attempt of Lock, not from the
// attempt that succeeded. The caller trusts the lock until Unlock, as a
// using() routine that does not watch its abort signal does.
//
// Sources:
//   - https://github.com/mike-marcacci/node-redlock/issues/169, fixed by
//     https://github.com/mike-marcacci/node-redlock/pull/274 ("start time
//     in the code is the time when acquiring of lock is attempted for the
//     first time. Expiration time becomes too early, hence causing the
//     failure in extension of locks")
//   - https://github.com/mike-marcacci/node-redlock/issues/296 (after
//     retries the expiration is in the past and the extension fails with
//     "Cannot extend an already-expired lock")
//
// Mechanism: B waits longer than a TTL for A's lock. When B gets it, its
// expiration, counted from B's first attempt, is already over: the
// auto-extension gives up at once, B's key expires a TTL after B took it
// while B still works, and A takes the lock again: both work at once, and
// B's write lands under A's lock. No fault is needed, only contention.
type FirstAttempt struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	buggy bool

	mu         sync.Mutex
	value      string
	expiration time.Time
	stop, done chan struct{}
}

// NewFirstAttempt returns the lock on key with lease ttl.
func NewFirstAttempt(rdb *redis.Client, key string, ttl time.Duration, o Options) *FirstAttempt {
	return &FirstAttempt{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy}
}

// Lock takes the key, polling until ctx ends, and starts extending it.
func (l *FirstAttempt) Lock(ctx context.Context) error {
	value := rand.Text()
	first := time.Now()
	for {
		start := time.Now()
		ok, err := l.rdb.SetNX(ctx, l.key, value, l.ttl).Result()
		if err != nil {
			return err
		}
		if ok {
			if l.buggy {
				start = first
			}
			l.mu.Lock()
			l.value, l.expiration = value, start.Add(l.ttl)
			l.stop, l.done = make(chan struct{}), make(chan struct{})
			go l.autoExtend(value, l.stop, l.done)
			l.mu.Unlock()
			return nil
		}
		if err := wait(ctx, PollEvery); err != nil {
			return ErrNotObtained
		}
	}
}

// autoExtend extends the key while less than ttl/2 is left, until stop.
func (l *FirstAttempt) autoExtend(value string, stop, done chan struct{}) {
	defer close(done)
	for {
		l.mu.Lock()
		exp := l.expiration
		l.mu.Unlock()
		t := time.NewTimer(time.Until(exp) - l.ttl/2)
		select {
		case <-stop:
			t.Stop()
			return
		case <-t.C:
		}
		if !time.Now().Before(exp) {
			return // cannot extend an already-expired lock
		}
		start := time.Now()
		if err := extend(context.Background(), l.rdb, l.key, value, l.ttl); err != nil {
			return
		}
		l.mu.Lock()
		l.expiration = start.Add(l.ttl)
		l.mu.Unlock()
	}
}

// Unlock stops the extensions and deletes the key if it is still ours.
func (l *FirstAttempt) Unlock(ctx context.Context) error {
	l.mu.Lock()
	stop, done, value := l.stop, l.done, l.value
	l.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	return release(ctx, l.rdb, l.key, value)
}

// Value is the value of the current hold.
func (l *FirstAttempt) Value() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.value
}
