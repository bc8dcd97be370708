package locksim

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
	"locksim/sim/resp"
)

// The mutant zoo measures bug-finding power: each mutant removes one
// safety mechanism from a design, and is paired with its correct twin and
// the faults under which the twin is safe. Check's defaults (its default
// budget and generator, restricted to those faults) must catch every
// mutant with a schedule of at most two faults whose explanation names the
// broken mechanism, and must not flag any twin.

// mutant is one pair.
type mutant struct {
	name     string // the mechanism removed
	design   any    // the mutant: a model.Design, or a catalogue ID with options below
	twin     any    // the correct design
	opts     []Option
	mutOpts  []Option // options only the mutant gets (a mutant that is an option)
	twinOpts []Option
	// exOpts fix, for exhaustive mode (one configuration, nothing drawn),
	// a configuration that exercises the mechanism: a critical section
	// long enough for the watchdog to renew.
	exOpts []Option
	// exSkip says why exhaustive mode at depth 1 cannot tell the pair
	// apart (TestExhaustiveTellsTheZooApart skips it), "" when it can.
	exSkip    string
	mechanism string // a phrase the explanation of the mutant's failure contains
	// shortRuns, when not 0, is the pair's run count under -short in
	// place of zooShortRuns: its runs cost more than the others'.
	shortRuns int
}

// zooShortRuns is each campaign's run count under -short (make test): the
// mutant and its twin each make this many runs instead of Check's default
// engine.DefaultRuns (make long). Every mutant's first break in the log
// comes before run 200, and every twin still fires every kind and
// placement it draws from (the unfired check), so the same pairs are
// caught and held, by a quarter of the runs.
const zooShortRuns = 500

