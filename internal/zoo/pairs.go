package zoo

import (
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// The mutant zoo measures bug-finding power: each mutant removes one
// safety mechanism from a design, and is paired with its correct twin and
// the faults under which the twin is safe. locksim.Check's defaults (its default
// budget and generator, restricted to those faults) must catch every
// mutant with a schedule of at most two faults whose explanation names the
// broken mechanism, and must not flag any twin.

// mutant is one pair.
type mutant struct {
	name     string // the mechanism removed
	design   any    // the mutant: a model.Design, or a catalogue ID with options below
	twin     any    // the correct design
	opts     []locksim.Option
	mutOpts  []locksim.Option // options only the mutant gets (a mutant that is an option)
	twinOpts []locksim.Option
	// exOpts fix, for exhaustive mode (one configuration, nothing drawn),
	// a configuration that exercises the mechanism: a critical section
	// long enough for the watchdog to renew.
	exOpts []locksim.Option
	// ex sets what exhaustive mode explores for the pair, when the
	// default (depth 1, the pair's kinds, every duration class) cannot
	// tell it apart or is too slow.
	ex exhaustiveFit
	// exRefused is the reason exhaustive mode refuses the pair's fault
	// kind with: TestExhaustiveTellsTheZooApart requires that refusal
	// (the product says it cannot place the kind, rather than "held").
	exRefused string
	mechanism string // a phrase the explanation of the mutant's failure contains
	// shortRuns, when not 0, is the pair's run count under -short in
	// place of zooShortRuns: its runs cost more than the others'.
	shortRuns int
}

// exhaustiveFit is what exhaustive mode explores for a pair: zero values
// keep engine.ExhaustiveConfig's defaults (depth 1, the pair's kinds,
// every duration class).
type exhaustiveFit struct {
	depth     int
	kinds     []sim.FaultKind
	durations []string
}

// zooShortRuns is each campaign's run count under -short (make test): the
// mutant and its twin each make this many runs instead of locksim.Check's default
// engine.DefaultRuns (make long). Every mutant's first break in the log
// comes before run 200, and every twin still fires every kind and
// placement it draws from (the unfired check), so the same pairs are
// caught and held, by a quarter of the runs.
const zooShortRuns = 500

func zoo() []mutant {
	ms := time.Millisecond
	return append([]mutant{
		{name: "owner check in release (plain DEL)", design: releaseDel{}, twin: model.SetPxLua,
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultPause), locksim.WithPauseAt(scenarios.PlaceRelease)},
			mechanism: "(DEL)"},
		{name: "atomic compare-and-delete (GET, then DEL)", design: model.SetPxGetdel, twin: model.SetPxLua,
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultPause), locksim.WithPauseAt(scenarios.PlaceRelease)},
			mechanism: "(DEL)"},
		{name: "owner check in renew (SET XX)", design: renewSetXX{}, twin: model.Watchdog,
			opts:      []locksim.Option{locksim.WithDeadline(), locksim.WithFaults(sim.FaultDelay), locksim.WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultDelay}, Links: scenarios.LinksRedis, Swarm: true})},
			exOpts:    []locksim.Option{locksim.WithWorkload(model.Workload{Work: 1500 * ms})},
			mechanism: "replaced"},
		{name: "atomic SET with TTL (SETNX, then PEXPIRE)", design: model.SetnxExpire, twin: model.SetPxLua,
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultCrash), locksim.WithPauseAt(scenarios.PlaceAcquire)},
			mechanism: "no TTL"},
		{name: "the validity check (redlock trusting its majority)", design: redlockTrusting{}, twin: model.Redlock,
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultPause), locksim.WithPauseAt(scenarios.PlaceAcquire)},
			mechanism: "expired"},
		{name: "the quorum size (redlock with 2 of 5)", design: model.Redlock, twin: model.Redlock,
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultPartition, sim.FaultDrop)},
			mutOpts:   []locksim.Option{locksim.WithOptions(model.Options{Quorum: 2})},
			mechanism: "both held the lock"},
		{name: "the renewal interval (every 1.2 x TTL)", design: model.Watchdog, twin: model.Watchdog,
			opts:      []locksim.Option{locksim.WithFaults()},
			mutOpts:   []locksim.Option{locksim.WithOptions(model.Options{RenewEvery: 1200 * ms})},
			exOpts:    []locksim.Option{locksim.WithWorkload(model.Workload{Work: 1500 * ms})},
			mechanism: "expired"},
		{name: "the token source (GET, then SET n+1)", design: splitToken{}, twin: model.Fenced,
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultPause), locksim.WithPauseAt(scenarios.PlaceAcquire), locksim.WithFencing(model.FenceStrict), locksim.WithInvariants(invariant.TokenUnique)},
			mechanism: "granted twice"},
		{name: "strict fencing (fencing off)", design: model.Fenced, twin: model.Fenced,
			// The mutant's resource is not fenced, so fencing cannot be
			// counted for it (locksim.Check refuses it): the data decides.
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultPause, sim.FaultDelay)},
			mutOpts:   []locksim.Option{locksim.WithFencing(model.FenceOff), locksim.WithInvariants(invariant.LostUpdate)},
			twinOpts:  []locksim.Option{locksim.WithFencing(model.FenceStrictReads), locksim.WithInvariants(invariant.LostUpdate)},
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
			opts: []locksim.Option{locksim.WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultNodeCrash}, MaxFaults: 1, Swarm: true}),
				locksim.WithTopology(model.Topology{Replicas: 2, Persistence: sim.PersistAlways}), locksim.WithWorkload(model.Workload{Work: 500 * ms, Cycles: 1})},
			exOpts: []locksim.Option{locksim.WithWorkload(model.Workload{Work: 500 * ms}), locksim.WithTopology(model.Topology{Replicas: 2, Persistence: sim.PersistAlways,
				Sentinel: sim.SentinelConfig{Enabled: true, DownAfter: 300 * ms}})},
			mechanism: "promoted to primary"},
		{name: "the reentrant count (release deletes on the first release)", design: reentrantNoCount{}, twin: model.ReentrantHash,
			// No workload given: check's generator nests the holds itself.
			opts:      []locksim.Option{locksim.WithFaults()},
			exOpts:    []locksim.Option{locksim.WithWorkload(model.Workload{Reentry: 1})},
			mechanism: "deleted"},
		// The mechanisms of Redisson's other locks, the version resource and
		// the lock of several locks.
		{name: "the version check (fencing off)", design: model.SetPxLua, twin: model.SetPxLua,
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultPause, sim.FaultDelay), locksim.WithInvariants(invariant.LostUpdate)},
			mutOpts:   []locksim.Option{locksim.WithFencing(model.FenceOff)},
			twinOpts:  []locksim.Option{locksim.WithFencing(model.FenceVersion)},
			mechanism: "increment was lost"},
		// Redisson's lock() without a wait keeps a dead waiter's place for
		// threadWaitTime, 5 minutes: here an hour, against 300ms.
		{name: "a dead waiter's place running out (fair lock, queue wait 1h)", design: model.FairLock, twin: model.FairLock,
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultCrash), locksim.WithPauseAt(scenarios.PlaceAcquire), locksim.WithInvariants(invariant.Liveness)},
			mutOpts:   []locksim.Option{locksim.WithOptions(model.Options{QueueWait: time.Hour})},
			twinOpts:  []locksim.Option{locksim.WithOptions(model.Options{QueueWait: 300 * ms})},
			exOpts:    []locksim.Option{locksim.WithWorkload(model.Workload{Cycles: 2})},
			mechanism: "crash"},
		{name: "the reader's check for a writer (read-write lock)", design: readerIgnoresWriter{}, twin: model.ReadWriteLock,
			opts:      []locksim.Option{locksim.WithFaults()},
			mechanism: "(reading)"},
		// Three keys of one instance are one failure domain.
		// The twin is Redisson's MultiLock on three masters, all needed: a
		// majority of three masters (its RedLock, --quorum 2) is not a
		// twin, as a holder with a bare majority loses it to one empty
		// restart (restart-empty), which the zoo found here too.
		{name: "keys on independent masters (three keys of one instance)", design: model.RedlockOneNode, twin: model.MultiLock,
			opts:      []locksim.Option{locksim.WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultNodeCrash}, MaxFaults: 1, Swarm: true})},
			mechanism: "restarted"},
		// Redisson's tryLock(wait, lease): the lease given, so no watchdog.
		// Both run sections longer than the TTL, which the generator draws
		// only for designs that renew.
		{name: "the watchdog (an explicit lease)", design: model.ExplicitLease, twin: model.ReentrantHash,
			opts:      []locksim.Option{locksim.WithFaults(), locksim.WithWorkload(model.Workload{Work: 1500 * ms})},
			mechanism: "expired"},
		// Redlock waiting on a silent master for a full 2 s (its per-node
		// timeout longer than the lease): with one master of five cut
		// off, every try outlasts its validity and the lock is never
		// taken, though the design tolerates a minority down.
		{name: "the per-node timeout (redlock waiting 2s on a silent master)", design: model.Redlock, twin: model.Redlock,
			opts:      []locksim.Option{locksim.WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultNodeCrash, sim.FaultPartition}, MaxFaults: 1, Swarm: true}), locksim.WithInvariants(invariant.Available)},
			mutOpts:   []locksim.Option{locksim.WithOptions(model.Options{NodeTimeout: 2 * time.Second})},
			mechanism: "only faults the design tolerates"},
		// A client given the primary's address instead of asking Sentinel
		// (a Sentinel setup's claim: a failover within its down-after):
		// after Sentinel replaces a crashed or cut-off primary it keeps
		// calling the old one and never acquires again.
		{name: "asking Sentinel for the primary (the old primary's address kept)", design: pinnedPrimary{}, twin: model.SetPxLua,
			opts: []locksim.Option{locksim.WithTopology(model.Topology{Replicas: 1}),
				locksim.WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultNodeCrash, sim.FaultPartition}, MaxFaults: 1, Swarm: true}), locksim.WithInvariants(invariant.Available)},
			mechanism: "Sentinel repairs by a failover"},
		// A renewal that moves the key's expiry from its previous expiry
		// (PTTL + the renewal interval) instead of from now: on time it
		// sets now + TTL, but every late timer (a pause, a slow reply)
		// leaves the key's expiry behind the validity the client counts
		// from its request, so the lease ends before the promise.
		{name: "renewal from now (the expiry moved from the previous expiry)", design: renewFromPrevious{}, twin: model.Watchdog,
			opts: []locksim.Option{locksim.WithDeadline(), locksim.WithFaults(sim.FaultPause, sim.FaultDelay), locksim.WithWorkload(model.Workload{Work: 1500 * ms}), locksim.WithInvariants(invariant.PrematureLoss)},
			// One late renewal (late by d) sets the key to now+TTL-d, but the
			// next renewal comes before that unless it is late too: the
			// lease ends early only after two late timers, d1+d2 above
			// TTL-interval, so no one-fault schedule shows it.
			// Two faults, so depth 2, kept small: pauses of half a TTL.
			ex:        exhaustiveFit{depth: 2, kinds: []sim.FaultKind{sim.FaultPause}, durations: []string{"ttl/2"}},
			mechanism: "promised the lease until"},
		// A wait between tries that sleeps a full TTL instead of the
		// backoff it is given: an acquisition whose lock stays out of
		// reach (its node down or cut off) sleeps through its deadline.
		{name: "the acquire deadline (sleeping a TTL between tries)", design: sleepsThroughDeadline{}, twin: model.SetPxLua,
			opts:      []locksim.Option{locksim.WithFaults(sim.FaultPartition, sim.FaultNodeCrash), locksim.WithInvariants(invariant.AcquireDeadline)},
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
			opts:      []locksim.Option{locksim.WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultStarve}, MaxFaults: 1, Swarm: true})},
			twinOpts:  []locksim.Option{locksim.WithDeadline()},
			exOpts:    []locksim.Option{locksim.WithWorkload(model.Workload{Work: 1500 * ms})},
			mechanism: "expired"},
		// Redis Cluster's atomic slot migration (Redis 8.4) holds writes
		// to the slot on its old owner for the migration's pause: a
		// watchdog renewal that lands in it times out with an unknown
		// outcome, the key expires on its new owner, and a holder that
		// trusts its lease until release writes beside the next holder.
		// With the client deadline it stops at the lease's end. One
		// fault, on a cluster only (docs/cluster.md).
		{name: "the client deadline (a renewal held by a slot migration's write pause)", design: model.Watchdog, twin: model.Watchdog,
			opts: []locksim.Option{locksim.WithTopology(model.Topology{Cluster: true, Masters: 3}),
				locksim.WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultSlotMigrate}, MaxFaults: 1, Swarm: true})},
			twinOpts:  []locksim.Option{locksim.WithDeadline()},
			exRefused: `fault kind "slot-migrate" is not placed exhaustively`,
			mechanism: "expired"},
		// maxmemory eviction (Redis's "Key eviction"): under memory
		// pressure from other data, allkeys-lru evicts the fencing
		// counter, idle since the last INCR, and the next INCR issues
		// token 1 again; volatile-lru takes only keys with a TTL, never
		// the counter. No fault: the eviction is the node's policy
		// (scenario evict-token-counter, docs/evict.md).
		{name: "the eviction policy (allkeys-lru evicting the token counter)", design: model.Fenced, twin: model.Fenced,
			opts: []locksim.Option{locksim.WithFaults(), locksim.WithOptions(model.Options{TTL: 5 * time.Second}), locksim.WithWorkload(model.Workload{Work: 2 * time.Second}),
				locksim.WithInvariants(invariant.TokenUnique)},
			mutOpts:  []locksim.Option{locksim.WithTopology(evictTopology(sim.AllKeysLRU))},
			twinOpts: []locksim.Option{locksim.WithTopology(evictTopology(sim.VolatileLRU))},
			// The break needs no fault (the policy evicts the counter); one
			// kind and one length keep the comparison cheap.
			ex:        exhaustiveFit{kinds: []sim.FaultKind{sim.FaultPause}, durations: []string{"ttl/2"}},
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
			opts: []locksim.Option{locksim.WithGen(scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultMemoryPressure}, MaxFaults: 1, Swarm: true}),
				locksim.WithInvariants(invariant.TokenUnique, invariant.MutualExclusion)},
			mutOpts:   []locksim.Option{locksim.WithTopology(model.Topology{MaxMemory: 200, Policy: sim.AllKeysLRU})},
			twinOpts:  []locksim.Option{locksim.WithTopology(model.Topology{MaxMemory: 200, Policy: sim.NoEviction})},
			mechanism: "under memory pressure"},
		// Not a pair: the wall-clock deadline (Java's
		// System.currentTimeMillis()) against the monotonic one breaks
		// only with two faults together, a delay or pause that outlasts
		// the lease and a step back of the client's clock, so exhaustive
		// mode at depth 1 cannot tell them apart; the scenario
		// wall-clock-jump and model's TestWallClockDeadline show it.
	}, raceZoo()...)
}
