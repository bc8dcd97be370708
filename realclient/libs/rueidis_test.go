package libs

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"

	"locksim"
	"locksim/model"
	. "locksim/realclient"
	"locksim/sim"
)

// rueidisLock is rueidis's rueidislock (github.com/redis/rueidis v1.0.79)
// on m1 with one key (KeyMajority 1), in RESP2 mode (AlwaysRESP2) without
// client-side caching (DisableCache: no CLIENT TRACKING), as a single
// client (ForceSingleClient: the nodes answer CLUSTER SLOTS, which would
// make rueidis build a cluster client), dialing through the simulation. The locker is closed after
// the process's last cycle (rueidis keeps background goroutines that
// would outlive the run).
type rueidisLock struct {
	l      rueidislock.Locker
	name   string
	held   context.Context // done when rueidislock lost or released the hold
	cancel context.CancelFunc
	left   int // cycles left before the locker is closed
}

func newRueidisLock(cycles int, noCache bool) Setup {
	return func(env Env) (Lock, error) {
		l, err := rueidislock.NewLocker(rueidislock.LockerOption{
			ClientOption: rueidis.ClientOption{
				InitAddress:       []string{"m1:6379"},
				AlwaysRESP2:       true,
				DisableCache:      noCache,
				ForceSingleClient: true,
				DialCtxFn: func(ctx context.Context, addr string, _ *net.Dialer, _ *tls.Config) (net.Conn, error) {
					return env.Dialer(ctx, "tcp", addr)
				},
			},
			KeyMajority:   1,
			KeyValidity:   env.TTL,
			FallbackSETPX: true,
		})
		if err != nil {
			return nil, err
		}
		return &rueidisLock{l: l, name: env.Key, left: cycles}, nil
	}
}

// Lock waits for the lock. rueidislock holds a lock for as long as the
// context given to WithContext lives (and caps the key's validity at its
// deadline), so the hold gets a context of its own, not the harness's
// acquire context, which is cancelled when Lock returns: the acquire wait
// is not bounded.
func (r *rueidisLock) Lock(context.Context) error {
	held, cancel, err := r.l.WithContext(context.Background(), r.name)
	r.held, r.cancel = held, cancel
	if err != nil {
		r.done()
	}
	return err
}

func (r *rueidisLock) Unlock(context.Context) error {
	if r.cancel != nil {
		r.cancel()
	}
	r.done()
	return nil
}

func (r *rueidisLock) done() {
	if r.left--; r.left <= 0 {
		r.l.Close()
	}
}

// rueidisSpec is one cycle per client, work longer than the 1s TTL so
// that rueidislock must extend (every TTL/2).
func rueidisSpec() model.Spec {
	return model.Spec{Design: DesignPrefix + "rueidislock",
		Workload: model.Workload{Cycles: 1, Work: 2500 * time.Millisecond, Start: 10 * time.Millisecond}}
}

// rueidislock runs in the simulation in RESP2 mode without client-side
// caching: it sends HELLO 2 (answered as Redis 7.0 does), CLIENT SETINFO,
// and takes the lock with its SET NX PX script on the key
// "rueidislock:0:lock" (its keys are <prefix>:<i>:<name>), both clients
// in turn. With client-side caching and AlwaysRESP2, NewLocker refuses at
// once ("DisableCache must be true": RESP2 carries no invalidations on the
// connection); its default mode over RESP3 is judged in
// rueidislock_test.go (TestRueidislockDefaultModeJudged).
func TestRueidislockRunsInRESP2(t *testing.T) {
	r, err := Run(t, locksim.Case{Spec: rueidisSpec(), Seed: 1}, newRueidisLock(1, true))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	took := map[string]bool{}
	for _, e := range r.History {
		if e.Kind == sim.KindExec && len(e.Args) > 3 && strings.HasPrefix(strings.ToLower(e.Args[0]), "eval") && e.Args[3] == "rueidislock:0:lock" && e.Reply == "OK" {
			took[e.Peer] = true
		}
	}
	if !took["A"] || !took["B"] {
		t.Errorf("the lock script took rueidislock:0:lock for %v, want A and B", took)
	}

	r, err = Run(t, locksim.Case{Spec: rueidisSpec(), Seed: 1}, newRueidisLock(1, false))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err == nil || !strings.Contains(r.Err.Error(), "DisableCache must be true") {
		t.Errorf("with client-side caching: run error %v, want rueidis's refusal (no RESP3)", r.Err)
	}
}

// Without faults rueidislock keeps every invariant: the checkers watch
// its own key (rueidislock:0:lock, found in the run) and the nodes' wall
// clocks count from the bubble's epoch, as the client's does, so its
// PEXPIREAT extensions keep the key. rueidislock_test.go judges it as
// shipped (three keys, PXAT).
func TestRueidislockNoFaultIsSafe(t *testing.T) {
	r, err := Run(t, locksim.Case{Spec: rueidisSpec(), Seed: 1}, newRueidisLock(1, true))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Violations) > 0 {
		t.Errorf("no faults: run error %v, violations %v", r.Err, r.Violations)
	}
}