func zoo() []mutant {
	ms := time.Millisecond
	return append([]mutant{
		{name: "owner check in release (plain DEL)", design: releaseDel{}, twin: model.SetPxLua,
			opts:      []Option{WithFaults(sim.FaultPause), WithPauseAt(scenarios.PlaceRelease)},
			mechanism: "(DEL)"},
		{name: "atomic compare-and-delete (GET, then DEL)", design: model.SetPxGetdel, twin: model.SetPxLua,
			opts:      []Option{WithFaults(sim.FaultPause), WithPauseAt(scenarios.PlaceRelease)},
			mechanism: "(DEL)"},
		{name: "owner check in renew (SET XX)", design: renewSetXX{}, twin: model.Watchdog,
			opts:      []Option{WithDeadline(), WithFaults(sim.FaultDelay), WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultDelay}, Links: scenarios.LinksRedis, Swarm: true})},
			exOpts:    []Option{WithWorkload(model.Workload{Work: 1500 * ms})},
			mechanism: "replaced"},
		{name: "atomic SET with TTL (SETNX, then PEXPIRE)", design: model.SetnxExpire, twin: model.SetPxLua,
			opts:      []Option{WithFaults(sim.FaultCrash), WithPauseAt(scenarios.PlaceAcquire)},
			mechanism: "no TTL"},
		{name: "the validity check (redlock trusting its majority)", design: redlockTrusting{}, twin: model.Redlock,
			opts:      []Option{WithFaults(sim.FaultPause), WithPauseAt(scenarios.PlaceAcquire)},
			mechanism: "expired"},
		{name: "the quorum size (redlock with 2 of 5)", design: model.Redlock, twin: model.Redlock,
			opts:      []Option{WithFaults(sim.FaultPartition, sim.FaultDrop)},
			mutOpts:   []Option{WithOptions(model.Options{Quorum: 2})},
			mechanism: "both held the lock"},
		{name: "the renewal interval (every 1.2 x TTL)", design: model.Watchdog, twin: model.Watchdog,
			opts:      []Option{WithFaults()},
			mutOpts:   []Option{WithOptions(model.Options{RenewEvery: 1200 * ms})},
			exOpts:    []Option{WithWorkload(model.Workload{Work: 1500 * ms})},
			mechanism: "expired"},
		{name: "the token source (GET, then SET n+1)", design: splitToken{}, twin: model.Fenced,
			opts:      []Option{WithFaults(sim.FaultPause), WithPauseAt(scenarios.PlaceAcquire), WithFencing(model.FenceStrict), WithInvariants(invariant.TokenUnique)},
			mechanism: "granted twice"},
		{name: "strict fencing (fencing off)", design: model.Fenced, twin: model.Fenced,
			// The mutant's resource is not fenced, so fencing cannot be
			// counted for it (Check refuses it): the data decides.
			opts:      []Option{WithFaults(sim.FaultPause, sim.FaultDelay)},
			mutOpts:   []Option{WithFencing(model.FenceOff), WithInvariants(invariant.LostUpdate)},
			twinOpts:  []Option{WithFencing(model.FenceStrictReads), WithInvariants(invariant.LostUpdate)},
			mechanism: "increment was lost"},
		// wait-replica is safe under one node crash with two replicas that
		// persist: with one replica a failover leaves nobody to WAIT for
		// (liveness), and a primary restarting empty voids what WAIT said.
		// Its sections end inside the TTL: a watchdog whose renewal the
		// crashed primary refuses leaves its holder working past the lease
		// once a replica is promoted, which the twin shares (a real break
		// of every watchdog, not what this pair measures). With three
		// cycles the first break found is often a crash behind two
		// replication delays, which the shrinker cannot merge (3 faults).
		{name: "the WAIT result check", design: waitIgnored{}, twin: model.WaitReplica,
			opts: []Option{WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultNodeCrash}, MaxFaults: 1, Swarm: true}),
				WithTopology(model.Topology{Replicas: 2, Persistence: sim.PersistAlways}), WithWorkload(model.Workload{Work: 500 * ms, Cycles: 1})},
			exOpts: []Option{WithWorkload(model.Workload{Work: 500 * ms}), WithTopology(model.Topology{Replicas: 2, Persistence: sim.PersistAlways,
				Sentinel: sim.SentinelConfig{Enabled: true, DownAfter: 300 * ms}})},
			mechanism: "promoted to primary"},
		{name: "the reentrant count (release deletes on the first release)", design: reentrantNoCount{}, twin: model.ReentrantHash,
			// No workload given: check's generator nests the holds itself.
			opts:      []Option{WithFaults()},
			exOpts:    []Option{WithWorkload(model.Workload{Reentry: 1})},
			mechanism: "deleted"},
		// The mechanisms of Redisson's other locks, the version resource and
		// the lock of several locks.
		{name: "the version check (fencing off)", design: model.SetPxLua, twin: model.SetPxLua,
			opts:      []Option{WithFaults(sim.FaultPause, sim.FaultDelay), WithInvariants(invariant.LostUpdate)},
			mutOpts:   []Option{WithFencing(model.FenceOff)},
			twinOpts:  []Option{WithFencing(model.FenceVersion)},
			mechanism: "increment was lost"},
		// Redisson's lock() without a wait keeps a dead waiter's place for
		// threadWaitTime, 5 minutes: here an hour, against 300ms.
		{name: "a dead waiter's place running out (fair lock, queue wait 1h)", design: model.FairLock, twin: model.FairLock,
			opts:      []Option{WithFaults(sim.FaultCrash), WithPauseAt(scenarios.PlaceAcquire), WithInvariants(invariant.Liveness)},
			mutOpts:   []Option{WithOptions(model.Options{QueueWait: time.Hour})},
			twinOpts:  []Option{WithOptions(model.Options{QueueWait: 300 * ms})},
			exOpts:    []Option{WithWorkload(model.Workload{Cycles: 2})},
			mechanism: "crash"},
		{name: "the reader's check for a writer (read-write lock)", design: readerIgnoresWriter{}, twin: model.ReadWriteLock,
			opts:      []Option{WithFaults()},
			mechanism: "(reading)"},
		// Three keys of one instance are one failure domain.
		// The twin is Redisson's MultiLock on three masters, all needed: a
		// majority of three masters (its RedLock, --quorum 2) is not a
		// twin, as a holder with a bare majority loses it to one empty
		// restart (restart-empty), which the zoo found here too.
		{name: "keys on independent masters (three keys of one instance)", design: model.RedlockOneNode, twin: model.MultiLock,
			opts:      []Option{WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultNodeCrash}, MaxFaults: 1, Swarm: true})},
			mechanism: "restarted"},
		// Redisson's tryLock(wait, lease): the lease given, so no watchdog.
		// Both run sections longer than the TTL, which the generator draws
		// only for designs that renew.
		{name: "the watchdog (an explicit lease)", design: model.ExplicitLease, twin: model.ReentrantHash,
			opts:      []Option{WithFaults(), WithWorkload(model.Workload{Work: 1500 * ms})},
			mechanism: "expired"},
		// Redlock waiting on a silent master for a full 2 s (its per-node
		// timeout longer than the lease): with one master of five cut
		// off, every try outlasts its validity and the lock is never
		// taken, though the design tolerates a minority down.
		{name: "the per-node timeout (redlock waiting 2s on a silent master)", design: model.Redlock, twin: model.Redlock,
			opts:      []Option{WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultNodeCrash, sim.FaultPartition}, MaxFaults: 1, Swarm: true}), WithInvariants(invariant.Available)},
			mutOpts:   []Option{WithOptions(model.Options{NodeTimeout: 2 * time.Second})},
			mechanism: "only faults the design tolerates"},
		// A client given the primary's address instead of asking Sentinel
		// (a Sentinel setup's claim: a failover within its down-after):
		// after Sentinel replaces a crashed or cut-off primary it keeps
		// calling the old one and never acquires again.
		{name: "asking Sentinel for the primary (the old primary's address kept)", design: pinnedPrimary{}, twin: model.SetPxLua,
			opts: []Option{WithTopology(model.Topology{Replicas: 1}),
				WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultNodeCrash, sim.FaultPartition}, MaxFaults: 1, Swarm: true}), WithInvariants(invariant.Available)},
			mechanism: "Sentinel repairs by a failover"},
		// A renewal that moves the key's expiry from its previous expiry
		// (PTTL + the renewal interval) instead of from now: on time it
		// sets now + TTL, but every late timer (a pause, a slow reply)
		// leaves the key's expiry behind the validity the client counts
		// from its request, so the lease ends before the promise.
		{name: "renewal from now (the expiry moved from the previous expiry)", design: renewFromPrevious{}, twin: model.Watchdog,
			opts: []Option{WithDeadline(), WithFaults(sim.FaultPause, sim.FaultDelay), WithWorkload(model.Workload{Work: 1500 * ms}), WithInvariants(invariant.PrematureLoss)},
			// One late renewal (late by d) sets the key to now+TTL-d, but the
			// next renewal comes before that unless it is late too: the
			// lease ends early only after two late timers, d1+d2 above
			// TTL-interval, so no one-fault schedule shows it.
			exSkip:    "the expiry falls behind only after two late renewals (two faults)",
			mechanism: "promised the lease until"},
		// A wait between tries that sleeps a full TTL instead of the
		// backoff it is given: an acquisition whose lock stays out of
		// reach (its node down or cut off) sleeps through its deadline.
		{name: "the acquire deadline (sleeping a TTL between tries)", design: sleepsThroughDeadline{}, twin: model.SetPxLua,
			opts:      []Option{WithFaults(sim.FaultPartition, sim.FaultNodeCrash), WithInvariants(invariant.AcquireDeadline)},
			mechanism: "across the deadline"},
		// A CPU-starved watchdog (redisson#5697's stall): the holder's
		// renewals run late while its main task works on. Trusting the
		// lock until release, it writes after the key expired; with the
		// client deadline it stops at the lease's end on its own clock,
		// and a starved main task alone loses nothing, its watchdog
		// renewing on time. One fault: two starvations of one process,
		// watchdog and main, are a pause, which the deadline cannot stop
		// between its check and the write (gc-pause).
		{name: "the client deadline (a starved watchdog's holder trusting its lease)", design: model.Watchdog, twin: model.Watchdog,
			opts:      []Option{WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultStarve}, MaxFaults: 1, Swarm: true})},
			twinOpts:  []Option{WithDeadline()},
			exOpts:    []Option{WithWorkload(model.Workload{Work: 1500 * ms})},
			mechanism: "expired"},
		// Redis Cluster's atomic slot migration (Redis 8.4) holds writes
		// to the slot on its old owner for the migration's pause: a
		// watchdog renewal that lands in it times out with an unknown
		// outcome, the key expires on its new owner, and a holder that
		// trusts its lease until release writes beside the next holder.
		// With the client deadline it stops at the lease's end. One
		// fault, on a cluster only (docs/cluster.md).
		{name: "the client deadline (a renewal held by a slot migration's write pause)", design: model.Watchdog, twin: model.Watchdog,
			opts: []Option{WithTopology(model.Topology{Cluster: true, Masters: 3}),
				WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultSlotMigrate}, MaxFaults: 1, Swarm: true})},
			twinOpts:  []Option{WithDeadline()},
			exSkip:    "exhaustive mode does not place slot-migrate (an operator's resharding, left to the random search)",
			mechanism: "expired"},
		// maxmemory eviction (Redis's "Key eviction"): under memory
		// pressure from other data, allkeys-lru evicts the fencing
		// counter, idle since the last INCR, and the next INCR issues
		// token 1 again; volatile-lru takes only keys with a TTL, never
		// the counter. No fault: the eviction is the node's policy
		// (scenario evict-token-counter, docs/evict.md).
		{name: "the eviction policy (allkeys-lru evicting the token counter)", design: model.Fenced, twin: model.Fenced,
			opts: []Option{WithFaults(), WithOptions(model.Options{TTL: 5 * time.Second}), WithWorkload(model.Workload{Work: 2 * time.Second}),
				WithInvariants(invariant.TokenUnique)},
			mutOpts:   []Option{WithTopology(evictTopology(sim.AllKeysLRU))},
			twinOpts:  []Option{WithTopology(evictTopology(sim.VolatileLRU))},
			exSkip:    "eviction is the nodes' policy (a topology setting), not a fault exhaustive mode places",
			shortRuns: 100, // a node filled every 20ms: the twin's 2,000 runs take about 20 s of CPU
			mechanism: "evicted"},
		// maxmemory-policy under the memory-pressure fault: a burst of
		// other data takes a node that the lock's keys nearly fill (200
		// bytes) past its maxmemory. Under allkeys-lru the node evicts
		// the idlest keys, the fencing counter and the lock key: token 1
		// twice, two holders. Under noeviction (Redis's default) the
		// writes past the limit get OOM: the lock may wait, never break
		// (scenario memory-pressure-burst, docs/evict.md).
		{name: "the eviction policy (allkeys-lru under a burst of other data)", design: model.Fenced, twin: model.Fenced,
			opts: []Option{WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultMemoryPressure}, MaxFaults: 1, Swarm: true}),
				WithInvariants(invariant.TokenUnique, invariant.MutualExclusion)},
			mutOpts:   []Option{WithTopology(model.Topology{MaxMemory: 200, Policy: sim.AllKeysLRU})},
			twinOpts:  []Option{WithTopology(model.Topology{MaxMemory: 200, Policy: sim.NoEviction})},
			mechanism: "under memory pressure"},
		// Not a pair: the wall-clock deadline (Java's
		// System.currentTimeMillis()) against the monotonic one breaks
		// only with two faults together, a delay or pause that outlasts
		// the lease and a step back of the client's clock, so exhaustive
		// mode at depth 1 cannot tell them apart; the scenario
		// wall-clock-jump and model's TestWallClockDeadline show it.
	}, raceZoo()...)
}

