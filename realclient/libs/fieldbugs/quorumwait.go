package fieldbugs

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"
)

// QuorumWait is a Redlock-style lock on independent masters: Lock sets the
// key on each master in turn and holds the lock when a majority answered
// OK within the lease. Its buggy build gives each master the client's
// own timeouts (go-redis's defaults: 5s to dial, 3s to read, longer than
// the lease) instead of a per-node timeout much shorter than the lease:
// while one master is unreachable, every try waits out that master, finds
// its lease spent, and gives up, though the majority it needs is up.
//
// Source: https://github.com/redisson/redisson/issues/1636 ("RedLock slow
// performance when one redis instance is down": each lock call waited
// out the silent instance's timeouts; the answer was to lower them).
//
// Mechanism: r3 is cut off without resets (a blackhole partition, as a
// host that vanished behind a firewall). A's SETs on r1 and r2 succeed at
// once, the one on r3 waits seconds for a connection that never comes
// up; the lease (1s) is gone by then, so A releases and tries again, with
// the same result: nobody acquires while the lock is free and a majority
// is up.
// The fix bounds each node by NodeTimeout and acquires on r1 and r2.
type QuorumWait struct {
	nodes []*redis.Client
	key   string
	ttl   time.Duration
	buggy bool
	value string
	until time.Time
}

// NodeTimeout bounds one master's request in the fixed QuorumWait.
const NodeTimeout = 50 * time.Millisecond

// NewQuorumWait returns the lock on key with lease ttl over nodes.
func NewQuorumWait(nodes []*redis.Client, key string, ttl time.Duration, o Options) *QuorumWait {
	return &QuorumWait{nodes: nodes, key: key, ttl: ttl, buggy: o.Buggy}
}

// nodeCtx bounds one master's request: NodeTimeout, or in the buggy
// build nothing but the client's own timeouts.
func (l *QuorumWait) nodeCtx() (context.Context, context.CancelFunc) {
	if l.buggy {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.Background(), NodeTimeout)
}

// Lock tries every PollEvery until ctx ends: SET NX PX on each master in
// turn, held when a majority answered OK and time is left of the lease
// (less a drift allowance of 1% + 2ms).
func (l *QuorumWait) Lock(ctx context.Context) error {
	value := rand.Text()
	for {
		start := time.Now()
		n := 0
		for _, rdb := range l.nodes {
			nctx, cancel := l.nodeCtx()
			ok, err := rdb.SetNX(nctx, l.key, value, l.ttl).Result()
			cancel()
			if err == nil && ok {
				n++
			}
		}
		validity := l.ttl - time.Since(start) - l.ttl/100 - 2*time.Millisecond
		if n >= len(l.nodes)/2+1 && validity > 0 {
			l.value, l.until = value, start.Add(validity)
			return nil
		}
		l.releaseAll(value)
		if err := wait(ctx, PollEvery); err != nil {
			return errors.Wrap(ErrNotObtained, err.Error())
		}
	}
}

// releaseAll deletes the key on every master where it holds value.
func (l *QuorumWait) releaseAll(value string) int {
	n := 0
	for _, rdb := range l.nodes {
		nctx, cancel := l.nodeCtx()
		if release(nctx, rdb, l.key, value) == nil {
			n++
		}
		cancel()
	}
	return n
}

// Unlock deletes the key on every master where it is still ours.
func (l *QuorumWait) Unlock(context.Context) error {
	if l.releaseAll(l.value) == 0 {
		return ErrNotHeld
	}
	return nil
}

// Until is when the current hold stops being valid.
func (l *QuorumWait) Until() time.Time { return l.until }

// Value is the value of the current hold.
func (l *QuorumWait) Value() string { return l.value }
