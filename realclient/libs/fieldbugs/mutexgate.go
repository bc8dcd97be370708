package fieldbugs

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// MutexGate is GateNotify with a renewal goroutine and the process-local
// state behind a sync.Mutex, as rueidislock's locker keeps its gates: the
// renewal takes the mutex each time it extends the key, and Unlock holds
// it while it deletes the key and notifies a waiter. Its buggy build
// notifies by a blocking send while holding the mutex: once a waiter has
// given up and is still counted, Unlock blocks for good with the mutex
// held, and the renewal goroutine blocks on the mutex. A goroutine waiting
// on a sync.Mutex is not durably blocked for testing/synctest, so the
// run's virtual time stands still: the harness's watchdog gives it up as
// stuck (realclient.StuckAfter).
//
// Sources: https://github.com/redis/rueidis/issues/457 ("m.mu.Lock()
// occurs deadlock": rueidislock's locker stuck on its mutex), fixed by
// https://github.com/redis/rueidis/pull/458 (a notification sent without
// blocking, so the mutex is never held across a blocking send).
type MutexGate struct {
	rdb     *redis.Client
	key     string
	ttl     time.Duration
	buggy   bool
	mu      sync.Mutex
	value   string
	waiters int
	notify  chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// NewMutexGate returns the lock on key with lease ttl.
func NewMutexGate(rdb *redis.Client, key string, ttl time.Duration, o Options) *MutexGate {
	return &MutexGate{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy, notify: make(chan struct{})}
}

// Lock takes the key, waiting for a notification or PollEvery between
// tries until ctx ends, and starts the renewal.
func (l *MutexGate) Lock(ctx context.Context) error {
	value := rand.Text()
	counted := false
	for {
		ok, err := l.rdb.SetNX(ctx, l.key, value, l.ttl).Result()
		if err != nil {
			return err
		}
		if ok {
			l.mu.Lock()
			if counted {
				l.waiters--
			}
			l.value, l.stop, l.done = value, make(chan struct{}), make(chan struct{})
			go l.renew(value, l.stop, l.done)
			l.mu.Unlock()
			return nil
		}
		if !counted {
			l.mu.Lock()
			l.waiters++
			l.mu.Unlock()
			counted = true
		}
		t := time.NewTimer(PollEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Wrap(ErrNotObtained, ctx.Err().Error()) // still counted
		case <-l.notify:
		case <-t.C:
		}
		t.Stop()
	}
}

// renew extends the key every ttl/3 under the mutex until stop.
func (l *MutexGate) renew(value string, stop, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(l.ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		l.mu.Lock()
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/4)
		err := extend(ctx, l.rdb, l.key, value, l.ttl)
		cancel()
		l.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// Unlock deletes the key if it still holds this holder's value and
// notifies one waiter, under the mutex, then stops the renewal.
func (l *MutexGate) Unlock(ctx context.Context) error {
	l.mu.Lock()
	err := release(ctx, l.rdb, l.key, l.value)
	if l.waiters > 0 {
		if l.buggy {
			l.notify <- struct{}{} // the bug: blocks with the mutex held
		} else {
			select {
			case l.notify <- struct{}{}:
			default:
			}
		}
	}
	stop, done := l.stop, l.done
	l.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	return err
}

// Value is the value of the current hold.
func (l *MutexGate) Value() string { return l.value }
