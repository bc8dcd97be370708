package fieldbugs

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// SleepThrough is a single-node lock whose Lock polls the key with a
// fixed delay between tries. Its buggy build sleeps that delay whatever
// the caller's context says: it looks at the context only before each
// sleep, so a Lock given a deadline returns up to a whole delay after it.
//
// Sources: https://github.com/cenkalti/backoff/issues/53 ("WithContext
// should honor context deadlines": a retry loop that slept past the
// deadline it was given, fixed by
// https://github.com/cenkalti/backoff/pull/64), and
// https://github.com/hashicorp/go-retryablehttp/pull/284 (a backoff timer
// started although it ends after the context's deadline).
//
// Mechanism: A holds the lock for longer than B's Lock may wait. B tries,
// finds the key taken, sees its context still alive and sleeps 500ms;
// the deadline passes during the sleep, and B learns it only when it
// wakes, a good part of a delay late. The fix waits for the delay or the
// context, whichever ends first.
type SleepThrough struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	buggy bool
	value string
}

// RetryDelay is how long SleepThrough's Lock waits between tries.
const RetryDelay = 500 * time.Millisecond

// NewSleepThrough returns the lock on key with lease ttl.
func NewSleepThrough(rdb *redis.Client, key string, ttl time.Duration, o Options) *SleepThrough {
	return &SleepThrough{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy}
}

// Lock takes the key, trying every RetryDelay until ctx ends.
func (l *SleepThrough) Lock(ctx context.Context) error {
	value := rand.Text()
	for {
		ok, err := l.rdb.SetNX(ctx, l.key, value, l.ttl).Result()
		if err != nil {
			return err
		}
		if ok {
			l.value = value
			return nil
		}
		if l.buggy {
			if err := ctx.Err(); err != nil {
				return errors.Wrap(ErrNotObtained, err.Error())
			}
			time.Sleep(RetryDelay) // the bug: deaf to ctx while it sleeps
			continue
		}
		if err := wait(ctx, RetryDelay); err != nil {
			return errors.Wrap(ErrNotObtained, err.Error())
		}
	}
}

// Unlock deletes the key if it still holds this holder's value.
func (l *SleepThrough) Unlock(ctx context.Context) error {
	return release(ctx, l.rdb, l.key, l.value)
}

// Value is the value of the current hold.
func (l *SleepThrough) Value() string { return l.value }
