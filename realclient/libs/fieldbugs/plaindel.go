package fieldbugs

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/redis/go-redis/v9"
)

// PlainDel is a single-node lock whose buggy build releases with a plain
// DEL, without checking that the key still holds its own value.
//
// Sources:
//   - https://github.com/nexspence/nexspence/issues/223 (a go-redis lock:
//     "Release deletes the lock key unconditionally, no ownership check"),
//     fixed in https://github.com/nexspence/nexspence/pull/226
//   - https://github.com/rfyiamcool/go_redis_lock/issues/1 ("del is not
//     safe": the release may delete another client's key after a timeout)
//
// Mechanism: A's lease runs out (a pause, a slow section) and B takes the
// free key. A's release deletes the key, which is now B's, so a third
// acquisition (A's next cycle, or C) gets the lock while B still works.
// The fix deletes only while the key holds A's value (compare-and-delete
// in one script).
type PlainDel struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	buggy bool
	value string
}

// NewPlainDel returns the lock on key with lease ttl.
func NewPlainDel(rdb *redis.Client, key string, ttl time.Duration, o Options) *PlainDel {
	return &PlainDel{rdb: rdb, key: key, ttl: ttl, buggy: o.Buggy}
}

// Lock takes the key with SET NX PX, polling until ctx ends.
func (l *PlainDel) Lock(ctx context.Context) error {
	l.value = rand.Text()
	return obtain(ctx, l.rdb, l.key, l.value, l.ttl)
}

// Unlock releases the key.
func (l *PlainDel) Unlock(ctx context.Context) error {
	if l.buggy {
		return l.rdb.Del(ctx, l.key).Err() // whoever holds it now
	}
	return release(ctx, l.rdb, l.key, l.value)
}

// Value is the value of the current hold.
func (l *PlainDel) Value() string { return l.value }