// zooResult is what the zoo test and the bench table report per mutant.
type zooResult struct {
	caught, twinFlagged bool
	faults, runs        int
	fraction            float64
	firstRun            int
	mutantTime          time.Duration
	explanation         string
	// unfired names the kinds and placements the twin's check drew that
	// never fired (its warnings), "" when all fired.
	unfired string
}

// runZoo checks one pair with Check's defaults, and the extra options
// (TestMutantZoo's run count under -short) given to both.
func runZoo(t testing.TB, m mutant, extra ...Option) zooResult {
	var r zooResult
	dir := t.TempDir()
	f := &fakeTB{TB: t, name: "zoo-mutant"}
	start := time.Now() // wall-clock ok: reported, never asserted in a test
	Check(f, m.design, slices.Concat(m.opts, m.mutOpts, extra, []Option{WithCaseDir(dir)})...)
	r.mutantTime = time.Since(start)
	r.caught = f.failed
	if c, err := LoadCase(dir + "/zoo-mutant.json"); err == nil {
		r.faults = len(c.Spec.Faults)
	}
	logs := strings.Join(f.logs, "\n")
	r.explanation = logs
	if i := strings.Index(logs, " of "); i > 0 {
		var broken int
		broken, _ = strconv.Atoi(logs[strings.LastIndex(logs[:i], " ")+1 : i])
		rest := logs[i+4:]
		runs, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ' ')])
		r.runs = runs
		if runs > 0 {
			r.fraction = float64(broken) / float64(runs)
		}
		if j := strings.Index(logs, "the first was run "); j >= 0 {
			r.firstRun, _ = strconv.Atoi(strings.Fields(logs[j+len("the first was run "):])[0])
		}
	}
	g := &fakeTB{TB: t, name: "zoo-twin"}
	Check(g, m.twin, slices.Concat(m.opts, m.twinOpts, extra, []Option{WithCaseDir(t.TempDir())})...)
	r.twinFlagged = g.failed
	if g.failed {
		r.explanation += "\nTWIN:\n" + strings.Join(g.logs, "\n")
	}
	// The twin's check held: it must have fired every kind and placement
	// it drew from, or its holding says less than it seems (issue 27).
	// (harness.HeldText: report.SummaryText's "warning: " lines).
	for _, l := range g.logs {
		var ws []string
		for line := range strings.SplitSeq(l, "\n") {
			if w, ok := strings.CutPrefix(line, "warning: "); ok {
				ws = append(ws, w)
			}
		}
		if len(ws) > 0 && !g.failed {
			r.unfired = strings.Join(ws, "; warning: ")
		}
	}
	return r
}

