package fieldbugs

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// RenewFlag is a single-node lock with a Redisson-style watchdog kept in a
// process-local entry per lock: Lock starts a watchdog only when the
// entry is empty, and the watchdog empties it when it is stopped. Its
// buggy build leaves the entry in place when the watchdog dies of a
// renewal error, so no later hold in the process is ever renewed.
//
// Sources:
//   - https://github.com/redisson/redisson/issues/2515 ("If an error
//     occurred in the expiration renewal (ex: connection to redis timeout),
//     it stops working for new locks"), fixed in
//     https://github.com/redisson/redisson/pull/2518
//   - https://github.com/redisson/redisson/issues/3194 (the watchdog no
//     longer works after a reconnect)
//
// Mechanism: late in A's first hold one renewal times out (a short delay
// on A's link); the key, renewed earlier, outlives that hold, so nothing
// breaks yet. But the dead watchdog's entry stays: A's second hold starts
// no watchdog, its key expires while A works, B takes it, and A writes
// under B's lock. The fix empties the entry whenever the watchdog ends
// (and, as for #775, tries a failed renewal again).
type RenewFlag struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	buggy bool

	mu    sync.Mutex
	value string
	entry *watchdogEntry // the process's watchdog for key, nil if none
}

// watchdogEntry is one watchdog; cancel stops it, done closes when it ended.
type watchdogEntry struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// NewRenewFlag returns the lock on key with lease ttl.
func NewRenewFlag(rdb *redis.Client, key string, ttl time.Duration, o Options) *RenewFlag {
	return &RenewFlag{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy}
}

// Lock takes the key, polling until ctx ends, and starts a watchdog unless
// the entry says one runs.
func (l *RenewFlag) Lock(ctx context.Context) error {
	value := rand.Text()
	if err := obtain(ctx, l.rdb, l.key, value, l.ttl); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.value = value
	if l.entry == nil {
		wctx, cancel := context.WithCancel(context.Background())
		e := &watchdogEntry{cancel: cancel, done: make(chan struct{})}
		l.entry = e
		go l.watch(wctx, e, value)
	}
	return nil
}

// watch renews until stopped; it empties the entry when stopped, and, in
// the fixed build, whenever it ends.
func (l *RenewFlag) watch(ctx context.Context, e *watchdogEntry, value string) {
	defer close(e.done)
	renew(l.rdb, l.key, value, l.ttl, ctx.Done(), func(error) bool { return !l.buggy })
	if l.buggy && ctx.Err() == nil {
		return // died of an error: the entry stays
	}
	l.mu.Lock()
	if l.entry == e {
		l.entry = nil
	}
	l.mu.Unlock()
}

// Unlock stops the watchdog and deletes the key if it is still ours.
func (l *RenewFlag) Unlock(ctx context.Context) error {
	l.mu.Lock()
	e, value := l.entry, l.value
	l.mu.Unlock()
	if e != nil {
		e.cancel()
		<-e.done
	}
	return release(ctx, l.rdb, l.key, value)
}

// Value is the value of the current hold.
func (l *RenewFlag) Value() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.value
}
