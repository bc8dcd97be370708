package realclient

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"

	"locksim/sim"
)

// Libraries that build their own clients (go-zero's redis lock builds a
// go-redis client from an address and caches it process-wide by that
// address: in one Go process, the simulated processes would share it).
// Three things let such a library run in the simulation:
// Env.Hook, a go-redis hook to give it (go-zero: redis.WithHook) whose
// dial hook dials through the simulation and whose process hooks wait for
// the governor's turn; Env.Addr, an address of the process's own, so that
// a client cached by another process or an earlier run (whose connections
// and timers belong to that run's bubble) is never reused; and Env.CloseAtExit, to close the
// run's clients when the process's program ends. A lock whose Lock
// succeeds without one command through the simulation (a library that
// dialed a real address, or answered from memory) is refused, naming the
// construction it needs.

// Hook returns a go-redis hook for a client your library builds itself
// for group ("m1"): its dial hook dials through the simulated network,
// whatever the client's own address and dialer, and its process hooks
// wait for the process's turn, as the harness's own clients do. Give it to
// the library (go-zero: redis.New(env.Addr("m1"), redis.WithHook(env.Hook("m1")))).
// Set the client's maintenance notifications off if the library lets you
// (Options.MaintNotificationsConfig: Mode disabled, and up to go-redis
// v9.22 also EndpointType none, or the endpoint type is detected anyway):
// their auto mode does a real DNS lookup, which a synctest bubble
// cannot survive (the process dies: "send on synctest channel from
// outside bubble"). A library that builds its client without letting you
// set them may make that lookup: one run shows it at once.
func (e Env) Hook(group string) redis.Hook { return simHook{gateHook{p: e.p, group: group}} }

type simHook struct{ gateHook }

func (h simHook) DialHook(redis.DialHook) redis.DialHook {
	return func(ctx context.Context, _, addr string) (net.Conn, error) { return h.p.dial(ctx, dialHost(addr)) }
}

// runAddrs numbers the processes' own addresses (Env.Addr); addrGroups
// maps each address's host to its group while its run lasts.
var (
	runAddrs   atomic.Uint64
	addrGroups sync.Map // "10.0.0.7" -> "m1"
)

// Addr returns an address for group ("10.0.0.7:65536") that no other
// process or run in the Go process has: a library that caches its clients
// by address then builds one for this process of this run, as it would in
// its own OS process (two simulated processes share one Go process).
// Env.Dialer and Env.Hook dial it to the group; the history's texts show
// the plain address ("m1:6379").
//
// The host is a private IPv4 literal, not a name: go-redis (v9.16 on)
// classifies a client's endpoint when it builds it, and for a host name
// makes a real DNS lookup, which a synctest bubble cannot survive, unless
// the client's maintenance notifications set an endpoint type (up to
// v9.22 even when they are disabled; go-zero v1.9 leaves them in auto
// mode). The port is one no socket can have, so a dial that bypasses the
// hook fails at once, with no lookup and no packet: go-redis starts its
// MinIdleConns dials from goroutines inside NewClient, before a library
// adds the hook (go-zero does, with 8), and such a dial would otherwise
// go to the real network with the real dialer. The addresses count from
// 10.0.0.1; after 2^24 of them in one Go process they repeat.
func (e Env) Addr(group string) string {
	if a, ok := e.p.addrs[group]; ok {
		return a
	}
	n := runAddrs.Add(1) & (1<<24 - 1)
	if n == 0 {
		n = runAddrs.Add(1) & (1<<24 - 1)
	}
	host := fmt.Sprintf("10.%d.%d.%d", n>>16, n>>8&255, n&255)
	addrGroups.Store(host, group)
	if e.p.addrs == nil {
		e.p.addrs = map[string]string{}
	}
	e.p.addrs[group] = host + ":65536"
	return e.p.addrs[group]
}

// addrGroup returns the group of an address host from Env.Addr.
func addrGroup(host string) (string, bool) {
	g, ok := addrGroups.Load(host)
	if !ok {
		return "", false
	}
	return g.(string), true
}

// CloseAtExit closes c when the process's program ends (after its last
// cycle, or when the run stops it): a client your library built and
// cached, which must not outlive the run's bubble.
func (e Env) CloseAtExit(c io.Closer) { e.p.closeAtExit(c) }

// plainAddrs takes the run's own addresses (Env.Addr) out of the
// history's texts (a go-redis error names the address), so that they do
// not make two runs differ, and forgets them: the run is over.
func plainAddrs(h sim.History, procs []*xproc) {
	var pairs []string
	for _, p := range procs {
		for g, a := range p.addrs {
			pairs = append(pairs, a, g+":6379")
			host, _, _ := strings.Cut(a, ":")
			addrGroups.Delete(host)
		}
	}
	if len(pairs) == 0 {
		return
	}
	r := strings.NewReplacer(pairs...)
	for i := range h {
		e := &h[i]
		if e.Note != "" {
			e.Note = r.Replace(e.Note)
		}
		if e.Reply != "" {
			e.Reply = r.Replace(e.Reply)
		}
	}
}

// noRedisNote is the note that ends a process whose Lock succeeded
// without one command through the simulation.
func noRedisNote(client string) string {
	return "the lock gave no sign of Redis: " + client + "'s Lock returned nil without one command through the simulated network. " +
		"A library that builds its own Redis client must dial through the simulation: give it Env.Dialer (go-redis Options.Dialer), " +
		"a go-redis hook Env.Hook(group) (go-zero: redis.WithHook), or the clients of Env.Clients; one that takes none of these cannot be judged"
}

// Own hands a client of your own, built in Setup, to the harness: it is
// closed when the process's program ends (a crash, the run's end), as
// Env.Clients are, so that its goroutines end with the run; poolSize is
// its connection pool's size (0 for 10), which tells the harness when the
// client may wait on a timer of a process-wide pool. Call it from Setup.
// (Env.CloseAtExit is Own for a client whose pool the harness need not
// know.)
func (e Env) Own(c io.Closer, poolSize int) {
	e.p.notePoolSize(poolSize)
	e.p.closeAtExit(c)
}

// Sleep waits d of the process's time as a governed sleep: the governor
// wakes it in its turn, and after the process's pause if it is paused
// then (never, for a crashed incarnation, until the run ends). A client
// of another runtime whose timers the harness drives (package
// realclient/node: a Node.js process's next timer) waits with it; Go code
// sleeps with time.Sleep or its library's timers.
func (e Env) Sleep(d time.Duration) { e.p.sleep(d) }

// Stop is an error a Lock's Lock or Unlock returns to stop the process
// and the run with it (Result.Err), when the client process itself failed
// rather than the lock: package realclient/node returns it for a Node
// process that crashed, passed a limit or used an input the simulation
// does not control. Any other error from Lock is a lock not taken.
type Stop struct{ Err error }

func (s *Stop) Error() string { return s.Err.Error() }
func (s *Stop) Unwrap() error { return s.Err }

// stopNote is the process's end note for a Stop error.
func stopNote(err error) (string, bool) {
	var s *Stop
	if err != nil && errors.As(err, &s) {
		return "stopped: " + s.Err.Error(), true
	}
	return "", false
}
