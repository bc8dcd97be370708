package fieldbugs

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// RefreshReacquire is a single-node lock with a validity (Until) and
// Extend, whose buggy build refreshes with a script that also sets the key
// when it is missing: a refresh after the key expired quietly takes the
// lock again and reports success.
//
// Sources:
//   - https://github.com/swarthy/redis-semaphore/issues/175 ("Mutex
//     silently reacquires lock when expired between refreshes": another
//     instance can "acquire and release the lock before the first
//     instance's refresh runs")
//   - https://github.com/leandromoreira/redlock-rb/issues/36 ("Lock
//     extension via lock method allows extending expired locks")
//   - https://github.com/samcook/RedLock.net/pull/49 (review: the extend
//     script "is resetting the key that has expired")
//
// Mechanism: A reads the resource and stalls (a pause) past its lease; B
// takes the free key, does its whole read-modify-write and releases. A's
// next refresh finds no key, sets it again and moves Until ahead, so A,
// which checks Until before writing, writes what it computed from the
// value it read before B's write: B's update is lost, and A's belief that
// it held the lock throughout spans B's hold. The fix refreshes only a key
// that still holds A's value.
type RefreshReacquire struct {
	leased
	buggy bool
}

// refreshOrRetake is the buggy refresh: a missing key counts as ours.
var refreshOrRetake = redis.NewScript(`local v = redis.call("GET", KEYS[1])
if v == ARGV[1] or v == false then
  redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
  return 1
end
return 0`)

// NewRefreshReacquire returns the lock on key with lease ttl.
func NewRefreshReacquire(rdb *redis.Client, key string, ttl time.Duration, o Options) *RefreshReacquire {
	return &RefreshReacquire{leased: leased{rdb: rdb, key: key, ttl: ttl}, buggy: o.Buggy}
}

// Extend refreshes the lease if the key is still ours.
func (l *RefreshReacquire) Extend(ctx context.Context) error {
	start := time.Now()
	script := extendScript
	if l.buggy {
		script = refreshOrRetake
	}
	n, err := script.Run(ctx, l.rdb, []string{l.key}, l.Value(), l.ttl.Milliseconds()).Int64()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotHeld
	}
	l.setUntil(start.Add(l.ttl))
	return nil
}
