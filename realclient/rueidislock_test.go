package realclient

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// rueidislockAsShipped is rueidislock (github.com/redis/rueidis) with its
// own defaults: three keys rueidislock:<i>:<name> on m1 of which a lock
// needs two (KeyMajority 2), SET NX PXAT at the client's clock, extension
// by PEXPIREAT every KeyValidity/2; client-side caching off
// (DisableCache: the nodes push no invalidations, so waiters poll every
// TryNextAfter), as one client (ForceSingleClient: the nodes answer
// CLUSTER SLOTS). trap passes Lock's context to WithContext, as a caller
// who does not know the hold lasts only as long as that context does.
// retryDelay, if set, replaces rueidis's retry delay, whose jitter comes
// from math/rand/v2, which nothing can seed.
func rueidislockAsShipped(cycles int, trap bool, retryDelay rueidis.RetryDelayFn) Setup {
	return func(env Env) (Lock, error) {
		l, err := rueidislock.NewLocker(rueidislock.LockerOption{
			ClientOption: rueidis.ClientOption{
				InitAddress:       []string{"m1:6379"},
				DisableCache:      true,
				ForceSingleClient: true,
				RetryDelay:        retryDelay,
				DialCtxFn: func(ctx context.Context, addr string, _ *net.Dialer, _ *tls.Config) (net.Conn, error) {
					return env.Dialer(ctx, "tcp", addr)
				},
			},
			KeyValidity: env.TTL,
			// Each command waits for its turn (Env.Turn): rueidislock
			// releases its three keys from three goroutines woken at once.
			ClientBuilder: func(o rueidis.ClientOption) (rueidis.Client, error) {
				c, err := rueidis.NewClient(o)
				return turnClient{Client: c, env: env}, err
			},
		})
		if err != nil {
			return nil, err
		}
		return &shippedRueidislock{rueidisLock: rueidisLock{l: l, name: env.Key, left: cycles}, trap: trap}, nil
	}
}

// turnClient is a rueidis.Client whose commands wait for their turn
// (Env.Turn) before they go.
type turnClient struct {
	rueidis.Client
	env Env
}

func (c turnClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	c.env.Turn("m1", cmd.Commands()...)
	return c.Client.Do(ctx, cmd)
}

func (c turnClient) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	var args []string
	for _, cmd := range cmds {
		args = append(args, cmd.Commands()...)
	}
	c.env.Turn("m1", args...)
	return c.Client.DoMulti(ctx, cmds...)
}

type shippedRueidislock struct {
	rueidisLock
	trap bool
}

func (r *shippedRueidislock) Lock(ctx context.Context) error {
	if !r.trap {
		return r.rueidisLock.Lock(ctx)
	}
	// The trap: the hold ends when ctx does (the harness cancels it when
	// Lock returns).
	held, cancel, err := r.l.WithContext(ctx, r.name)
	r.held, r.cancel = held, cancel
	if err != nil {
		r.done()
	}
	return err
}

