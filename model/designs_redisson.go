package model

import (
	"strconv"
	"time"

	"locksim/sim/resp"
)

// Redisson's other locks: the fair lock,
// the read-write lock, and RLock with an explicit lease. Each takes the
// lock on one primary, keeps owners as hash fields with hold counts (as
// reentrant-hash does), and renews by watchdog unless its lease is
// explicit. The owner is this acquisition's lock value (Redisson's
// clientID:threadID).

// --- fair-lock --------------------------------------------------------------

// fairLock is RedissonFairLock: waiters queue in a list, each with a
// deadline in a sorted set (the client's wall-clock ms: Redisson sends
// System.currentTimeMillis()), and the lock goes to the queue's head. A
// waiter's place lasts until the place ahead of it runs out, plus the
// queue wait; a waiter that does not come back by then is dropped, one
// that gives up leaves (Abandon).
type fairLock struct{}

func (fairLock) Name() string { return FairLock }

func (fairLock) Traits() Traits {
	return Traits{Renews: true, Reentrant: true, Fair: true, ReadsWall: true, ToleratesFailover: true}
}

// Reentrant marks the design as reentrant.
func (fairLock) Reentrant() {}

func fairQueue(c *Client) string    { return "redisson_lock_queue:{" + c.Key + "}" }
func fairTimeouts(c *Client) string { return "redisson_lock_timeout:{" + c.Key + "}" }
func ms(d time.Duration) string     { return strconv.FormatInt(int64(d/time.Millisecond), 10) }

// TryAcquire takes the lock if it is free and the caller is first in the
// queue, else joins the queue (once) and reports it held.
func (fairLock) TryAcquire(c *Client, value string) (Lease, bool, error) {
	g := single(c)
	node := c.Primary(g)
	r, err := c.Call(g, "EVAL", scriptFairAcquire, "3", c.Key, fairQueue(c), fairTimeouts(c),
		c.TTLms(), value, ms(c.opts.QueueWait), c.WallMs())
	if err != nil {
		return Lease{}, false, err
	}
	if err := replyErr(r); err != nil {
		return Lease{}, false, err
	}
	if !r.IsNil() {
		return Lease{}, false, nil // queued: the reply is how long to wait
	}
	return Lease{Key: c.Key, Value: value, Nodes: []string{node}, Count: 1}, true, nil
}

// Release drops one hold; the last deletes the lock and tells the first
// waiter in the queue.
func (fairLock) Release(c *Client, l *Lease) error {
	c.Releasing(l)
	r, err := c.Call(single(c), "EVAL", scriptFairRelease, "4", c.Key, fairQueue(c), fairTimeouts(c), channel(c),
		"0", c.TTLms(), l.Value, c.WallMs())
	if err != nil {
		return err
	}
	return replyErr(r)
}

func (fairLock) Renew(c *Client, l *Lease) (bool, error) { return reentrantHash{}.Renew(c, l) }

// Abandon leaves the queue after the acquire wait ran out.
func (fairLock) Abandon(c *Client, value string) {
	c.Call(single(c), "EVAL", scriptFairAbandon, "2", fairQueue(c), fairTimeouts(c), value, ms(c.opts.QueueWait))
}

// WaitRelease waits on the waiter's own channel, where a release tells the
// queue's head.
func (fairLock) WaitRelease(c *Client, max time.Duration) {
	waitOn(c, channel(c)+":"+c.Acquiring(), max)
}

// --- read-write-lock --------------------------------------------------------

// readWriteLock is RReadWriteLock: one hash with a mode (read or write)
// and a field per owner. Readers share it, each read hold with its own
// expiring key; a writer needs it free. A client that reads
// (Client.Reader) takes the read lock, the others the write lock.
type readWriteLock struct{}

func (readWriteLock) Name() string { return ReadWriteLock }

func (readWriteLock) Traits() Traits {
	return Traits{Renews: true, Reentrant: true, Shared: true, ToleratesFailover: true}
}

// Reentrant marks the design as reentrant.
func (readWriteLock) Reentrant() {}

func rwChannel(c *Client) string { return "redisson_rwlock:{" + c.Key + "}" }

// rwPrefix is the lock's key prefix, {lock}; a read hold's key is
// {lock}:owner:rwlock_timeout:N.
func rwPrefix(c *Client) string              { return "{" + c.Key + "}" }
func rwHolds(c *Client, owner string) string { return rwPrefix(c) + ":" + owner + ":rwlock_timeout" }

// TryAcquire takes a read hold for a reader, else a write hold. The
// writer's field is its lock value, where Redisson appends ":write" to its
// thread's name: values are per acquisition here, so a client's read and
// write holds never share one.
func (readWriteLock) TryAcquire(c *Client, value string) (Lease, bool, error) {
	g := single(c)
	node := c.Primary(g)
	var r resp.Reply
	var err error
	if c.Reader() {
		r, err = c.Call(g, "EVAL", scriptReadAcquire, "2", c.Key, rwHolds(c, value), c.TTLms(), value, value+":write")
	} else {
		r, err = c.Call(g, "EVAL", scriptWriteAcquire, "1", c.Key, c.TTLms(), value)
	}
	if err != nil {
		return Lease{}, false, err
	}
	if err := replyErr(r); err != nil {
		return Lease{}, false, err
	}
	if !r.IsNil() {
		return Lease{}, false, nil // the reply is the holder's PTTL
	}
	return Lease{Key: c.Key, Value: value, Nodes: []string{node}, Count: 1, Shared: c.Reader()}, true, nil
}

func (readWriteLock) Release(c *Client, l *Lease) error {
	c.Releasing(l)
	var r resp.Reply
	var err error
	if c.Reader() {
		r, err = c.Call(single(c), "EVAL", scriptReadRelease, "4", c.Key, rwChannel(c), rwHolds(c, l.Value), rwPrefix(c), "0", l.Value)
	} else {
		r, err = c.Call(single(c), "EVAL", scriptWriteRelease, "2", c.Key, rwChannel(c), "0", c.TTLms(), l.Value)
	}
	if err != nil {
		return err
	}
	return replyErr(r)
}

// Renew extends a reader's hold keys and the lock, or a writer's lock.
func (readWriteLock) Renew(c *Client, l *Lease) (bool, error) {
	if !c.Reader() {
		return reentrantHash{}.Renew(c, l)
	}
	r, err := c.Call(single(c), "EVAL", scriptReadRenew, "2", c.Key, rwPrefix(c), c.TTLms(), l.Value)
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Int && r.Int == 1, replyErr(r)
}

func (readWriteLock) WaitRelease(c *Client, max time.Duration) { waitOn(c, rwChannel(c), max) }

// --- explicit-lease ---------------------------------------------------------

// explicitLease is RLock taken with tryLock(wait, leaseTime) (for example
// tryLock(200, 5000, ms)): the scripts of reentrant-hash, but the lease is
// the one given and no watchdog extends it. It is not a Renewer.
type explicitLease struct{}

func (explicitLease) Name() string { return ExplicitLease }

func (explicitLease) Traits() Traits { return Traits{Reentrant: true, ToleratesFailover: true} }

// Reentrant marks the design as reentrant.
func (explicitLease) Reentrant() {}

func (explicitLease) TryAcquire(c *Client, value string) (Lease, bool, error) {
	return reentrantHash{}.TryAcquire(c, value)
}

func (explicitLease) Release(c *Client, l *Lease) error { return reentrantHash{}.Release(c, l) }

func (explicitLease) WaitRelease(c *Client, max time.Duration) { reentrantHash{}.WaitRelease(c, max) }
