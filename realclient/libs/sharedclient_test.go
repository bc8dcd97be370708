package libs

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredislib "github.com/redis/go-redis/v9"

	"locksim"
	"locksim/model"
	"locksim/model/invariant"
	. "locksim/realclient"
	"locksim/realclient/libs/fieldbugs"
	"locksim/sim"
)

// Goroutines sharing one client (WithGoroutines with Env.SharedClients):
// the process's go-redis clients are built once and every goroutine's
// lock runs on them; each command is its issuing goroutine's in the
// history, whichever pooled connection carries it.

// sharedRedislock is bsm/redislock on the process's shared client.
func sharedRedislock(env Env) (Lock, error) {
	cs, err := env.SharedClients()
	if err != nil {
		return nil, err
	}
	return newRedislockOn(cs[0], env)
}

// sharedRedsync is redsync on the process's shared clients.
func sharedRedsync(env Env) (Lock, error) {
	cs, err := env.SharedClients()
	if err != nil {
		return nil, err
	}
	pools := make([]redis.Pool, len(cs))
	for i, c := range cs {
		pools[i] = goredis.NewPool(c)
	}
	return redsyncLock{redsync.New(pools...).NewMutex(env.Key, redsync.WithExpiry(env.TTL))}, nil
}

// poolOfOne makes every process's client pool one connection per master:
// every command of its goroutines then goes over the same connection.
func poolOfOne(o *goredislib.Options) { o.PoolSize = 1 }

// runShared runs setup with n goroutines per process on pools of one
// connection.
func runShared(t *testing.T, setup Setup, n int, seed uint64, faults ...string) *model.Result {
	t.Helper()
	r, err := runSharedErr(t, setup, n, seed, faults...)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	return r
}

func runSharedErr(t *testing.T, setup Setup, n int, seed uint64, faults ...string) (*model.Result, error) {
	t.Helper()
	s, err := goroutinesSpec(faults...)
	if err != nil {
		t.Fatal(err)
	}
	return Run(t, locksim.Case{Spec: s, Seed: seed}, setup, WithGoroutines(n), WithRedisOptions(poolOfOne))
}

// dialsOf counts process p's dials (its goroutines' dial events).
func dialsOf(h sim.History, p string, from time.Duration) int {
	n := 0
	for _, e := range h {
		if e.Kind == sim.KindDial && strings.HasPrefix(e.Actor, p+".") && e.At >= from {
			n++
		}
	}
	return n
}

// callsBy counts each client's commands.
func callsBy(h sim.History) map[string]int {
	n := map[string]int{}
	for _, e := range h {
		if e.Kind == sim.KindCall {
			n[e.Actor]++
		}
	}
	return n
}

// wantAll fails unless each of clients acquired and sent commands.
func wantAll(t *testing.T, r *model.Result, what string, clients ...string) {
	t.Helper()
	acq, calls := acquiredBy(r.History), callsBy(r.History)
	for _, c := range clients {
		if acq[c] == 0 || calls[c] == 0 {
			t.Fatalf("%s: %s acquired %d times and sent %d commands (acquired: %v, commands: %v)", what, c, acq[c], calls[c], acq, calls)
		}
	}
}

// TestSharedClientLibraries: bsm/redislock with three goroutines per
// process and redsync with two, every goroutine's lock on the process's
// one shared client whose pool holds one connection: with no fault each
// process dials once, every goroutine acquires and sends its own commands
// over that connection, and every invariant holds; under a pause of the
// process shorter than the lease and a crash with restart, they hold too.
func TestSharedClientLibraries(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup Setup
		n     int
	}{{"redislock", sharedRedislock, 3}, {"redsync", sharedRedsync, 2}} {
		var all []string
		for _, p := range []string{"A", "B"} {
			for i := 1; i <= tc.n; i++ {
				all = append(all, p+"."+string(rune('0'+i)))
			}
		}
		r := runShared(t, tc.setup, tc.n, 1)
		if len(r.Violations) > 0 {
			t.Fatalf("%s on a shared client, no fault: %v", tc.name, r.Violations)
		}
		wantAll(t, r, tc.name+", no fault", all...)
		if got := dialsOf(r.History, "A", 0); got != 1 {
			t.Fatalf("%s: process A dialed %d times, want once: its goroutines share one connection", tc.name, got)
		}
		for _, f := range []string{"pause A for 300ms after A acquired", "crash A restart for 300ms at 100ms"} {
			r := runShared(t, tc.setup, tc.n, 2, f)
			if len(r.Violations) > 0 {
				t.Fatalf("%s on a shared client, %s: %v", tc.name, f, r.Violations)
			}
			wantAll(t, r, tc.name+", "+f, all...)
		}
	}
}