// TestMutantZoo: 100% of the mutants caught, no twin flagged, minimal
// schedules of at most two faults naming the mechanism. Under -short
// (make test) each campaign makes zooShortRuns runs (or the pair's
// shortRuns); make long runs Check's default of engine.DefaultRuns.
func TestMutantZoo(t *testing.T) {
	for _, m := range zoo() {
		t.Run(m.name, func(t *testing.T) {
			var extra []Option
			if testing.Short() {
				extra = []Option{WithRuns(cmp.Or(m.shortRuns, zooShortRuns))}
			}
			r := runZoo(t, m, extra...)
			switch {
			case !r.caught:
				t.Errorf("mutant not caught")
			case r.faults > 2:
				t.Errorf("minimal schedule has %d faults, want at most 2", r.faults)
			case !strings.Contains(r.explanation, m.mechanism):
				t.Errorf("the explanation does not name the mechanism (%q):\n%s", m.mechanism, r.explanation)
			}
			if r.twinFlagged {
				t.Errorf("the correct twin was flagged:\n%s", r.explanation)
			}
			if r.unfired != "" {
				t.Errorf("the twin's check drew faults that never fired: %s", r.unfired)
			}
			if t.Failed() {
				t.Logf("%s", r.explanation)
				return
			}
			t.Logf("caught in %v: %.1f%% of %d runs broke, first at run %d, minimal schedule %d fault(s)",
				r.mutantTime.Round(time.Millisecond), 100*r.fraction, r.runs, r.firstRun, r.faults)
		})
	}
}