// rueidislock as shipped (its three keys, PXAT and PEXPIREAT on the
// client's clock), with client-side caching off, is judged: with no
// faults it holds, its keys are found (rueidislock:<i>:lock, a lock on
// two of three), and a pause of its holder past its validity breaks it.
// Passing Lock's context to WithContext (the trap) breaks it with no
// faults at all: the hold ends when Lock returns.
func TestRueidislockJudged(t *testing.T) {
	r, err := Run(t, locksim.Case{Spec: rueidisSpec(), Seed: 1}, rueidislockAsShipped(1, false, nil))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Violations) > 0 {
		t.Fatalf("no faults: run error %v, violations %v", r.Err, r.Violations)
	}
	keys, grants := acquiredKeys(r.History)
	if len(keys) != 2 || keys[0] != "rueidislock:0:lock" || len(grants) < 4 {
		t.Errorf("acquired keys %q grants %q, want rueidislock:0:lock and two grants or more each", keys, grants)
	}
	if got := historyLockKeys(r.History); strings.Join(got, " ") != "rueidislock:0:lock rueidislock:1:lock rueidislock:2:lock" {
		t.Errorf("lock keys %q, want rueidislock's three", got)
	}

	s := rueidisSpec()
	s.Faults = []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 3 * time.Second, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}}
	r, err = Run(t, locksim.Case{Spec: s, Seed: 1}, rueidislockAsShipped(1, false, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(violated(r, invariant.MutualExclusion)) == 0 {
		t.Errorf("A paused 3s past its 1s validity: violations %v, want mutual exclusion broken", r.Violations)
	}

	r, err = Run(t, locksim.Case{Spec: rueidisSpec(), Seed: 1}, rueidislockAsShipped(1, true, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(violated(r, invariant.MutualExclusion)) == 0 {
		t.Errorf("the context trap, no faults: violations %v, want mutual exclusion broken (the hold ends with Lock's context)", r.Violations)
	}
}

// In its default mode rueidislock needs RESP3 and client-tracking
// invalidations, which the nodes do not serve: the run is refused with
// the reason.
func TestRueidislockDefaultModeRefused(t *testing.T) {
	r, err := Run(t, locksim.Case{Spec: rueidisSpec(), Seed: 1}, func(env Env) (Lock, error) {
		l, err := rueidislock.NewLocker(rueidislock.LockerOption{
			ClientOption: rueidis.ClientOption{
				InitAddress:       []string{"m1:6379"},
				ForceSingleClient: true,
				DialCtxFn: func(ctx context.Context, addr string, _ *net.Dialer, _ *tls.Config) (net.Conn, error) {
					return env.Dialer(ctx, "tcp", addr)
				},
			},
			KeyValidity: env.TTL,
		})
		if err != nil {
			return nil, err
		}
		return &rueidisLock{l: l, name: env.Key, left: 1}, nil
	})
	var why string
	switch {
	case err != nil:
		why = err.Error()
	case r.Err != nil:
		why = r.Err.Error()
	}
	if !strings.Contains(why, "RESP2 only") || !strings.Contains(why, "invalidations") {
		t.Errorf("client-side caching on: error %q, want the run refused as the nodes serve no RESP3 invalidations", why)
	}
}

// xprocEnv runs TestDeterminismAcrossProcesses's child: the history hash
// of one library's run, printed for the parent.
const xprocEnv = "REALCLIENT_XPROC_LIB"

// xprocLibs are the libraries the cross-process determinism test runs:
// the history of a run under faults must be the same in every process
// (fresh crypto/rand, math/rand, math/rand/v2, maps), or the library is
// listed with why not (refused).
var xprocLibs = map[string]struct {
	setup Setup
	spec  func() model.Spec
	// refused says why histories differ across processes; the test then
	// shows the first difference instead of requiring one hash.
	refused string
}{
	"twin":    {setup: newTwin(twinBugs{}), spec: func() model.Spec { return faultySpec("twin", 1) }},
	"keylock": {setup: newKeyLock(keyLock{keys: quorumKeys, need: 2}), spec: func() model.Spec { return faultySpec("keylock", 1) }},
	"rueidislock": {setup: rueidislockAsShipped(3, false, func(attempts int, _ rueidis.Completed, _ error) time.Duration {
		return time.Duration(attempts) * 10 * time.Millisecond
	}), spec: func() model.Spec { return faultySpec("rueidislock", 1) }},
	// rueidis's own retry delay: its jitter comes from math/rand/v2,
	// which nothing can seed, and a retried command (a lost reply breaks
	// the connection) then waits a different time in every process.
	"rueidislock-jitter": {setup: rueidislockAsShipped(3, false, nil), spec: func() model.Spec {
		s := faultySpec("rueidislock", 1)
		s.Faults = []sim.Fault{{Kind: sim.FaultDrop, From: "r1", To: "A", Count: 1, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}}
		return s
	}, refused: "rueidis draws its retry jitter from math/rand/v2, which nothing can seed: set ClientOption.RetryDelay"},
}

// TestDeterminismAcrossProcesses runs each library's run under faults
// in three fresh processes (this test binary, run again) and wants one
// history hash: lock values are renamed in order of first use, so a
// library's own random values do not count; what still differs (a
// library's unseedable jitter) is shown, for the libraries listed as
// refused.
func TestDeterminismAcrossProcesses(t *testing.T) {
	if name := os.Getenv(xprocEnv); name != "" {
		lib := xprocLibs[name]
		r, err := Run(t, locksim.Case{Spec: lib.spec(), Seed: 7}, lib.setup)
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("HASH " + r.History.Hash() + "\n")
		for _, e := range r.History {
			os.Stdout.WriteString("EVENT " + e.Line() + "\n")
		}
		return
	}
	for _, name := range sortedKeys(xprocLibs) {
		lib := xprocLibs[name]
		// A refused library runs until its histories differ (its jitter
		// has few values: two processes may draw the same), at most 10.
		procs := 3
		if lib.refused != "" {
			procs = 10
		}
		var hashes []string
		var lines [][]string
		for i := 0; i < procs; i++ {
			cmd := exec.Command(os.Args[0], "-test.run=^TestDeterminismAcrossProcesses$", "-test.count=1")
			cmd.Env = append(os.Environ(), xprocEnv+"="+name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: process %d: %v\n%s", name, i, err, out)
			}
			var hash string
			var evs []string
			for _, l := range strings.Split(string(out), "\n") {
				if h, ok := strings.CutPrefix(l, "HASH "); ok {
					hash = h
				} else if e, ok := strings.CutPrefix(l, "EVENT "); ok {
					evs = append(evs, e)
				}
			}
			if hash == "" {
				t.Fatalf("%s: process %d printed no hash:\n%s", name, i, out)
			}
			hashes, lines = append(hashes, hash), append(lines, evs)
			if lib.refused != "" && hash != hashes[0] {
				break
			}
		}
		same := !slices.ContainsFunc(hashes, func(h string) bool { return h != hashes[0] })
		switch {
		case lib.refused == "" && !same:
			t.Errorf("%s: %d processes gave hashes %v, want one; first difference:\n%s", name, procs, hashes, firstLineDiff(lines))
		case lib.refused != "" && same:
			t.Logf("%s: %d processes gave one history this time, though %s", name, procs, lib.refused)
		case lib.refused != "":
			t.Logf("%s: not reproducible across processes (%s); first difference:\n%s", name, lib.refused, firstLineDiff(lines))
		}
	}
}

func firstLineDiff(runs [][]string) string {
	for j := 1; j < len(runs); j++ {
		a, b := runs[0], runs[j]
		for i := 0; i < min(len(a), len(b)); i++ {
			if a[i] != b[i] {
				return "  event " + strconv.Itoa(i) + ":\n  " + a[i] + "\n  " + b[i]
			}
		}
		if len(a) != len(b) {
			return "  one history is a prefix of the other"
		}
	}
	return "  (none)"
}
