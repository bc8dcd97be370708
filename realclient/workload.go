package realclient

import (
	"cmp"
	"context"
	"math/rand/v2"
	"net"
	"sync/atomic"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// program is one client process: it builds one go-redis client per master
// dialing through the simulation, the user's lock from them, and runs the
// workload's cycles. It returns the note for the process's task-end.
func (p *xproc) program(rc *runConfig) string {
	s := rc.spec
	env := Env{Key: p.key, TTL: s.Options.TTL, Client: p.name, Process: p.process, Goroutine: p.goroutine,
		Rand: rand.New(rand.NewPCG(rc.seed, uint64(p.idx)+1)), p: p, rc: rc,
		Dialer: func(ctx context.Context, _, addr string) (net.Conn, error) { return p.dial(ctx, dialHost(addr)) }}
	defer func() {
		for i := len(p.closers) - 1; i >= 0; i-- {
			p.closers[i].Close()
		}
		p.leaveShared() // the last goroutine of the process closes what they shared
	}()
	env.Clients = p.newClients(rc, false)
	defer func() {
		for _, c := range env.Clients {
			c.Close()
		}
	}()
	lock, err := rc.setup(env)
	if err != nil {
		return "setup: " + err.Error()
	}
	if lock == nil {
		return "setup returned no lock"
	}
	wl := s.Workload
	if wl.Start > 0 && p.idx > 0 {
		p.sleep(time.Duration(p.idx) * wl.Start)
	}
	for cycle := 0; wl.Cycles == 0 || cycle < wl.Cycles; cycle++ {
		if p.d.ending.Load() || (wl.Duration > 0 && p.d.now() >= wl.Duration) {
			break
		}
		if note := p.cycle(rc, lock); note != "" {
			return note
		}
		if wl.Think > 0 {
			p.sleep(wl.Think)
		}
	}
	return ""
}

// cycle is one acquire, critical section, release. A non-empty result is
// an error that ends the process.
func (p *xproc) cycle(rc *runConfig, lock Lock) string {
	s := rc.spec
	o := s.Options
	caller := cmp.Or(rc.caller, CallerValidity)
	var value string
	var acq acquisition
	var err error
	unlocked := false
	for try := 0; ; try++ {
		p.record(sim.Event{Kind: history.KindAcquireStart, Key: p.key, Dur: o.AcquireWait})
		p.beginAcquire()
		ctx, cancel := context.WithTimeout(context.Background(), o.AcquireWait)
		err = lock.Lock(ctx)
		cancel()
		acq = p.endAcquire()
		value = acq.value
		p.d.noteAcquisition(p.name, acq, err == nil)
		if note, ok := stopNote(err); ok {
			return note
		}
		if err == nil {
			if acq.commands == 0 {
				return noRedisNote(p.name)
			}
			break
		}
		p.record(sim.Event{Kind: history.KindAcquireFailed, Key: p.key, Value: value, Note: "lock: " + err.Error()})
		policy := cmp.Or(rc.onLockError, LockErrorSkip)
		if policy == LockErrorRetry && try+1 < MaxLockRetries && !p.d.ending.Load() {
			continue
		}
		if policy != LockErrorProceed {
			return ""
		}
		unlocked = true // fail-open: the section runs without the lock
		break
	}
	if value == "" {
		if v, ok := lock.(Valuer); ok {
			value = v.Value()
		}
	}
	var token int64
	if f, ok := lock.(Fencer); ok && !unlocked {
		token = f.Token()
	}
	if token <= 0 && !unlocked && (s.Fencing == model.FenceStrict || s.Fencing == model.FenceStrictReads) {
		return "the lock gave no fencing token (implement Fencer), but the resource's fencing is " + string(s.Fencing) + ", which rejects every write without one"
	}
	var deadline time.Time
	var dl *declaredLease
	validity, hasValidity := lock.(Validity)
	switch {
	case unlocked:
	case hasValidity:
		deadline = validity.Until()
	case o.Deadline && !acq.sentAt.IsZero():
		deadline = declaredDeadline(o, acq.sentAt)
		dl = &declaredLease{}
		dl.until.Store(deadline.UnixNano())
	}
	ev := sim.Event{Kind: history.KindAcquired, Key: p.key, Value: value, Token: token, Peer: grantPeer(p.key, acq.grants), N: 1}
	if caller != CallerTrusting && !deadline.IsZero() {
		ev.Dur = believed(deadline)
	}
	if unlocked {
		ev.Peer, ev.Note = "", NoteUnlocked
	}
	p.record(ev)
	p.d.mu.Lock()
	p.lockKeys = acq.keys
	if len(p.lockKeys) == 0 {
		p.lockKeys = []string{p.key} // a value from Valuer: Env.Key
	}
	p.d.mu.Unlock()
	p.setPhase(true, false)

	lease := newLeaseClock(deadline)
	var stop atomic.Bool
	watchdogDone := make(chan struct{})
	if e, ok := lock.(Extender); ok && o.Extend && !unlocked {
		go p.watchdog(rc, e, value, lease, dl, &stop, watchdogDone)
	} else {
		close(watchdogDone)
	}
	section := rc.section
	if section == nil {
		section = readModifyWrite(s.Workload.Work, caller, lease)
	}
	r := &Resource{p: p, timeout: o.CallTimeout, key: p.key, Token: token, Value: value, Lock: lock, version: -1}
	if dl != nil {
		r.declared = dl
	}
	secErr := section(context.Background(), r)
	p.record(sim.Event{Kind: history.KindRelease, Key: p.key, Value: value})
	p.setPhase(false, true)
	stop.Store(true)
	note := ""
	var unlockErr error
	if !unlocked {
		if err := lock.Unlock(context.Background()); err != nil {
			note, unlockErr = err.Error(), err
		}
	}
	p.setPhase(false, false)
	p.record(sim.Event{Kind: history.KindReleased, Key: p.key, Value: value, Note: note})
	<-watchdogDone
	if note, ok := stopNote(unlockErr); ok {
		return note
	}
	if secErr != nil {
		return "critical section: " + secErr.Error()
	}
	return ""
}

// NoteUnlocked flags the acquired event of a section a fail-open caller
// ran after Lock returned an error (LockErrorProceed): the client holds no
// lock, but its section runs as if it did.
const NoteUnlocked = "unlocked"

// declaredDeadline is the validity a library declares instead of
// reporting one (model.Options.Deadline, for a Lock that is no Validity):
// TTL minus Margin from the lock request that took the lock (or the
// extension's start), on the client's clock.
func declaredDeadline(o model.Options, sent time.Time) time.Time {
	return sent.Add(o.TTL - o.Margin)
}

// declared is a declared deadline as a Validity, for an extension.
type declared struct {
	o     model.Options
	start time.Time
}

func (d declared) Until() time.Time { return declaredDeadline(d.o, d.start) }

// declaredLease is a hold's declared deadline as the default caller
// reads it before writing: set at acquisition, moved by each successful
// extension (as a library's Until would be).
type declaredLease struct{ until atomic.Int64 }

func (d *declaredLease) Until() time.Time { return time.Unix(0, d.until.Load()) }

// believed is the acquired or renew event's Dur for a validity that ends at
// deadline: what is left of it on the bubble's clock, and when it is
// already spent, minus how long ago (at least 1ns below zero: spent, not
// "no validity").
func believed(deadline time.Time) time.Duration {
	left := time.Until(deadline)
	if left <= 0 {
		return min(left, -time.Nanosecond)
	}
	return left
}

// watchdog extends the lease every RenewEvery until stop. Each extension
// is recorded with what the caller believes of it (Caller): the validity
// the library reports after a successful one, or for a careful caller
// nothing (Dur 0) once its own lease clock had run out.
func (p *xproc) watchdog(rc *runConfig, e Extender, value string, lease *leaseClock, dl *declaredLease, stop *atomic.Bool, done chan struct{}) {
	defer close(done)
	o := rc.spec.Options
	caller := cmp.Or(rc.caller, CallerValidity)
	for {
		p.sleep(o.RenewEvery)
		if stop.Load() || p.d.ending.Load() {
			return
		}
		start := time.Now()
		err := e.Extend(context.Background())
		if stop.Load() {
			return
		}
		ev := sim.Event{Task: "watchdog", Kind: history.KindRenew, Key: p.key, Value: value}
		if err == nil {
			ev.N = 1
		}
		v, ok := e.(Validity)
		if !ok && dl != nil {
			v, ok = declared{o, start}, true
			if err == nil {
				dl.until.Store(v.Until().UnixNano())
			}
		}
		if ok && caller != CallerTrusting {
			until := v.Until()
			ev.Dur = believed(until)
			if err == nil && caller == CallerCareful && lease.lapsed(time.Now()) {
				ev.Dur, ev.Note = 0, "extended, but the lease had already run out on the client's clock"
			}
			if err == nil {
				lease.extend(time.Now(), until)
			}
		}
		p.record(ev)
		if err != nil {
			p.record(sim.Event{Task: "watchdog", Kind: history.KindWatchdogStop, Key: p.key, Value: value, Note: "extend failed: " + err.Error()})
			return
		}
	}
}

// dial is the go-redis Dialer: it opens a stream to the primary the
// process believes in for group and waits for the outcome or ctx.
func (p *xproc) dial(ctx context.Context, group string) (net.Conn, error) {
	return p.dialAs(ctx, group, false)
}

// dialAs is dial; private says the connection is one of the goroutine's
// own clients (Env.Clients), which no other goroutine is given: a
// command a goroutine without a label writes on it (a timer's) is the
// goroutine's (conn.writer).
func (p *xproc) dialAs(ctx context.Context, group string, private bool) (net.Conn, error) {
	d := p.d
	if d.ending.Load() {
		return nil, errEnded
	}
	a := &action{p: p, kind: actDial, node: group, private: private, done: make(chan outcome, 1)}
	p.connOpened(group)
	d.post(a)
	select {
	case o := <-a.done:
		if o.err != nil {
			p.connClosed(group)
			return nil, o.err
		}
		return o.c, nil
	case <-ctx.Done():
		d.mu.Lock()
		a.abandoned = true
		d.mu.Unlock()
		p.connClosed(group)
		return nil, ctx.Err()
	}
}