// TestExhaustiveTellsTheZooApart: exhaustive mode, at depth 1 with each
// pair's fault kinds on one configuration that exercises the mechanism,
// finds for every mutant a way it breaks (a mechanism and an invariant)
// that its correct twin does not have.
func TestExhaustiveTellsTheZooApart(t *testing.T) {
	for _, m := range zoo() {
		t.Run(m.name, func(t *testing.T) {
			if m.exSkip != "" {
				t.Skip(m.exSkip)
			}
			mut := zooExhaustive(t, m.design, slices.Concat(m.opts, m.exOpts, m.mutOpts))
			twin := zooExhaustive(t, m.twin, slices.Concat(m.opts, m.exOpts, m.twinOpts))
			only := onlyIn(mut, twin)
			if len(only) == 0 {
				t.Fatalf("no way the mutant breaks that the twin does not: %s / %s", mut.Guarantee(), twin.Guarantee())
			}
			t.Logf("%d ways only the mutant breaks, e.g. %s", len(only), only[0])
		})
	}
}

// --- the mutants ---------------------------------------------------------

const releaseLua = "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) else return 0 end"

func setNXPX(c *model.Client, value string) (model.Lease, bool, error) {
	g := c.Masters()[0]
	node := c.Primary(g)
	r, err := c.Call(g, "SET", c.Key, value, "NX", "PX", c.TTLms())
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: value, Nodes: []string{node}}, r.Kind == resp.Status && r.Str == "OK", nil
}

// releaseDel releases with a plain DEL: it deletes whoever holds the key.
type releaseDel struct{}

func (releaseDel) Name() string { return "release-del" }
func (releaseDel) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	return setNXPX(c, v)
}
func (releaseDel) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "DEL", c.Key)
	return err
}

// renewSetXX renews with SET key value XX PX: no owner check, so a late
// renewal takes the key from its new holder.
type renewSetXX struct{}

