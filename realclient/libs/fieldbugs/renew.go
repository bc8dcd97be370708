package fieldbugs

import (
	"context"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// renew is a Redisson-style watchdog: every ttl/3 (on a fixed cadence) it moves the key's
// expiry a TTL ahead, each renewal bounded by ttl/4 (Redisson's 3s
// response timeout against its 30s watchdog, scaled). It returns when
// stop is closed, when the key is no longer ours, when the client is
// closed, or after a failed renewal for which again returns false.
func renew(rdb *redis.Client, key, value string, ttl time.Duration, stop <-chan struct{}, again func(error) bool) {
	tick := time.NewTicker(ttl / 3) // a slow renewal does not push the next one back
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), ttl/4)
		err := extend(ctx, rdb, key, value, ttl)
		cancel()
		switch {
		case err == nil:
		case errors.Is(err, ErrNotHeld), errors.Is(err, redis.ErrClosed):
			return
		case !again(err):
			return
		}
	}
}
