package realclient

import (
	"context"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"locksim/sim"
)

// dialHost returns the simulated endpoint of a go-redis address
// ("m1:6379" -> "m1"; a process's own address, Env.Addr's "10.0.0.3:6379", -> its group).
func dialHost(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		addr = addr[:i]
	}
	if g, ok := addrGroup(addr); ok {
		return g
	}
	return addr
}

var _ io.Closer = (*redis.Client)(nil)

// Lock is one client process's handle on the lock under test, built by a
// Setup from that process's Redis clients. The workload calls Lock, runs
// its critical section if it returned nil, then Unlock, once per cycle.
// A Lock may also implement Extender, Fencer, Validity and Valuer.
type Lock interface {
	// Lock takes the lock; nil means held. ctx carries the acquire wait
	// (model.Options.AcquireWait) as its deadline.
	Lock(ctx context.Context) error
	// Unlock gives it back. ctx has no deadline, as in most callers.
	Unlock(ctx context.Context) error
}

// Extender is a Lock whose lease can be extended (redsync's Extend,
// redislock's Refresh). With model.Options.Extend the workload runs a
// watchdog that calls Extend every Options.RenewEvery while it holds the
// lock, and stops at the first error.
type Extender interface {
	Extend(ctx context.Context) error
}

// Fencer is a Lock with a fencing token for its current hold: the
// workload sends it with its reads and writes to the resource.
type Fencer interface {
	Token() int64
}

// Validity is a Lock that knows until when its hold is valid (redsync's
// Mutex.Until): the workload records what is left of it when it acquires
// and after each extension (spent, when it has already passed), and the
// default caller (CallerValidity) asks it right before each write and does
// not write once it has passed.
type Validity interface {
	Until() time.Time
}

// Valuer is a Lock that says which value it wrote to the key. The
// workload reads the value from the commands the library sent (the
// argument after the lock key of a SET or an EVAL/EVALSHA); Valuer is
// asked only when none of them carried one.
type Valuer interface {
	Value() string
}

// Env is what a Setup gets to build one process's lock.
type Env struct {
	// Clients has one go-redis client per independent master, m1..mN,
	// each dialing through the simulated network: the goroutine's own
	// (with WithGoroutines, SharedClients gives ones the process's
	// goroutines share).
	Clients []*redis.Client
	// Key is the lock's name ("lock"): use it as the key or as the name
	// the library builds its keys from. The checkers watch the keys the
	// lock's commands write its value to, whatever their names
	// (WithLockKeys where that is ambiguous).
	Key string
	// TTL is the lease the run is about (model.Options.TTL); give it to
	// the library.
	TTL time.Duration
	// Client is the client's name: the process's ("A"), or with
	// WithGoroutines the goroutine's ("A.2").
	Client string
	// Process is the process's name ("A"), and Goroutine the goroutine's
	// number in it from 1 (WithGoroutines; 0 when each process runs one
	// workload goroutine).
	Process   string
	Goroutine int
	// Rand is a generator seeded from the run and the process, for a
	// library option that takes one (the libraries' own crypto/rand and
	// math/rand draws are seeded by the run as well).
	Rand *rand.Rand
	// Dialer dials through the simulated network, for go-redis clients of
	// your own (Options.Dialer): "m1:6379" reaches the primary the process
	// believes in for group m1, "r1:6379" node r1, "sentinel:26379" the
	// sentinel. Prefer NewFailoverClient and Clients, which also set the
	// options a deterministic run needs and are closed at the end.
	Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

	p  *xproc
	rc *runConfig
}

// Turn waits for the process's turn before a command of a client the
// harness did not build goes out (the harness's own go-redis clients do
// this in a hook). Call it first thing in your client's command path
// (rueidis: a rueidis.Client wrapper's Do and DoMulti, through
// rueidislock's LockerOption.ClientBuilder), with the group the client
// talks to ("m1") and the command: goroutines of one process woken
// together (a library's goroutine per key, each releasing at once) then go
// one at a time in an order the governor fixes, not the Go scheduler.
//
// It also records the calling stack's modules (Result.Modules), so a
// client of your own (an older go-redis, rueidis) names the library
// versions it ran. Call it only from the process's own goroutines.
func (e Env) Turn(group string, args ...string) {
	e.p.d.modules.note()
	e.p.turn(group, args)
}

// SentinelAddr is the address of the simulated sentinel.
const SentinelAddr = sim.SentinelName + ":26379"

// NewFailoverClient returns go-redis's own Sentinel client
// (redis.NewFailoverClient) for the group master ("m1"): it asks the
// simulated sentinel for the primary, subscribes to +switch-master, and
// moves to the promoted replica after a failover, as it would in
// production. tweak, if non-nil, changes the options first (timeouts,
// retries); leave Dialer, SentinelAddrs and MasterName. The client is
// closed when the process's program ends.
func (e Env) NewFailoverClient(master string, tweak func(*redis.FailoverOptions)) *redis.Client {
	opt := &redis.FailoverOptions{
		MasterName:    master,
		SentinelAddrs: []string{SentinelAddr},
		Dialer:        e.Dialer,
		PoolSize:      10, // not 10 x GOMAXPROCS: a run must not depend on the machine
	}
	if tweak != nil {
		tweak(opt)
	}
	e.p.notePoolSize(opt.PoolSize)
	c := redis.NewFailoverClient(opt)
	c.AddHook(gateHook{p: e.p, group: master})
	e.p.closeAtExit(c)
	return c
}

// Setup builds a process's lock. It runs inside the simulation, once per
// client process, before the process's first cycle; an error stops the
// run.
type Setup func(env Env) (Lock, error)
