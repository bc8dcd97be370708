package fieldbugs

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// SetNXExpire is a single-node lock whose buggy build takes the key with
// SETNX and gives it its TTL with a second command, EXPIRE.
//
// Sources:
//   - https://github.com/lukas-krecan/ShedLock/issues/65 ("if setNX
//     succeeds and something goes wrong with pExpire, the key will exist
//     forever")
//   - https://github.com/laravel/horizon/issues/1738 (non-atomic SETNX +
//     EXPIRE, "potential permanent deadlock"), fixed in
//     https://github.com/laravel/horizon/pull/1747
//   - https://github.com/getsentry/sentry/pull/1509 ("using setnx followed
//     by expire will leave a stale lock if the set succeeds but the expire
//     fails")
//
// Mechanism: anything that stops the client between the two commands
// leaves a key without a TTL: a crash, or, as here, a SETNX whose reply
// comes later than Lock's deadline, so that Lock returns an error without
// ever sending the EXPIRE. Nobody deletes that key: every later Lock, the
// caller's own included, waits in vain. The fix is one SET NX PX.
type SetNXExpire struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	buggy bool
	value string
}

// NewSetNXExpire returns the lock on key with lease ttl.
func NewSetNXExpire(rdb *redis.Client, key string, ttl time.Duration, o Options) *SetNXExpire {
	return &SetNXExpire{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy}
}

// Lock takes the key, polling until ctx ends.
func (l *SetNXExpire) Lock(ctx context.Context) error {
	l.value = rand.Text()
	if !l.buggy {
		return obtain(ctx, l.rdb, l.key, l.value, l.ttl)
	}
	for {
		ok, err := l.rdb.SetNX(ctx, l.key, l.value, 0).Result() // no TTL yet
		if err != nil {
			return err
		}
		if ok {
			return l.rdb.Expire(ctx, l.key, l.ttl).Err()
		}
		if err := wait(ctx, PollEvery); err != nil {
			return errors.Wrap(ErrNotObtained, err.Error())
		}
	}
}

// Unlock deletes the key if it still holds this hold's value.
func (l *SetNXExpire) Unlock(ctx context.Context) error {
	return release(ctx, l.rdb, l.key, l.value)
}

// Value is the value of the current hold.
func (l *SetNXExpire) Value() string { return l.value }
