package fieldbugs

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// RenewDrift is a single-node lock that reports until when its hold is
// valid (Until) and extends it on request (Extend: PEXPIRE ttl if the key
// is still ours). Its buggy build moves the deadline it reports a TTL past
// the previous deadline on each extension, instead of a TTL past the
// extension's start: the key's expiry, which the node counts from its own
// now, falls behind the deadline the holder is told.
//
// Sources: https://github.com/redis/rueidis/issues/923 (rueidislock: long
// held locks lost under CPU load; the fix,
// https://github.com/redis/rueidis/pull/924, keeps the keys' expiry ahead
// of the current time by the validity), and
// https://github.com/mike-marcacci/node-redlock/pull/273 (node-redlock's
// expiration computed from the wrong start, so it was not the key's).
//
// Mechanism: A's watchdog extends every third of a TTL and each extension
// pushes Until a whole TTL further, so Until runs ahead of the key. A
// pause longer than what the key has left stops the extensions; the key
// expires while Until still says the hold is valid, and A, asking Until
// before its write, writes after losing the lock. The fix reports the
// extension's start plus the TTL, which the key's expiry never precedes.
type RenewDrift struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	buggy bool
	value string
	until time.Time
}

// NewRenewDrift returns the lock on key with lease ttl.
func NewRenewDrift(rdb *redis.Client, key string, ttl time.Duration, o Options) *RenewDrift {
	return &RenewDrift{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy}
}

// Lock takes the key, polling every PollEvery until ctx ends; the hold is
// valid for a TTL from the request that took it.
func (l *RenewDrift) Lock(ctx context.Context) error {
	value := rand.Text()
	for {
		start := time.Now()
		ok, err := l.rdb.SetNX(ctx, l.key, value, l.ttl).Result()
		if err != nil {
			return err
		}
		if ok {
			l.value, l.until = value, start.Add(l.ttl)
			return nil
		}
		if err := wait(ctx, PollEvery); err != nil {
			return errors.Wrap(ErrNotObtained, err.Error())
		}
	}
}

// Extend moves the key's expiry a TTL ahead if it is still ours, and the
// reported deadline with it.
func (l *RenewDrift) Extend(ctx context.Context) error {
	start := time.Now()
	if err := extend(ctx, l.rdb, l.key, l.value, l.ttl); err != nil {
		return err
	}
	if l.buggy {
		l.until = l.until.Add(l.ttl) // the bug: from the previous deadline
	} else {
		l.until = start.Add(l.ttl)
	}
	return nil
}

// Until is when the current hold stops being valid.
func (l *RenewDrift) Until() time.Time { return l.until }

// Unlock deletes the key if it still holds this holder's value.
func (l *RenewDrift) Unlock(ctx context.Context) error {
	return release(ctx, l.rdb, l.key, l.value)
}

// Value is the value of the current hold.
func (l *RenewDrift) Value() string { return l.value }