// TestSharedClientOwner: ClientOwner names its owner by the Redis client.
// With a client per goroutine (Env.Clients) even the buggy build holds;
// with the goroutines sharing the process's client it breaks mutual
// exclusion between A.1 and A.2 with no fault at all; the fixed build
// holds on the shared client, also under Check's generated pauses.
func TestSharedClientOwner(t *testing.T) {
	own := func(o fieldbugs.Options) Setup {
		return func(env Env) (Lock, error) { return fieldbugs.NewClientOwner(env.Clients[0], env.Key, env.TTL, o), nil }
	}
	shared := func(o fieldbugs.Options) Setup {
		return func(env Env) (Lock, error) {
			cs, err := env.SharedClients()
			if err != nil {
				return nil, err
			}
			return fieldbugs.NewClientOwner(cs[0], env.Key, env.TTL, o), nil
		}
	}
	for _, seed := range []uint64{1, 2} {
		if r := runGoroutines(t, own(fieldbugs.Options{Buggy: true}), seed); len(r.Violations) > 0 {
			t.Fatalf("seed %d: buggy ClientOwner on a client per goroutine: %v", seed, r.Violations)
		}
		r := runShared(t, shared(fieldbugs.Options{Buggy: true}), 2, seed)
		var named bool
		for _, v := range r.Violations {
			if v.Invariant == invariant.MutualExclusion && slices.Contains(v.Clients, "A.1") && slices.Contains(v.Clients, "A.2") {
				named = true
			}
		}
		if !named {
			t.Fatalf("seed %d: buggy ClientOwner on a shared client: want a mutual-exclusion violation naming A.1 and A.2, got %v", seed, r.Violations)
		}
		fixed := runShared(t, shared(fieldbugs.Options{}), 2, seed)
		if len(fixed.Violations) > 0 {
			t.Fatalf("seed %d: fixed ClientOwner on a shared client: %v", seed, fixed.Violations)
		}
		wantAll(t, fixed, "fixed ClientOwner", "A.1", "A.2", "B.1", "B.2")
	}
	Check(t, shared(fieldbugs.Options{}), WithName("client-owner"), WithGoroutines(2), WithRuns(3),
		WithFaults(sim.FaultPause), WithCaseDir(t.TempDir()))
}

// TestSharedClientIssuerUnknown: a command on the shared client written
// by a goroutine that works for no workload goroutine (one Env.Shared's
// build started, serving every goroutine's lock; or a time.AfterFunc's)
// refuses the run, saying why, rather than giving it to a goroutine.
func TestSharedClientIssuerUnknown(t *testing.T) {
	// A process-wide worker, started while the shared objects are built,
	// sends every goroutine's lock command.
	worker := func(env Env) (Lock, error) {
		cs, err := env.SharedClients()
		if err != nil {
			return nil, err
		}
		v, err := env.Shared("worker", func() (any, error) {
			jobs := make(chan func())
			go func() {
				for f := range jobs {
					f()
				}
			}()
			env.CloseAtExit(closeFunc(func() { close(jobs) }))
			return jobs, nil
		})
		if err != nil {
			return nil, err
		}
		return &viaLock{c: cs[0], key: env.Key, value: env.Client, ttl: env.TTL, run: func(f func()) {
			done := make(chan struct{})
			v.(chan func()) <- func() { f(); close(done) }
			<-done
		}}, nil
	}
	// A timer's goroutine sends the lock command.
	timer := func(env Env) (Lock, error) {
		cs, err := env.SharedClients()
		if err != nil {
			return nil, err
		}
		return &viaLock{c: cs[0], key: env.Key, value: env.Client, ttl: env.TTL, run: func(f func()) {
			done := make(chan struct{})
			time.AfterFunc(time.Millisecond, func() { f(); close(done) })
			<-done
		}}, nil
	}
	for _, tc := range []struct {
		name  string
		setup Setup
		want  string
	}{{"worker", worker, "a goroutine started while Env.Shared built a shared object"}, {"timer", timer, "time.AfterFunc"}} {
		_, err := runSharedErr(t, tc.setup, 2, 1)
		if err == nil || !strings.Contains(err.Error(), "no known issuer") || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: got %v, want the run refused: no known issuer, %s", tc.name, err, tc.want)
		}
	}
}

