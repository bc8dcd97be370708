package realclient

import (
	"context"
	"net"
	"strings"
	"testing"

	goredislib "github.com/redis/go-redis/v9"

	"locksim"
)

// ownClients is a library's process-wide cache of the clients it builds
// itself, by address (go-zero's redis does this).
var ownClients = map[string]*goredislib.Client{}

// ownClient is how such a library builds a client: from an address and
// its own options, plus the hook its user may give it.
func ownClient(addr string, hook goredislib.Hook) *goredislib.Client {
	if c, ok := ownClients[addr]; ok {
		return c
	}
	// Maintenance notifications left in their default (auto) mode, as
	// go-zero v1.9 leaves them: go-redis classifies the endpoint from the
	// address when it builds the client (a DNS lookup for a host name).
	c := goredislib.NewClient(&goredislib.Options{Addr: addr, PoolSize: 10})
	if hook != nil {
		c.AddHook(hook)
	}
	ownClients[addr] = c
	return c
}

// A library that builds and caches its own go-redis client runs through
// Env.Hook (a dial hook into the simulation and the harness's turns) on
// an address of the process's own (Env.Addr), closed at the end
// (Env.CloseAtExit): each process of two runs in one Go process gets a
// fresh client; the runs hold with no faults and give one history.
func TestOwnClientThroughHook(t *testing.T) {
	clear(ownClients)
	var direct []string
	setup := func(env Env) (Lock, error) {
		// A dial that bypasses the hook (go-redis's own dialer, as a pool
		// goroutine started before the library adds the hook uses) fails
		// at once: no lookup, no packet to the real network.
		if _, err := (&net.Dialer{}).DialContext(context.Background(), "tcp", env.Addr("m1")); err != nil {
			direct = append(direct, err.Error())
		}
		c := ownClient(env.Addr("m1"), env.Hook("m1"))
		env.CloseAtExit(c)
		return &twinLock{c: c, key: env.Key, name: env.Client, ttl: env.TTL}, nil
	}
	var hashes []string
	for i := 0; i < 2; i++ {
		r, err := Run(t, locksim.Case{Spec: keySpec("own-client"), Seed: 3}, setup)
		if err != nil {
			t.Fatal(err)
		}
		if r.Err != nil || len(r.Violations) > 0 {
			t.Fatalf("run %d, no faults: run error %v, violations %v", i, r.Err, r.Violations)
		}
		hashes = append(hashes, r.History.Hash())
	}
	if hashes[0] != hashes[1] {
		t.Errorf("two runs in one process: hashes %v, want one", hashes)
	}
	if len(direct) != 4 || !strings.Contains(direct[0], "invalid port") {
		t.Errorf("direct dials of Env.Addr: %q, want four failed at once (invalid port)", direct)
	}
	if len(ownClients) != 4 {
		t.Errorf("the library built %d clients, want one per process per run (Env.Addr is the process's own)", len(ownClients))
	}
}

// A lock that says it holds without one command reaching the simulated
// nodes (a library that built a client the harness cannot reach, or
// answered from memory) is refused, naming the constructions it needs.
func TestLockWithoutRedisIsRefused(t *testing.T) {
	r, err := Run(t, locksim.Case{Spec: keySpec("no-redis"), Seed: 1}, func(env Env) (Lock, error) { return memoryLock{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if r.Err == nil || !strings.Contains(r.Err.Error(), "no sign of Redis") || !strings.Contains(r.Err.Error(), "Env.Hook") {
		t.Errorf("run error %v, want the lock refused: its Lock never reached Redis", r.Err)
	}
}

type memoryLock struct{}

func (memoryLock) Lock(context.Context) error   { return nil }
func (memoryLock) Unlock(context.Context) error { return nil }
