package libs

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	_ "unsafe" // go:linkname: go-zero's client cache

	"github.com/zeromicro/go-zero/core/logx"
	"github.com/zeromicro/go-zero/core/stores/redis"
	"github.com/zeromicro/go-zero/core/syncx"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	. "locksim/realclient"
	"locksim/sim"
)

// go-zero's redis (core/stores/redis) builds its go-redis clients itself,
// from an address, and caches them process-wide by that address in an
// unexported manager it never closes (a service's clients live as long as
// the service). In the simulation every process of every run shares one
// Go process, so the setup gives each process its own address (Env.Addr)
// and, at the process's end, closes the client go-zero built for it
// (Env.CloseAtExit): go-zero has no exported way to reach it, so the test
// reaches the manager by go:linkname (it has this name in v1.9 and v1.10).
//
//go:linkname goZeroClients github.com/zeromicro/go-zero/core/stores/redis.clientManager
var goZeroClients *syncx.ResourceManager

// goZeroClient closes the client go-zero cached for addr and puts a
// closed stub in its place, so that the cache does not keep the client's
// buffers after the run.
type goZeroClient struct{ addr string }

var errNotCached = errors.New("go-zero built no client for this address")

func (c goZeroClient) Close() error {
	cl, err := goZeroClients.GetResource(c.addr, func() (io.Closer, error) { return nil, errNotCached })
	if errors.Is(err, errNotCached) {
		return nil // the process never sent a command
	}
	if err != nil {
		return err
	}
	if _, ok := cl.(closedClient); ok {
		return nil
	}
	goZeroClients.Inject(c.addr, closedClient{})
	goZeroClosed.Add(1)
	return cl.Close()
}

type closedClient struct{}

// goZeroClosed counts the go-zero clients closed.
var goZeroClosed atomic.Int64

func (closedClient) Close() error { return nil }

func init() { logx.Disable() } // go-zero logs every failed acquire to stdout

// goZeroLock is go-zero's RedisLock on m1 as a user wires it:
// redis.New(addr, redis.WithHook(hook)), NewRedisLock, SetExpire in
// whole seconds (go-zero adds 500ms of tolerance to the key's PX), and,
// since AcquireCtx does not wait, a retry every 20ms until Lock's
// context ends. Extend is a second AcquireCtx with the same value, which
// go-zero's script turns into a SET PX of the key it holds.
type goZeroLock struct{ rl *redis.RedisLock }

func newGoZero(opts ...redis.Option) Setup {
	return func(env Env) (Lock, error) {
		addr := env.Addr("m1")
		store := redis.New(addr, append([]redis.Option{redis.WithHook(env.Hook("m1"))}, opts...)...)
		env.CloseAtExit(goZeroClient{addr: addr})
		rl := redis.NewRedisLock(store, env.Key)
		rl.SetExpire(int((env.TTL + time.Second - 1) / time.Second))
		return goZeroLock{rl: rl}, nil
	}
}

func (l goZeroLock) Lock(ctx context.Context) error {
	for {
		ok, err := l.rl.AcquireCtx(ctx)
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return err
			}
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (l goZeroLock) Unlock(ctx context.Context) error {
	_, err := l.rl.ReleaseCtx(ctx)
	return err
}

func (l goZeroLock) Extend(ctx context.Context) error {
	ok, err := l.rl.AcquireCtx(ctx)
	if err == nil && !ok {
		err = errors.New("go-zero: the key is not ours")
	}
	return err
}

// goZeroRefused is why go-zero's histories can differ between runs of one
// case, in one process or across processes.
const goZeroRefused = "go-zero builds its go-redis client with MinIdleConns 8 and adds hooks (Env.Hook) only after redis.NewClient returns, " +
	"while go-redis's pool starts its idle dials from goroutines inside NewClient: whether each of them dials before or after the hook is added is the Go scheduler's choice " +
	"(before, it uses go-redis's own dialer and fails at once on Env.Addr's port; after, it dials through the simulation), so the number and timing of the simulated dials vary " +
	"(measured with a plain go-redis v9.23 client built the same way: 5 to 7 distinct histories in 40 runs of one case in one process; with MinIdleConns 0, one)"

func goZeroSpec() model.Spec {
	return model.Spec{Design: DesignPrefix + "go-zero",
		Workload: model.Workload{Cycles: 2, Work: 300 * time.Millisecond, Start: 10 * time.Millisecond}}
}

// go-zero's lock, building and caching its own clients, is judged: with
// no faults two runs in one Go process hold (each process of each run
// gets a fresh client, whose commands all go through the simulation), and
// go-zero's clients are closed at each run's end; a pause of the holder
// past its key's expiry (1s TTL: PX 1500) breaks it, as it breaks every
// TTL lock without a validity check (go-zero offers none). The two runs'
// histories may differ (goZeroRefused).
func TestGoZeroLockJudged(t *testing.T) {
	closed := goZeroClosed.Load()
	for i := 0; i < 2; i++ {
		r, err := Run(t, locksim.Case{Spec: goZeroSpec(), Seed: 1}, newGoZero())
		if err != nil {
			t.Fatal(err)
		}
		if r.Err != nil || len(r.Violations) > 0 {
			t.Fatalf("run %d, no faults: run error %v, violations %v", i, r.Err, r.Violations)
		}
		if keys, _ := acquiredKeys(r.History); len(keys) != 4 {
			n := len(keys)
			t.Errorf("run %d: %d acquisitions in the history, want two cycles of two clients", i, n)
		}
	}
	if n := goZeroClosed.Load() - closed; n != 4 {
		t.Errorf("%d go-zero clients closed, want one per process per run (4)", n)
	}

	s := goZeroSpec()
	s.Faults = []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 3 * time.Second, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}}
	r, err := Run(t, locksim.Case{Spec: s, Seed: 1}, newGoZero())
	if err != nil {
		t.Fatal(err)
	}
	if len(violated(r, invariant.MutualExclusion)) == 0 {
		t.Errorf("A paused 3s past its key's 1.5s: violations %v, want mutual exclusion broken", r.Violations)
	}
	if !strings.Contains(strings.Join(r.Modules, " "), "github.com/zeromicro/go-zero v1.") {
		t.Errorf("linked modules %q, want go-zero named", r.Modules)
	}
}
