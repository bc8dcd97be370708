package realclient

import (
	"context"
	"math/rand/v2"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// program is one client process: it builds one go-redis client per master
// dialing through the simulation, the user's lock from them, and runs the
// workload's cycles. It returns the note for the process's task-end.
func (p *xproc) program(rc *runConfig) string {
	s := rc.spec
	env := Env{Key: p.key, TTL: s.Options.TTL, Client: p.name,
		Rand: rand.New(rand.NewPCG(rc.seed, uint64(p.idx)+1)), p: p,
		Dialer: func(ctx context.Context, _, addr string) (net.Conn, error) { return p.dial(ctx, dialHost(addr)) }}
	defer func() {
		for i := len(p.closers) - 1; i >= 0; i-- {
			p.closers[i].Close()
		}
	}()
	for g := 0; g < s.Topology.Masters; g++ {
		group := model.GroupName(g)
		opt := &redis.Options{
			Addr: group + ":6379",
			Dialer: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return p.dial(ctx, group)
			},
			// Fixed, not 10 x GOMAXPROCS: a run must not depend on the
			// machine.
			PoolSize: 10,
			// Auto mode resolves the address with a real DNS lookup.
			MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
		}
		if rc.redisOptions != nil {
			rc.redisOptions(opt)
		}
		p.notePoolSize(opt.PoolSize)
		env.Clients = append(env.Clients, redis.NewClient(opt))
	}
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
	p.record(sim.Event{Kind: history.KindAcquireStart, Key: p.key, Dur: o.AcquireWait})
	p.beginAcquire()
	ctx, cancel := context.WithTimeout(context.Background(), o.AcquireWait)
	err := lock.Lock(ctx)
	cancel()
	value, grants := p.endAcquire()
	if err != nil {
		p.record(sim.Event{Kind: history.KindAcquireFailed, Key: p.key, Value: value, Note: "lock: " + err.Error()})
		return ""
	}
	if value == "" {
		if v, ok := lock.(Valuer); ok {
			value = v.Value()
		}
	}
	var token int64
	if f, ok := lock.(Fencer); ok {
		token = f.Token()
	}
	if token <= 0 && (s.Fencing == model.FenceStrict || s.Fencing == model.FenceStrictReads) {
		return "the lock gave no fencing token (implement Fencer), but the resource's fencing is " + string(s.Fencing) + ", which rejects every write without one"
	}
	var left time.Duration
	var deadline time.Time
	if v, ok := lock.(Validity); ok {
		deadline = v.Until()
		left = max(time.Until(deadline), 0)
	}
	p.record(sim.Event{Kind: history.KindAcquired, Key: p.key, Value: value, Token: token, Dur: left,
		Peer: strings.Join(grants, ","), N: 1})

	lease := newLeaseClock(deadline)
	var stop atomic.Bool
	watchdogDone := make(chan struct{})
	if e, ok := lock.(Extender); ok && o.Extend {
		go p.watchdog(rc, e, value, lease, &stop, watchdogDone)
	} else {
		close(watchdogDone)
	}
	section := rc.section
	if section == nil {
		section = readModifyWrite(s.Workload.Work, lease)
	}
	r := &Resource{p: p, timeout: o.CallTimeout, key: p.key, Token: token, Value: value, version: -1}
	secErr := section(context.Background(), r)
	p.record(sim.Event{Kind: history.KindRelease, Key: p.key, Value: value})
	stop.Store(true)
	err = lock.Unlock(context.Background())
	note := ""
	if err != nil {
		note = err.Error()
	}
	p.record(sim.Event{Kind: history.KindReleased, Key: p.key, Value: value, Note: note})
	<-watchdogDone
	if secErr != nil {
		return "critical section: " + secErr.Error()
	}
	return ""
}

// watchdog extends the lease every RenewEvery until stop.
func (p *xproc) watchdog(rc *runConfig, e Extender, value string, lease *leaseClock, stop *atomic.Bool, done chan struct{}) {
	defer close(done)
	o := rc.spec.Options
	for {
		p.sleep(o.RenewEvery)
		if stop.Load() || p.d.ending.Load() {
			return
		}
		err := e.Extend(context.Background())
		if stop.Load() {
			return
		}
		var n int64
		if err == nil {
			n = 1
		}
		var left time.Duration
		if v, ok := e.(Validity); ok {
			left = max(time.Until(v.Until()), 0)
			if err == nil {
				lease.extend(time.Now(), v.Until())
			}
		}
		p.record(sim.Event{Task: "watchdog", Kind: history.KindRenew, Key: p.key, Value: value, N: n, Dur: left})
		if err != nil {
			p.record(sim.Event{Task: "watchdog", Kind: history.KindWatchdogStop, Key: p.key, Value: value, Note: "extend failed: " + err.Error()})
			return
		}
	}
}

// dial is the go-redis Dialer: it opens a stream to the primary the
// process believes in for group and waits for the outcome or ctx.
func (p *xproc) dial(ctx context.Context, group string) (net.Conn, error) {
	d := p.d
	if d.ending.Load() {
		return nil, errEnded
	}
	a := &action{p: p, kind: actDial, node: group, done: make(chan outcome, 1)}
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
