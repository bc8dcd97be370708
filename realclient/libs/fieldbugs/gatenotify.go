package fieldbugs

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// GateNotify is a single-node lock with a process-local gate, as
// rueidislock keeps one per lock name: a Lock that finds the key taken
// counts itself a waiter on the gate and waits for a notification or its
// next poll, and Unlock, after deleting the key, notifies one waiter so
// it need not wait for its poll. Its buggy build notifies by a blocking
// send: once a waiter has given up (its context ended) and is still
// counted, nobody receives, and Unlock blocks for good: the process never
// locks again and its program never returns.
//
// Sources: https://github.com/redis/rueidis/issues/457 ("occurs deadlock
// when using rueidislock": a goroutine stuck in the locker's mutex),
// fixed by https://github.com/redis/rueidis/pull/458 ("Notify one peer if
// any without blocking").
//
// Mechanism: B waits while A holds the key for longer than B's Lock may
// wait; B's Lock gives up, still counted as a waiter. B later takes the
// key, works, deletes it, and notifies its gate with a blocking send that
// no goroutine will ever receive: B is stuck in Unlock. The fix notifies
// only a waiter that is there to receive.
type GateNotify struct {
	rdb     *redis.Client
	key     string
	ttl     time.Duration
	buggy   bool
	value   string
	waiters int           // counted on entry, not uncounted by a Lock that gave up
	notify  chan struct{} // unbuffered: a notification goes only to a waiter receiving it
}

// NewGateNotify returns the lock on key with lease ttl.
func NewGateNotify(rdb *redis.Client, key string, ttl time.Duration, o Options) *GateNotify {
	return &GateNotify{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy, notify: make(chan struct{})}
}

// Lock takes the key, waiting for a notification or PollEvery between
// tries, until ctx ends.
func (l *GateNotify) Lock(ctx context.Context) error {
	value := rand.Text()
	counted := false
	for {
		ok, err := l.rdb.SetNX(ctx, l.key, value, l.ttl).Result()
		if err != nil {
			return err
		}
		if ok {
			if counted {
				l.waiters--
			}
			l.value = value
			return nil
		}
		if !counted {
			l.waiters++
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

// Unlock deletes the key if it still holds this holder's value, then
// notifies one waiter of the process.
func (l *GateNotify) Unlock(ctx context.Context) error {
	err := release(ctx, l.rdb, l.key, l.value)
	if l.waiters > 0 {
		if l.buggy {
			l.notify <- struct{}{} // the bug: blocks while nobody receives
		} else {
			select {
			case l.notify <- struct{}{}:
			default:
			}
		}
	}
	return err
}

// Value is the value of the current hold.
func (l *GateNotify) Value() string { return l.value }
