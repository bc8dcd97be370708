package model

import (
	"strconv"
	"time"

	"locksim/clock"
	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

// Design is a lock design under test: how one client takes, keeps and
// gives back the lock. Implementations are ordinary sequential code against
// the simulated Redis (Client.Call) and must not keep state outside the
// Lease and their own fields set at construction: one Design value serves
// every client of a run.
//
// The framework (see Workload) drives a design: it draws a fresh random
// value per acquisition, calls TryAcquire with bounded exponential backoff
// and jitter (each sleep in [backoff/2, backoff]) until it succeeds or
// the acquire wait runs out, applies
// the client-deadline option, runs a watchdog if the design is a Renewer,
// and calls Release.
type Design interface {
	// Name returns the design's ID, e.g. "set-px-lua".
	Name() string
	// TryAcquire makes one attempt with the given value. ok reports the
	// lock is held; ok == false with err == nil means another client holds
	// it. A non-nil err means the outcome is unknown (a timeout): the
	// framework retries with the same value, as a retry of the same
	// acquisition must.
	TryAcquire(c *Client, value string) (l Lease, ok bool, err error)
	// Release gives the lock back. It is called once per successful
	// acquisition, also when the lease was lost.
	Release(c *Client, l *Lease) error
}

// Renewer is a Design with a watchdog: Renew extends the lease and reports
// whether it still held it. The framework calls it every
// Options.RenewEvery from a background task and stops at the first false
// or error.
type Renewer interface {
	Renew(c *Client, l *Lease) (bool, error)
}

// Extender is a Design that can extend its lease on request but does not
// renew by itself (redlock); with Options.Extend the framework calls Extend
// from a watchdog, as it calls Renew.
type Extender interface {
	Extend(c *Client, l *Lease) (bool, error)
}

// Waiter is a Design whose waiters block on a release notification rather
// than sleeping the backoff (Redisson's pub/sub). WaitRelease waits at most
// max.
type Waiter interface {
	WaitRelease(c *Client, max time.Duration)
}

// Reentrant marks a Design whose TryAcquire with the held value takes one
// more hold (Workload.Reentry nests acquisitions only for these).
type Reentrant interface {
	Reentrant()
}

// Abandoner is a Design that must clean up after an acquisition that gave
// up: the framework calls Abandon once, with the acquisition's value, when
// the acquire wait runs out (Redisson's fair lock leaves its wait queue, as
// RedissonFairLock.acquireFailedAsync does). Its outcome is not checked.
type Abandoner interface {
	Abandon(c *Client, value string)
}

// Lease is what a client holds after a successful acquisition.
type Lease struct {
	// Key is the lock key, Value this acquisition's random value.
	Key, Value string
	// Token is the fencing token, 0 for unfenced designs.
	Token int64
	// Nodes are the nodes that granted the lock.
	Nodes []string
	// Keys, if set, names the key each node of Nodes granted (the same
	// length as Nodes; a node may appear once per key, as the three keys
	// of one instance); nil means Key on every node.
	Keys []string
	// Shared is a shared hold (a read lock): other shared holds may
	// overlap it, and the client only reads the resource under it. A
	// design sets it for a client that reads (Client.Reader).
	Shared bool
	// Start is the client's reading taken before the first request of the
	// successful attempt, on the monotonic clock, or on the wall clock
	// (as time since clock.Epoch) when Wall is set.
	Start time.Duration
	// Validity is how long from Start the client may trust the lease; 0
	// means the design trusts it until release (no client deadline).
	Validity time.Duration
	// Wall: Start and the deadline are on the client's wall clock (the
	// wall-clock option), which a clock step moves.
	Wall bool
	// Count is the reentrant hold count (1 for non-reentrant designs).
	Count int
	// ID is the design's own handle on the lease, such as an etcd lease
	// ID; the framework does not read it.
	ID int64
}

// Deadline returns the instant, on the lease's clock (see Wall), the
// lease runs out for the client, and false when the design trusts the
// lease until release.
func (l *Lease) Deadline() (time.Duration, bool) {
	if l.Validity == 0 {
		return 0, false
	}
	return l.Start + l.Validity, true
}

// remaining returns how much of the lease the client believes is left at
// monotonic time now (0 when the design trusts the lease until release).
func (l *Lease) remaining(now time.Duration) time.Duration {
	if d, ok := l.Deadline(); ok {
		return max(d-now, 0)
	}
	return 0
}

// Client is what a design sees of the simulated client process: the Redis
// deployment, its own clock and generator, and the options.
type Client struct {
	ctx  *sim.Ctx
	opts Options
	// Key is the lock key; TokenKey the fencing counter key.
	Key, TokenKey string

	reader     bool   // the client only reads, under shared holds
	markReads  bool   // its reads carry its lock value (FenceLockValue)
	subscribed string // the release channel the client subscribed to, "" none
	acquiring  string // the lock value of the acquisition in progress
}

// NewClient wraps a simulation context for a design. Options must already
// have their defaults (see Options.WithDefaults). On a cluster the token
// key is "{lock}:token": its hash tag puts it in the lock key's slot, as a
// deployment on Redis Cluster must for a script that takes both keys.
func NewClient(ctx *sim.Ctx, opts Options) *Client {
	token := LockKey + ":token"
	if ctx.ClusterNode(LockKey) != "" {
		token = "{" + LockKey + "}:token"
	}
	return &Client{ctx: ctx, opts: opts, Key: LockKey, TokenKey: token}
}

// Ctx returns the underlying simulation context.
func (c *Client) Ctx() *sim.Ctx { return c.ctx }

// Options returns the design options with defaults applied.
func (c *Client) Options() Options { return c.opts }

// Name returns the client's name ("A").
func (c *Client) Name() string { return c.ctx.Name() }

// Now returns the client's monotonic clock.
func (c *Client) Now() time.Duration { return c.ctx.Now() }

// Wall returns the client's wall clock as time since clock.Epoch: what
// System.currentTimeMillis() reads, offset, drift and steps included.
func (c *Client) Wall() time.Duration { return c.ctx.Wall().Sub(clock.Epoch) }

// WallMs returns the client's wall clock in whole milliseconds since the
// Unix epoch, as Java's System.currentTimeMillis() (Redisson's fair lock
// sends it to Redis).
func (c *Client) WallMs() string { return strconv.FormatInt(c.ctx.Wall().UnixMilli(), 10) }

// Acquiring returns the lock value of the acquisition the client is making
// (what TryAcquire was last given), for a Waiter that listens on a channel
// of its own.
func (c *Client) Acquiring() string { return c.acquiring }

// Reader reports whether the client only reads, under shared holds: one of
// Workload.Readers for a design that takes shared holds (Traits.Shared).
// A read-write design takes a read lock for it and sets Lease.Shared.
func (c *Client) Reader() bool { return c.reader }

// leaseNow returns the client's clock that lease l is budgeted on: the
// wall clock for a Wall lease, else the monotonic clock.
func (c *Client) leaseNow(l *Lease) time.Duration {
	if l.Wall {
		return c.Wall()
	}
	return c.Now()
}

// waitNow returns the clock the acquire wait is measured on: the wall clock
// under Options.WallClock (as System.currentTimeMillis() in Java), else the monotonic clock.
func (c *Client) waitNow() time.Duration {
	if c.opts.WallClock {
		return c.Wall()
	}
	return c.Now()
}

// Masters returns the independent Redis groups ("m1", ...).
func (c *Client) Masters() []string { return c.ctx.Groups() }

// Primary returns the node the client believes is group's primary.
func (c *Client) Primary(group string) string {
	if n := c.ctx.ClusterNode(c.Key); n != "" {
		return n // on a cluster: the node serving the lock key's slot, as the client knows it
	}
	return c.ctx.Primary(group)
}

// Call sends a command to a group (its believed primary) with the default
// call timeout.
func (c *Client) Call(group string, args ...string) (resp.Reply, error) {
	return c.ctx.Call(group, c.opts.CallTimeout, args...)
}

// CallTimeout sends a command with an explicit timeout.
func (c *Client) CallTimeout(group string, timeout time.Duration, args ...string) (resp.Reply, error) {
	return c.ctx.Call(group, timeout, args...)
}

// TTLms returns the TTL as a decimal count of milliseconds for PX.
func (c *Client) TTLms() string { return strconv.FormatInt(int64(c.opts.TTL/time.Millisecond), 10) }

// Record appends a model event to the history as this client.
func (c *Client) Record(e sim.Event) { c.ctx.Record(e) }

// Releasing records that the client is about to send the command that
// gives the key back, after any check it makes on the client side (a
// history.KindReleaseSend event). Scenarios place a pause "inside release" right
// after it, which is between GET and DEL for a design that compares on the
// client. Designs should call it once per Release, before that command.
func (c *Client) Releasing(l *Lease) {
	c.ctx.Record(sim.Event{Kind: history.KindReleaseSend, Key: l.Key, Value: l.Value})
}

// Sleep waits on the client's monotonic clock.
func (c *Client) Sleep(d time.Duration) { c.ctx.Sleep(d) }

// NewValue draws a fresh random lock value from the run's generator.
func (c *Client) NewValue() string {
	r := c.ctx.Rand()
	return c.ctx.Name() + ":" + strconv.FormatUint(r.Uint64()>>16, 36)
}
