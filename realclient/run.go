package realclient

import (
	"context"
	"math/rand"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"

	"locksim/engine"
	"locksim/model"
	"locksim/sim"
)

// runConfig is one run's inputs besides the seed.
type runConfig struct {
	name         string
	setup        Setup
	spec         model.Spec // defaults applied
	redisOptions func(*redis.Options)
	section      CriticalSection
	caller       Caller
	onLockError  LockErrorPolicy
	seed         uint64
	interleave   Interleave
	lockKeys     string // WithLockKeys's pattern
	keyQuorum    int    // WithKeyQuorum
	valueArg     int    // WithValueArg
	goroutines   int    // WithGoroutines
	all          bool   // every violation, uncapped (Risk counts them all)
	// steps, if set, receives for each event of the history the number
	// of the governor's calls into the world so far (exhaustive mode's
	// point boundaries: events of one call are one moment).
	steps *[]int
}

// placeholder stands in for the design when the spec's simulation config
// is built: the clients' programs are the real client, not a model.Design.
type placeholder struct{ name string }

func (p placeholder) Name() string { return p.name }
func (placeholder) TryAcquire(*model.Client, string) (model.Lease, bool, error) {
	panic("realclient: placeholder design run")
}
func (placeholder) Release(*model.Client, *model.Lease) error {
	panic("realclient: placeholder design run")
}

// DesignPrefix starts the design name of a real client's runs and cases:
// "real:" + the name given with WithName.
const DesignPrefix = engine.RealClientPrefix

// validate refuses what one bubble cannot simulate: a client's own clock
// (all client goroutines share the bubble's clock).
func validate(s model.Spec) error {
	if s.Options.AcquireBound < 0 {
		return errors.Errorf("acquire bound %v (WithAcquireBound): want a positive duration", s.Options.AcquireBound)
	}
	for _, name := range sortedKeys(s.Topology.ClientClocks) {
		return errors.Errorf("client %s has its own clock, but a real client runs on the one clock of its synctest bubble: per-client clock skew, drift and jumps cannot be simulated (node clocks can)", name)
	}
	clients := map[string]bool{}
	for _, c := range s.Clients {
		clients[c] = true
	}
	for i, f := range s.Faults {
		if (f.Kind == sim.FaultClockJump || f.Kind == sim.FaultClockDrift) && clients[f.Target] {
			return errors.Errorf("faults[%d] %s: a real client runs on the one clock of its synctest bubble: per-client clock skew, drift and jumps cannot be simulated (node clocks can)", i, f)
		}
	}
	return nil
}

// simConfig builds the world's configuration: the spec's topology,
// network, faults and resource, with every client external.
func simConfig(s model.Spec, name string) (sim.Config, error) {
	if err := validate(s); err != nil {
		return sim.Config{}, err
	}
	s.Custom = placeholder{name}
	cfg, err := s.Config()
	if err != nil {
		return sim.Config{}, err
	}
	for i := range cfg.Clients {
		cfg.Clients[i].Main = nil
		cfg.Clients[i].External = true
	}
	// One wall clock: the nodes count from the instant the clients'
	// clock (the bubble's) starts at, so that a library's absolute times
	// (PEXPIREAT, SET PXAT, a time-based lock value) mean on the nodes
	// what they mean on the client, as against real Redis.
	cfg.Epoch = BubbleEpoch
	// The nodes speak RESP3 and serve client-side-caching invalidations,
	// as Redis 7.0 does (sim/tracking.go).
	cfg.RESP3 = true
	return cfg, nil
}

