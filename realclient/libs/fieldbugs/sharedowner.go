package fieldbugs

import (
	"context"
	"crypto/rand"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// Owner is the identity one process's locks share: an id drawn once per
// process (per client instance, as lock libraries draw a UUID when their
// client starts), handed to every lock the process's goroutines build.
type Owner struct {
	id      string
	handles atomic.Int64
}

// NewOwner draws a process's owner id.
func NewOwner() *Owner { return &Owner{id: rand.Text()} }

// SharedOwner is a reentrant single-key lock whose value names its owner:
// the key holds the owner's value, and a Lock that finds its own value
// there counts as a reentrant take and succeeds at once. The buggy build
// names the owner by the process's id alone, so every goroutine of the
// process is "the owner"; the fixed build adds a number per lock handle
// (per goroutine), as a lock value of the form UUID:threadId does.
//
// Source: the bug class is why reentrant Redis locks name the holder by
// client instance and thread together (Redisson's lock values are
// "<client UUID>:<thread id>"): with the instance alone, threads of one
// process share ownership. No single public issue is cited here; the
// library retells the class, not one report.
//
// Mechanism: A.1 holds the key with value "<id>". A.2, another goroutine
// of the same process, calls Lock: the key holds "<id>", its own value,
// so it "re-enters" and both work at once. When A.2 unlocks, its
// compare-and-delete matches "<id>" and frees the key while A.1 still
// works, so B takes it too. The fix's values differ per goroutine
// ("<id>:1", "<id>:2"): A.2 waits for the key as any other client.
type SharedOwner struct {
	rdb   *redis.Client
	key   string
	ttl   time.Duration
	value string
	until time.Time
}

// NewSharedOwner returns a handle on key with lease ttl for one goroutine
// of the process that owns owner.
func NewSharedOwner(rdb *redis.Client, key string, ttl time.Duration, owner *Owner, o Options) *SharedOwner {
	v := owner.id
	if !o.Buggy {
		v += ":" + strconv.FormatInt(owner.handles.Add(1), 10)
	}
	return &SharedOwner{rdb: rdb, key: key, ttl: ttl, value: v}
}

// reenterScript takes the key if it is free or already holds ARGV[1]
// (a reentrant take, which renews the lease), answering OK; else nil.
var reenterScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	redis.call("PEXPIRE", KEYS[1], ARGV[2])
	return redis.status_reply("OK")
end
return redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2])
`)

// Lock takes the key, polling until ctx ends.
func (l *SharedOwner) Lock(ctx context.Context) error {
	for {
		start := time.Now()
		err := reenterScript.Run(ctx, l.rdb, []string{l.key}, l.value, l.ttl.Milliseconds()).Err()
		if err == nil {
			l.until = start.Add(l.ttl)
			return nil
		}
		if err != redis.Nil {
			return err
		}
		if err := wait(ctx, PollEvery); err != nil {
			return errors.Wrap(ErrNotObtained, err.Error())
		}
	}
}

// Unlock deletes the key if it holds the lock's value.
func (l *SharedOwner) Unlock(ctx context.Context) error {
	return release(ctx, l.rdb, l.key, l.value)
}

// Value is the value the lock writes.
func (l *SharedOwner) Value() string { return l.value }

// Until is when the current hold's lease ends on the client's clock: the
// TTL from the moment the request that took it was sent.
func (l *SharedOwner) Until() time.Time { return l.until }