func (renewSetXX) Name() string { return "renew-set-xx" }
func (renewSetXX) Traits() model.Traits {
	return model.Traits{Renews: true}
}
func (renewSetXX) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	return setNXPX(c, v)
}
func (renewSetXX) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}
func (renewSetXX) Renew(c *model.Client, l *model.Lease) (bool, error) {
	r, err := c.Call(c.Masters()[0], "SET", c.Key, l.Value, "XX", "PX", c.TTLms())
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Status && r.Str == "OK", nil
}

// renewFromPrevious renews by compare-and-PEXPIRE with the key's
// remaining TTL plus the renewal interval, i.e. PEXPIREAT at its previous
// expiry + interval, where the correct renewal (model.Watchdog) sets the
// full TTL from now.
type renewFromPrevious struct{}

const renewFromPreviousLua = "if redis.call('GET',KEYS[1])==ARGV[1] then " +
	"return redis.call('PEXPIRE',KEYS[1],redis.call('PTTL',KEYS[1])+tonumber(ARGV[2])) else return 0 end"

func (renewFromPrevious) Name() string { return "renew-from-previous" }
func (renewFromPrevious) Traits() model.Traits {
	return model.Traits{Renews: true}
}
func (renewFromPrevious) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	return setNXPX(c, v)
}
func (renewFromPrevious) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}
func (renewFromPrevious) Renew(c *model.Client, l *model.Lease) (bool, error) {
	every := strconv.FormatInt(int64(c.Options().RenewEvery/time.Millisecond), 10)
	r, err := c.Call(c.Masters()[0], "EVAL", renewFromPreviousLua, "1", c.Key, l.Value, every)
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Int && r.Int == 1, nil
}

// sleepsThroughDeadline is set-px-lua whose wait between tries
// (model.Waiter) sleeps a full TTL, ignoring the backoff and so the time
// left before its acquire deadline.
type sleepsThroughDeadline struct{}

func (sleepsThroughDeadline) Name() string { return "sleeps-through-deadline" }
func (sleepsThroughDeadline) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	return setNXPX(c, v)
}
func (sleepsThroughDeadline) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}
func (sleepsThroughDeadline) WaitRelease(c *model.Client, _ time.Duration) { c.Sleep(c.Options().TTL) }

// pinnedPrimary is set-px-lua given the primary's address (r1) instead of
// asking Sentinel: after a failover it keeps calling the old primary, down
// or cut off, and never acquires again, though it claims to tolerate a
// failover as its twin does.
type pinnedPrimary struct{}

// pinnedNode is the address pinnedPrimary was configured with: the first
// group's first node, its primary at the start.
const pinnedNode = "r1"

func (pinnedPrimary) Name() string { return "pinned-primary" }
func (pinnedPrimary) Traits() model.Traits {
	return model.Traits{ToleratesFailover: true}
}
func (pinnedPrimary) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	r, err := c.Call(pinnedNode, "SET", c.Key, v, "NX", "PX", c.TTLms())
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{pinnedNode}}, r.Kind == resp.Status && r.Str == "OK", nil
}
func (pinnedPrimary) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(pinnedNode, "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}

// redlockTrusting takes a majority on five masters but never checks how
// long that took: it trusts the lease until it releases.
type redlockTrusting struct{}

func (redlockTrusting) Name() string { return "redlock-trusting" }
func (redlockTrusting) Traits() model.Traits {
	return model.Traits{Masters: 5, MinMasters: 3, Quorum: true}
}
func (redlockTrusting) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	o := c.Options()
	var granted []string
	for _, g := range c.Masters() {
		node := c.Primary(g)
		r, err := c.CallTimeout(g, o.NodeTimeout, "SET", c.Key, v, "NX", "PX", c.TTLms())
		if err == nil && r.Kind == resp.Status && r.Str == "OK" {
			granted = append(granted, node)
		}
	}
	if len(granted) >= o.Quorum {
		return model.Lease{Key: c.Key, Value: v, Nodes: granted}, true, nil
	}
	redlockTrusting{}.Release(c, &model.Lease{Key: c.Key, Value: v})
	return model.Lease{}, false, nil
}
func (redlockTrusting) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	for _, g := range c.Masters() {
		c.CallTimeout(g, c.Options().NodeTimeout, "EVAL", releaseLua, "1", c.Key, l.Value)
	}
	return nil
}

// splitToken draws its token in two commands, GET then SET n+1, instead
// of one INCR: two acquisitions that overlap read the same counter and get
// the same token.
type splitToken struct{}