// BubbleEpoch is the instant a testing/synctest bubble's clock starts at
// (midnight UTC, 2000-01-01): true time zero of a real client's run, on
// the clients' clock and, before node clock faults, on the nodes' wall
// clocks.
var BubbleEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// quietLogger drops go-redis's log lines (a dial that failed under a fault
// is the point of the run, not news).
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// runOnce runs the real client once under spec and seed. It must not run
// in parallel with another test: it seeds crypto/rand and math/rand, which
// are global. The error is for a spec that cannot run; a run that stopped
// early (a limit, a setup error) has Result.Err set.
func runOnce(t *testing.T, rc runConfig) (*model.Result, error) {
	t.Helper()
	if err := validateGoroutines(rc.spec, rc.goroutines); err != nil {
		return nil, err
	}
	cfg, err := simConfig(rc.spec, rc.name)
	if err != nil {
		return nil, err
	}
	// The clients the world runs and the checkers judge: the processes,
	// or with WithGoroutines their goroutines (goroutines.go).
	splitProcesses(&cfg, rc.goroutines)
	judged := rc.spec
	judged.Clients = expandGoroutines(rc.spec.Clients, rc.goroutines)
	var d *driver
	if rc.steps != nil {
		// On the governor's goroutine, in the world's call.
		cfg.Observe = func(*sim.World, sim.Event) { *rc.steps = append(*rc.steps, d.worldCalls) }
	}
	w, err := sim.New(cfg, rc.seed)
	if err != nil {
		return nil, err
	}
	redis.SetLogger(quietLogger{})
	// math/rand's global Seed is a no-op unless randseednop=0 (Go 1.24+);
	// t.Setenv also refuses a parallel test, as the global seeding must.
	if g := os.Getenv("GODEBUG"); !strings.Contains(g, "randseednop=0") {
		t.Setenv("GODEBUG", strings.TrimPrefix(g+",randseednop=0", ","))
	}
	// Goroutine dumps name each goroutine's process (its pprof label, set
	// in launch and inherited by the library's goroutines): stuck.go.
	if g := os.Getenv("GODEBUG"); !strings.Contains(g, "tracebacklabels=1") {
		t.Setenv("GODEBUG", g+",tracebacklabels=1")
	}
	if poolsDirty.Load() {
		clearPools()
		poolsDirty.Store(false)
	}
	proxy := newWorldProxy()
	d = newDriver(proxy, w, cfg)
	d.pick = newPicker(rc.interleave, rc.seed)
	d.keyPattern = rc.lockKeys
	d.valueArg = rc.valueArg
	d.goroutines = rc.goroutines
	var notesMu sync.Mutex
	var notes []string
	var epochErr, deadlock error
	var sites []string
	runBubble := func(bt *testing.T) {
		if now := time.Now(); !now.Equal(BubbleEpoch) {
			// The nodes were given BubbleEpoch: a Go whose bubbles start
			// elsewhere would put the two clocks apart.
			epochErr = errors.Errorf("the synctest bubble's clock starts at %s, not at %s: the nodes' wall clocks would not match the clients'", now.UTC().Format(time.RFC3339), BubbleEpoch.Format(time.RFC3339))
			return
		}
		// The libraries' lock values (crypto/rand) and retry jitter
		// (math/rand: redsync's retry delay, go-redis's backoff).
		cryptotest.SetGlobalRandom(bt, rc.seed)
		rand.Seed(int64(rc.seed)) //nolint:staticcheck // seeded on purpose, see above
		d.launch = func(p *xproc) {
			d.running++
			go func() {
				p.labelAs() // its process's name, and the id attribution reads (shareconn.go)
				note := p.program(&rc)
				if strings.HasPrefix(note, "setup") || strings.HasPrefix(note, "critical section") || strings.HasPrefix(note, "the lock gave") || strings.HasPrefix(note, "stopped") {
					notesMu.Lock()
					notes = append(notes, p.name+": "+note)
					notesMu.Unlock()
				}
				p.exit(note)
			}()
		}
		d.run(func() {
			for i, name := range judged.Clients {
				p := newXproc(d, name, i, lockKeyName)
				d.procs = append(d.procs, p)
				d.byName[name] = p
				d.launch(p)
				synctest.Wait() // start the programs one at a time
			}
		})
	}
	// The bubble runs on a goroutine of its own, watched from here: a run
	// whose virtual time stands still for StuckAfter of wall time (a
	// goroutine waiting on a sync.Mutex is not durably blocked, so the
	// governor's synctest.Wait never returns) is given up as stuck.
	bubbleDone := make(chan struct{})
	var bubbleID atomic.Int64
	go func() {
		defer close(bubbleDone)
		// A bubble that cannot end (goroutines blocked for good) makes
		// synctest panic: refuse the run instead (stuck.go).
		defer func() {
			if v := recover(); v != nil {
				if deadlock = asDeadlock(v); deadlock == nil {
					panic(v)
				}
				sites = blockedIn(int(bubbleID.Load()))
			}
		}()
		synctest.Test(t, func(bt *testing.T) { bubbleID.Store(int64(currentBubble())); runBubble(bt) })
	}()
	if stuckSites := watch(bubbleDone, &d.progress, func() int { return int(bubbleID.Load()) }); stuckSites != nil {
		// Given up: the bubble's goroutines stay blocked for good; the
		// world gives what it recorded, and nothing reaches it again.
		poolsDirty.Store(true)
		var h sim.History
		var outs []sim.FaultOutcome
		proxy.last(func() { h, _ = w.Finish(); outs = w.FaultOutcomes() })
		return &model.Result{Spec: rc.spec, Seed: rc.seed, History: h, Err: mutexStuck(stuckSites), FaultOutcomes: outs, Modules: d.modules.list()}, nil
	}
	if epochErr != nil {
		return nil, epochErr
	}
	if d.poolTimers.Load() || deadlock != nil {
		poolsDirty.Store(true)
	}
	if d.refusal != nil {
		return nil, d.refusal
	}
	var h sim.History
	var runErr error
	var outs []sim.FaultOutcome
	proxy.do(func() { h, runErr = w.Finish(); outs = w.FaultOutcomes() })
	if runErr == nil && len(notes) > 0 {
		runErr = errors.New("" + strings.Join(notes, "; "))
	}
	if deadlock != nil {
		stuck, err := deadlockOutcome(deadlock, h, sites)
		if err != nil {
			return nil, err
		}
		runErr = stuck // the history so far is judged, and the run is stuck
	}
	keys, err := discoverKeys(h, &rc, d.acqs.notes, lockKeyName)
	if err != nil {
		return nil, err
	}
	rewriteKeys(h, keys, lockKeyName, judged.Clients)
	renameValues(h, judged.Clients, d.sentValues)
	plainAddrs(h, d.procs)
	return &model.Result{Spec: rc.spec, Seed: rc.seed, History: h, Violations: verdict(h, judged, keys, rc.all), Err: runErr, FaultOutcomes: outs, Modules: d.modules.list()}, nil
}

// lockKeyName is Env.Key: the lock's name, and the key client events
// name until the run's lock keys are found (keys.go).
const lockKeyName = "lock"

// poolsDirty says sync.Pools may hold a timer made outside the next run's
// bubble: at first (any code may have used go-redis before), then after a
// run in which a go-redis pool may have waited for a turn.
var poolsDirty atomic.Bool

func init() { poolsDirty.Store(true) }

// clearPools empties every sync.Pool in the process, by two garbage
// collections (a pool's objects survive one in its victim cache). go-redis
// pools the timers of its connection-pool semaphore process-wide: a timer
// made in one run's bubble and reused in the next one's is a fatal error
// ("select on synctest channel from outside bubble"), and one made outside
// any bubble would tie a bubble's progress to real time.
func clearPools() {
	runtime.GC()
	runtime.GC()
}
