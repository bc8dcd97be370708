package fieldbugs

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// ExtendInt is a single-node lock with a validity (Until) and Extend,
// whose buggy build reads the extend script's reply as go-redsync/redsync
// did before its fixes: the reply, an interface{} holding int64(0) when
// the key is no longer ours, is compared with the untyped constant 0,
// which Go turns into int(0), so the two are never equal.
//
// Sources:
//   - https://github.com/go-redsync/redsync/pull/38 ("the functions return
//     true for expired keys ... interface{int64(0)} != 0")
//   - https://github.com/go-redsync/redsync/pull/61 ("comparing with 0 was
//     not working correctly anyway because the result was int64(0) and the
//     compared value was int(0)")
//
// Mechanism: A's lease runs out during a pause and B takes the key. A's
// next Extend runs the script, which finds B's value and returns 0; the
// buggy comparison reports success and moves Until a TTL ahead, so a
// caller that checks Until before writing writes while B holds the lock.
// The fix reads the reply as an int64.
type ExtendInt struct {
	leased
	buggy bool
}

// NewExtendInt returns the lock on key with lease ttl.
func NewExtendInt(rdb *redis.Client, key string, ttl time.Duration, o Options) *ExtendInt {
	return &ExtendInt{leased: leased{rdb: rdb, key: key, ttl: ttl}, buggy: o.Buggy}
}

// Extend moves the lease a TTL ahead if the key is still ours.
func (l *ExtendInt) Extend(ctx context.Context) error {
	start := time.Now()
	res, err := extendScript.Run(ctx, l.rdb, []string{l.key}, l.Value(), l.ttl.Milliseconds()).Result()
	if err != nil {
		return err
	}
	if l.buggy {
		if res == 0 { // interface{}(int64(0)) == interface{}(int(0)) is false
			return ErrNotHeld
		}
	} else if n, ok := res.(int64); !ok || n == 0 {
		return ErrNotHeld
	}
	l.setUntil(start.Add(l.ttl))
	return nil
}
