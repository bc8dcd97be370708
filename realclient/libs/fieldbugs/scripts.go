package fieldbugs

import (
	"context"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// unlockScript deletes the key only if it still holds the caller's value.
var unlockScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// extendScript moves the key's expiry ARGV[2] ms ahead only if it still
// holds the caller's value: 1 if extended, 0 if not held.
var extendScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)

// obtain sets key to value for ttl when it is free (SET NX PX), trying
// again every PollEvery until ctx ends.
func obtain(ctx context.Context, rdb *redis.Client, key, value string, ttl time.Duration) error {
	for {
		ok, err := rdb.SetNX(ctx, key, value, ttl).Result()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if err := wait(ctx, PollEvery); err != nil {
			return errors.Wrap(ErrNotObtained, err.Error())
		}
	}
}

// release deletes the key if it still holds value; ErrNotHeld if it did not.
func release(ctx context.Context, rdb *redis.Client, key, value string) error {
	n, err := unlockScript.Run(ctx, rdb, []string{key}, value).Int64()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotHeld
	}
	return nil
}

// extend moves the key's expiry ttl ahead if it still holds value;
// ErrNotHeld if it did not.
func extend(ctx context.Context, rdb *redis.Client, key, value string, ttl time.Duration) error {
	n, err := extendScript.Run(ctx, rdb, []string{key}, value, ttl.Milliseconds()).Int64()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotHeld
	}
	return nil
}