// viaLock is a SET NX lock whose commands go through run (another
// goroutine).
type viaLock struct {
	c          *goredislib.Client
	key, value string
	ttl        time.Duration
	run        func(func())
}

func (l *viaLock) Lock(ctx context.Context) error {
	for {
		var ok bool
		var err error
		l.run(func() { ok, err = l.c.SetNX(ctx, l.key, l.value, l.ttl).Result() })
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (l *viaLock) Unlock(ctx context.Context) error {
	var err error
	l.run(func() { err = l.c.Del(ctx, l.key).Err() })
	return err
}

func (l *viaLock) Value() string { return l.value }

// closeFunc is an io.Closer.
type closeFunc func()

func (f closeFunc) Close() error { f(); return nil }

// TestSharedClientDeterministic: a run of goroutines on a shared client
// under a pause gives the same history twice in one process and in two
// fresh processes.
func TestSharedClientDeterministic(t *testing.T) {
	run := func(t *testing.T) *model.Result {
		return runShared(t, sharedRedislock, 2, 4, "pause A for 400ms after A acquired")
	}
	hashes, diff, ok := AcrossProcesses(t, "shared-client-goroutines", 2, run)
	if !ok {
		return
	}
	if hashes[0] != hashes[1] {
		t.Fatalf("two processes gave hashes %v; first difference:\n%s", hashes, diff)
	}
	a, b := run(t), run(t)
	if a.History.Hash() != b.History.Hash() {
		t.Fatalf("same seed in one process, two histories: %s and %s", a.History.Hash(), b.History.Hash())
	}
	wantAll(t, a, "redislock, pause", "A.1", "A.2")
}

// TestSharedClientCrash: a crash of process A stops both goroutines and
// breaks the shared pool's connection: nothing of A is sent between the
// crash and the restart, and the restarted process builds a new shared
// client, whose first command goes over a connection dialed after the
// restart; both goroutines acquire again.
func TestSharedClientCrash(t *testing.T) {
	r := runShared(t, sharedRedislock, 2, 1, "crash A restart for 300ms at 150ms")
	var crash, restart time.Duration = -1, -1
	for _, e := range r.History {
		if e.Actor == "A.1" && e.Kind == sim.KindCrash {
			crash = e.At
		}
		if e.Actor == "A.1" && e.Kind == sim.KindRestart {
			restart = e.At
		}
	}
	if crash < 0 || restart < crash {
		t.Fatalf("no crash and restart of A: %v %v", crash, restart)
	}
	var firstAfter time.Duration = -1
	for _, e := range r.History {
		if !strings.HasPrefix(e.Actor, "A.") || e.Kind != sim.KindCall {
			continue
		}
		if e.At > crash && e.At < restart {
			t.Fatalf("%s sent %v at %v, between A's crash at %v and its restart at %v", e.Actor, e.Args, e.At, crash, restart)
		}
		if e.At >= restart && firstAfter < 0 {
			firstAfter = e.At
		}
	}
	if firstAfter < 0 || dialsOf(r.History, "A", restart) == 0 {
		t.Fatalf("after the restart at %v: first command at %v, %d dials; want a new connection", restart, firstAfter, dialsOf(r.History, "A", restart))
	}
	for _, c := range []string{"A.1", "A.2"} {
		n := 0
		for _, e := range r.History {
			if e.Actor == c && e.Kind == "acquired" && e.At > restart {
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s never acquired after the restart", c)
		}
	}
	if len(r.Violations) > 0 {
		t.Fatalf("redislock on a shared client under a crash of A: %v", r.Violations)
	}
}