func (splitToken) Name() string { return "split-token" }
func (splitToken) Traits() model.Traits {
	return model.Traits{Fenced: true}
}
func (splitToken) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	l, ok, err := setNXPX(c, v)
	if !ok || err != nil {
		return l, ok, err
	}
	g := c.Masters()[0]
	r, err := c.Call(g, "GET", c.TokenKey)
	if err != nil {
		return l, false, err
	}
	n, _ := strconv.ParseInt(r.Str, 10, 64) // nil: 0
	if _, err := c.Call(g, "SET", c.TokenKey, strconv.FormatInt(n+1, 10)); err != nil {
		return l, false, err
	}
	l.Token = n + 1
	return l, true, nil
}
func (splitToken) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}

// waitIgnored sends WAIT 1 but takes the lock whatever it answers.
type waitIgnored struct{}

func (waitIgnored) Name() string { return "wait-ignored" }
func (waitIgnored) Traits() model.Traits {
	return model.Traits{Replicas: 1}
}
func (waitIgnored) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	l, ok, err := setNXPX(c, v)
	if ok {
		c.CallTimeout(c.Masters()[0], 200*time.Millisecond, "WAIT", "1", "100")
	}
	return l, ok, err
}
func (waitIgnored) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}

// reentrantNoCount is Redisson's reentrant lock whose release deletes the
// hash at the first release, whatever the hold count.
type reentrantNoCount struct{}

const (
	reentrantAcquire = "if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);"
	reentrantDelete  = "if (redis.call('hexists', KEYS[1], ARGV[1]) == 0) then return nil; end; redis.call('del', KEYS[1]); return 1;"
)

func (reentrantNoCount) Name() string { return "reentrant-no-count" }
func (reentrantNoCount) Reentrant()   {}
func (reentrantNoCount) Traits() model.Traits {
	return model.Traits{Reentrant: true}
}
func (reentrantNoCount) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	g := c.Masters()[0]
	node := c.Primary(g)
	r, err := c.Call(g, "EVAL", reentrantAcquire, "1", c.Key, c.TTLms(), v)
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{node}, Count: 1}, r.IsNil(), nil
}
func (reentrantNoCount) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", reentrantDelete, "1", c.Key, l.Value)
	return err
}

// readerIgnoresWriter is Redisson's read-write lock whose read lock does
// not check for a writer: a reader joins whatever mode the lock is in.
type readerIgnoresWriter struct{}

const readIgnoringWriter = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
	"if not mode then redis.call('hset', KEYS[1], 'mode', 'read') end; " +
	"local n = redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
	"redis.call('set', KEYS[2] .. ':' .. n, 1, 'px', ARGV[1]); " +
	"redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1]))); return nil;"

func rwLock() model.Design {
	d, err := model.LookupDesign(model.ReadWriteLock)
	if err != nil {
		panic(err)
	}
	return d
}

func (readerIgnoresWriter) Name() string         { return "reader-ignores-writer" }
func (readerIgnoresWriter) Traits() model.Traits { return model.TraitsOf(rwLock()) }
func (readerIgnoresWriter) Reentrant()           {}
func (readerIgnoresWriter) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	if !c.Reader() {
		return rwLock().TryAcquire(c, v)
	}
	g := c.Masters()[0]
	node := c.Primary(g)
	r, err := c.Call(g, "EVAL", readIgnoringWriter, "2", c.Key, "{"+c.Key+"}:"+v+":rwlock_timeout", c.TTLms(), v)
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{node}, Count: 1, Shared: true}, r.IsNil(), nil
}
func (readerIgnoresWriter) Release(c *model.Client, l *model.Lease) error {
	return rwLock().Release(c, l)
}
func (readerIgnoresWriter) Renew(c *model.Client, l *model.Lease) (bool, error) {
	return rwLock().(model.Renewer).Renew(c, l)
}
func (readerIgnoresWriter) WaitRelease(c *model.Client, max time.Duration) {
	rwLock().(model.Waiter).WaitRelease(c, max)
}

// evictTopology is one node of 2,000 bytes (sim/evict.go's formula) under
// the policy, another application writing a 100-byte key every 20ms.
func evictTopology(p sim.EvictionPolicy) model.Topology {
	return model.Topology{MaxMemory: 2000, Policy: p, Fill: sim.FillConfig{Every: 20 * time.Millisecond, Size: 100}}
}
