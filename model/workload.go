package model

import (
	"strconv"
	"time"

	"github.com/pkg/errors"

	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

// clientMain returns the program of client number i: the workload's lock
// cycles with design d.
//
// fencing is the resource's: under strict and strict-reads, which reject
// every write without a token, an acquisition without a token stops the
// run with a DesignError instead of silently writing nothing.
//
// reader says the client only reads, under shared holds (Workload.Readers
// of a design that takes them).
func clientMain(d Design, opts Options, wl Workload, fencing Fencing, i int, reader bool) func(*sim.Ctx) error {
	return func(ctx *sim.Ctx) error {
		c := NewClient(ctx, opts)
		c.reader = reader
		c.markReads = fencing == FenceLockValue
		if wl.Start > 0 && i > 0 {
			c.Sleep(time.Duration(i) * wl.Start)
		}
		for cycle := 0; wl.Cycles == 0 || cycle < wl.Cycles; cycle++ {
			if wl.Duration > 0 && c.Now() >= wl.Duration {
				break
			}
			l, ok, err := acquire(c, d)
			if err != nil {
				return err
			}
			if ok {
				if l.Token <= 0 && !l.Shared && (fencing == FenceStrict || fencing == FenceStrictReads) { // nonstrict accepts token 0
					return &DesignError{Design: d.Name(), Msg: "acquired without a fencing token, but the resource's fencing is " +
						string(fencing) + ", which rejects every write without one, so nothing would ever be written: " +
						"return a token (a positive integer) from the acquire, or turn fencing off"}
				}
				if err := criticalSection(c, d, l, wl); err != nil {
					return err
				}
			}
			if wl.Think > 0 {
				c.Sleep(wl.Think)
			}
		}
		return nil
	}
}

// acquire runs one acquisition: a fresh value, tries with exponential
// backoff and jitter until the acquire wait runs out (on the monotonic
// clock, or the wall clock under Options.WallClock).
func acquire(c *Client, d Design) (*Lease, bool, error) {
	o := c.opts
	value := c.NewValue()
	c.acquiring = value
	c.Record(sim.Event{Kind: history.KindAcquireStart, Key: c.Key, Value: value, Dur: o.AcquireWait})
	begin := c.waitNow()
	backoff := o.RetryMin
	for {
		start, startWall := c.Now(), c.Wall()
		l, ok, err := d.TryAcquire(c, value)
		if fatal(err) {
			return nil, false, err
		}
		if ok {
			for _, n := range l.Nodes {
				if !c.ctx.IsNode(n) {
					return nil, false, &DesignError{Design: d.Name(), Msg: "Lease.Nodes names " + strconv.Quote(n) + ", which is not a Redis node; use c.Primary(group) for the node behind a group"}
				}
			}
			if len(l.Nodes) == 0 {
				return nil, false, &DesignError{Design: d.Name(), Msg: "Lease.Nodes is empty; list the nodes that granted the lock (c.Primary(group))"}
			}
			if l.Keys != nil && len(l.Keys) != len(l.Nodes) {
				return nil, false, &DesignError{Design: d.Name(), Msg: "Lease.Keys names " + strconv.Itoa(len(l.Keys)) + " keys for " +
					strconv.Itoa(len(l.Nodes)) + " nodes; give one key per entry of Lease.Nodes, or none"}
			}
			if l.Start == 0 {
				l.Start = start
			}
			if l.Count == 0 {
				l.Count = 1
			}
			if o.Deadline && l.Validity == 0 {
				// The client deadline: budget the lease on the monotonic clock from
				// before the request, keep a margin, and do not enter
				// when the reply came too late. Under WallClock the
				// budget runs on the wall clock, as Java code timing
				// with System.currentTimeMillis() does.
				l.Start, l.Validity, l.Wall = start, o.TTL-o.Margin, o.WallClock
				if l.Wall {
					l.Start = startWall
				}
				if c.leaseNow(&l)-l.Start >= l.Validity {
					c.Record(sim.Event{Kind: history.KindLeaseLost, Key: c.Key, Value: value, Note: "the reply came after the lease budget: not entering"})
					d.Release(c, &l)
					ok = false
				}
			}
		}
		if ok {
			c.Record(sim.Event{Kind: history.KindAcquired, Key: l.Key, Value: l.Value, Token: l.Token, Dur: l.remaining(c.leaseNow(&l)),
				Peer: history.GrantPeer(l.Key, l.Nodes, l.Keys), N: int64(l.Count), Note: leaseFlags(&l)})
			return &l, true, nil
		}
		if err != nil && o.Deadline {
			// Outcome unknown: release by value, then retry.
			d.Release(c, &Lease{Key: c.Key, Value: value})
		}
		if c.waitNow()-begin >= o.AcquireWait {
			note := "acquire wait ran out"
			if err != nil {
				note += ": " + err.Error()
			}
			if a, ok := d.(Abandoner); ok {
				a.Abandon(c, value)
			}
			c.Record(sim.Event{Kind: history.KindAcquireFailed, Key: c.Key, Value: value, Note: note})
			return nil, false, nil
		}
		// Exponential backoff with jitter: sleep in [backoff/2, backoff].
		sleep := backoff/2 + time.Duration(c.ctx.Rand().Int64N(int64(backoff/2)+1))
		if o.RetryJitter > 0 { // drawn only when set: runs without it draw as before
			sleep += time.Duration(c.ctx.Rand().Int64N(int64(o.RetryJitter) + 1))
		}
		if w, ok := d.(Waiter); ok {
			w.WaitRelease(c, sleep)
		} else {
			c.Sleep(sleep)
		}
		backoff = min(2*backoff, o.RetryMax)
	}
}

// criticalSection reads the resource, works, writes value+1 with the
// lease's token, and releases. A Renewer gets a watchdog for the duration.
func criticalSection(c *Client, d Design, l *Lease, wl Workload) error {
	r, ok := d.(Renewer)
	if e, canExtend := d.(Extender); !ok && canExtend && c.opts.Extend {
		r, ok = extendAsRenew{e}, true
	}
	var stop *bool // the watchdog's, nil without one
	if ok {
		stop = startWatchdog(c, r, l)
	}
	// Nested holds: a reentrant design takes the same lock again.
	reentry := 0
	if _, ok := d.(Reentrant); ok {
		reentry = wl.Reentry
	}
	for i := 0; i < reentry; i++ {
		if _, ok, _ := d.TryAcquire(c, l.Value); ok {
			l.Count++
			c.Record(sim.Event{Kind: history.KindAcquired, Key: l.Key, Value: l.Value, Token: l.Token,
				Peer: history.GrantPeer(l.Key, l.Nodes, l.Keys), N: int64(l.Count), Note: leaseFlags(l)})
		}
	}
	for l.Count > 1 {
		l.Count--
		c.Record(sim.Event{Kind: history.KindRelease, Key: l.Key, Value: l.Value, N: int64(l.Count)})
		d.Release(c, l)
	}
	work(c, l, wl)
	l.Count = 0
	c.Record(sim.Event{Kind: history.KindRelease, Key: l.Key, Value: l.Value})
	if stop != nil {
		*stop = true
	}
	err := d.Release(c, l)
	note := ""
	if err != nil {
		note = err.Error()
	}
	c.Record(sim.Event{Kind: history.KindReleased, Key: l.Key, Value: l.Value, Note: note})
	if fatal(err) {
		return err
	}
	return nil
}

// startWatchdog starts the task that renews l every RenewEvery while the
// critical section lasts, and returns the flag that stops it. Its
// variables live on the heap only for a design that renews: declared in
// criticalSection, the closure moved them there on every acquisition.
func startWatchdog(c *Client, r Renewer, l *Lease) *bool {
	o := c.opts
	stop := new(bool)
	c.ctx.Go("watchdog", func(ctx *sim.Ctx) error {
		// The watchdog renews the holds this client took: a reader's
		// are read holds, with their own keys to extend.
		wc := NewClient(ctx, o)
		wc.Key, wc.TokenKey, wc.reader, wc.markReads = c.Key, c.TokenKey, c.reader, c.markReads
		for {
			wc.Sleep(o.RenewEvery)
			if *stop {
				return nil
			}
			start := wc.leaseNow(l)
			ok, err := r.Renew(wc, l)
			if fatal(err) {
				return err
			}
			if *stop {
				return nil
			}
			n, outcome := int64(0), renewOutcome(ok, err)
			if ok {
				n = 1
			}
			// A renewal that comes back after the client's own deadline
			// passed does not revive the lease: the client stopped
			// believing it held the lock at the deadline.
			lapsed := false
			if dl, has := l.Deadline(); has && ok && wc.leaseNow(l) >= dl {
				lapsed, outcome = true, "extended on Redis, but the lease had already run out on the client's clock"
			} else if ok && l.Validity != 0 {
				l.Start, l.Validity = start, o.TTL-o.Margin
			}
			dur := l.remaining(wc.leaseNow(l))
			if lapsed {
				dur = 0
			}
			wc.Record(sim.Event{Kind: history.KindRenew, Key: l.Key, Value: l.Value, N: n, Dur: dur, Note: outcome})
			if !ok || err != nil || lapsed {
				wc.Record(sim.Event{Kind: history.KindWatchdogStop, Key: l.Key, Value: l.Value, Note: "renewal " + outcome})
				return nil
			}
		}
	})
	return stop
}

// renewOutcome words what a renewal's result means: extended, refused by
// the node (the key is not ours), the node down, or no answer in time
// (the outcome is unknown: the key may have been extended).
func renewOutcome(ok bool, err error) string {
	switch {
	case errors.Is(err, sim.ErrTimeout):
		return "timed out: the outcome is unknown"
	case errors.Is(err, sim.ErrRefused):
		return "refused: the node is down"
	case errors.As(err, new(waitShortError)):
		return err.Error()
	case err != nil:
		return "failed: " + err.Error()
	case ok:
		return "extended"
	}
	return "returned 0: the key is no longer this client's"
}

// extendAsRenew runs an Extender's Extend from the watchdog.
type extendAsRenew struct{ e Extender }

func (x extendAsRenew) Renew(c *Client, l *Lease) (bool, error) { return x.e.Extend(c, l) }

// fatal reports whether err means the design itself is broken (a Lua
// script error), which stops the run instead of counting as a timeout.
func fatal(err error) bool {
	if err == nil {
		return false // the common case: no errors.As, which allocates
	}
	var se *ScriptError
	var de *DesignError
	return errors.As(err, &se) || errors.As(err, &de)
}

// DesignError is a design that broke the Design contract; it stops the run.
type DesignError struct {
	Design, Msg string
}

func (e *DesignError) Error() string { return "design " + e.Design + ": " + e.Msg }

// leaseFlags renders an acquired event's Note flags: a shared hold, and a
// lease with a validity budgeted on the wall clock.
func leaseFlags(l *Lease) string {
	return history.HoldFlags{Shared: l.Shared, Wall: l.Wall && l.Validity != 0}.Note()
}

// work is the read-modify-write: read value, work, write value+1. Under a
// shared hold (a reader) it reads and works but does not write.
func work(c *Client, l *Lease, wl Workload) {
	args := []string{"READ"}
	switch {
	case c.markReads:
		args = append(args, l.Value) // the read marks the holder (FenceLockValue)
	case l.Token != 0:
		args = append(args, strconv.FormatInt(l.Token, 10)) // fenced reads (strict-reads)
	}
	r, err := c.Call(ResourceName, args...)
	value, version, ok := readReply(r)
	if err != nil || !ok {
		c.Record(sim.Event{Kind: history.KindLeaseLost, Key: l.Key, Value: l.Value, Note: "read failed; not writing"})
		return
	}
	c.Record(sim.Event{Kind: history.KindRead, N: value})
	c.Sleep(wl.Work)
	if l.Shared {
		return // a reader: nothing to write
	}
	if dl, ok := l.Deadline(); ok && c.leaseNow(l) >= dl {
		c.Record(sim.Event{Kind: history.KindLeaseLost, Key: l.Key, Value: l.Value, Note: "lease ran out on the client's clock before the write: not writing"})
		return
	}
	next := value + 1
	c.Record(sim.Event{Kind: history.KindWrite, Key: l.Key, Value: l.Value, Token: l.Token, N: next})
	args = []string{"WRITE", strconv.FormatInt(l.Token, 10), l.Value, strconv.FormatInt(next, 10)}
	if version >= 0 {
		args = append(args, "VERSION", strconv.FormatInt(version, 10)) // the version it read (FenceVersion)
	}
	c.Call(ResourceName, args...)
}

// readReply reads the resource's answer to READ: an integer value, or
// under FenceVersion the value and the row's version (version -1 when the
// resource keeps none).
func readReply(r resp.Reply) (value, version int64, ok bool) {
	switch {
	case r.Kind == resp.Int:
		return r.Int, -1, true
	case r.Kind == resp.Array && len(r.Elems) == 2 && r.Elems[0].Kind == resp.Int && r.Elems[1].Kind == resp.Int:
		return r.Elems[0].Int, r.Elems[1].Int, true
	}
	return 0, -1, false
}
