// Package realclient runs unmodified Go lock libraries on go-redis
// (go-redsync/redsync, bsm/redislock, your own) inside locksim's
// simulated world: their commands travel as RESP over the simulated
// network to the simulated Redis nodes, under the same faults, in virtual
// time, judged by the same checkers, with the same failure reports and
// replayable cases, and the same seed gives the same history.
//
//	func TestMyLock(t *testing.T) {
//		realclient.Check(t, func(env realclient.Env) (realclient.Lock, error) {
//			return newMyLock(env.Clients[0], env.Key, env.TTL), nil
//		}, realclient.WithName("my-lock"), realclient.WithFaults(sim.FaultPause))
//	}
//
// A Setup builds one client process's Lock from one *redis.Client per
// master (Env.Clients); the workload then runs the catalogue's cycles:
// record acquire-start, Lock, record acquired (the value read from the
// SET or EVAL the library sent, the node/key pairs that answered it OK, the
// validity the lock reports through Validity), the read-modify-write of
// the fenced resource (model.Resource, with the token of a Fencer), and
// Unlock. Check runs rapid properties over generated fault schedules
// (or seeded runs: WithRuns, WithBudget, WithShard), Run replays a case,
// RunScenario runs a catalogue scenario. Every campaign kind goes through
// the engine's run seam (campaign.go: engine.CheckConfig.Run, with
// engine.Check for seeded runs and engine.Inputs for rapid's and the
// fuzzer's), so a real client's check gets the engine's shards, progress
// (WithProgress), cancellation (WithContext), coverage, verdict and held
// log (harness.HeldText), as a model check does; exhaustive mode is
// engine.Exhaustive with the same kind of runner (exhaustive.go). PCT
// interleaving is refused for real clients, with the reason.
//
// How it works: the client processes run in a testing/synctest bubble,
// whose clock is the world's true time. go-redis dials through a Dialer
// that returns a simulated net.Conn (conn.go): writes are parsed into
// commands, replies arrive as RESP bytes, deadlines are bubble timers. A
// governor goroutine in the bubble (driver.go) is the only one that talks
// to the world, and runs it on its own goroutine, inside the bubble, with
// no handoff per call: the pooled miniredis instances and Lua states the
// world recycles across runs make no channel, timer or goroutine on the
// paths it uses, so none of them is tied to one bubble (proxy.go says
// why; sim's TestWorldInBubbleRecycled checks it). It waits until every goroutine in the bubble
// is durably blocked (synctest.Wait), carries out one thing (a world
// effect, a world event, or the smallest pending client action in an order
// fixed by content), and waits again; so the world sees the same sequence
// whatever the Go scheduler does. Every go-redis command of the package's
// clients first waits for its turn from the governor (interleave.go), so
// that goroutines woken together do not race for go-redis's connection
// pool; the hook also grows the goroutine's stack in one copy before the
// command goes (growstack.go: a library's per-command goroutines otherwise
// grow it two or three times deep inside go-redis). With
// WithInterleave(InterleaveRandom) the run's seed, not the
// content, chooses which pending action goes next (each goroutine's and
// each connection's program order kept), which explores the races between
// a library's watchdog, its Unlock and the caller.
//
// Several goroutines per process (goroutines.go): WithGoroutines(n) runs
// n workload goroutines in each client process, clients A.1 .. A.n of the
// history, each judged as a client; Env.Shared gives them the objects
// their process shares (per incarnation), and a fault on process A is
// split into one per goroutine at the same instant. Env.SharedClients
// gives them one set of go-redis clients (one connection pool), as a
// service shares its *redis.Client (shareconn.go): each command on a
// pooled connection is its issuing goroutine's, read from the pprof label
// (label.go) every goroutine a workload goroutine starts inherits; a
// command whose issuer cannot be read so refuses the run with the reason.
//
// How likely (risk.go): Risk runs the real client under fault schedules
// drawn from a risk.Profile (risk.Sampler, never Check's generator) and
// returns risk's per-invariant, per-acquisition probabilities with their
// intervals and method, deterministic and shardable (risk.Merge).
//
// Beyond Check's generated runs: WithExhaustive(1 or 2) places every fault
// at every point of the client's own fault-free run (engine's exhaustive
// mode, with its bounded guarantee and danger map), and Fuzz runs Go's
// coverage-guided fuzzer over the fault schedules. docs/realclient-search.md
// shows all three.
//
// The library's own keys (keys.go): a lock key is a key a command of the
// lock wrote the lock's value to; the driver notes on the wire which keys
// each lock command may write, and after the run the nodes' key changes
// say which took the value. The history then names the first of them and
// each grant as node/key; a lease is judged with the library's quorum,
// over nodes (Options.Quorum) or over keys on one node (WithKeyQuorum,
// default a majority). Ambiguous keys are refused with the reason;
// WithLockKeys names them. Lock values are renamed v1, v2, ... in the
// order of first use, so a library's unseedable values do not reach the
// history. The nodes' wall clocks count from the bubble's epoch
// (BubbleEpoch, sim.Config.Epoch), so absolute times a library sends
// (PEXPIREAT, SET PXAT) mean what they mean on the client.
//
// Determinism: each run seeds crypto/rand (testing/cryptotest) and the
// global math/rand (with GODEBUG randseednop=0, set through t.Setenv) from
// the run's seed, uses PoolSize 10 rather than 10 x GOMAXPROCS, turns
// go-redis's maintenance notifications off where the linked go-redis has
// them (their auto mode does a real DNS lookup; set by reflection, so the
// harness does not import that package), and empties go-redis's process-wide timer pool between
// bubbles when a run may have used it. Nodes answer HELLO as Redis 7.0
// does (sim.Config.RESP3), so go-redis v9 and rueidis speak RESP3, CLIENT
// SETINFO with OK, and CLIENT TRACKING with invalidations pushed on the
// connection (sim/tracking.go); a connection encodes replies in the
// protocol its last successful HELLO chose. A client the package does not build calls Env.Turn before each
// command, as its go-redis hook does; a go-redis client a library builds
// itself takes Env.Hook (dial hook and turns) and Env.Addr (an address of
// the process's own, for a library that caches clients by address), and
// Env.CloseAtExit closes it. A Lock that succeeds without one command
// through the simulation is refused (ownclient.go). TestDeterminism
// checks 50 runs per library for one history hash.
//
// Other runtimes: package realclient/node runs a Node.js lock module as
// a client process (docs/node.md), through Env.Dialer, Env.Sleep (a
// governed sleep for its timers) and Stop (an error from Lock or Unlock
// that ends the run: the client process itself failed). WithValueArg
// names the ARGV of a lock script that carries the value when it is not
// the first.
//
// Versions: the module requires only go-redis v9.22.0 (older versions
// were measured to give irreproducible runs: before v9.20.0 retry jitter
// comes from a per-process generator no run can seed) and
// what the harness imports, so a user's pins decide what runs; the lock libraries' tests
// and the field-bug corpus are the module locksim/realclient/libs. Every
// run records the library modules on its clients' stacks (modules.go:
// module@version from the frames' file paths) in Result.Modules, which
// the check's log, the failure report, the case file and the reports name.
//
// Invariants and limits:
//   - A pause freezes the process's network at once; its goroutines stop
//     at their next write, governed sleep (Resource.Sleep, the workload's
//     own sleeps) or watched record, not at any instruction: a library's
//     timer that fires during the pause runs its goroutine until its next
//     I/O. Replies that arrived during a pause are read at the resume
//     before any deadline is looked at, as from a socket buffer.
//   - One bubble has one clock: per-client clock skew, drift and jumps are
//     refused. Node clocks, crashes, partitions, delays, drops and
//     failover all work, and so do client crashes: the crashed process's
//     goroutines stop at their next I/O, sleep or record and never act
//     again; a restart builds a new process with setup. A run whose
//     bubble cannot end (a crashed client's library goroutines blocked for
//     good on the library's own channels, as rueidislock's) is refused
//     with the reason, naming those goroutines and where they wait
//     (stuck.go), not left to testing/synctest's deadlock panic. A library
//     that deadlocks on its own channels without a crash gets the run
//     error StuckPrefix, naming each blocked goroutine's process and where
//     it waits; for a deadlock on a sync.Mutex (not durably blocked, so
//     virtual time stands still) a watchdog outside the bubble gives the
//     run up after StuckAfter of wall time with the same error.
//   - The caller model (WithCaller) decides what the client believes:
//     by default what the library reports (Validity's Until, a successful
//     Extend revives a lapsed belief); WithOnLockError what it does when
//     Lock fails. Liveness is also judged per client (refused while free).
//   - What the field reports (field.go): premature-loss judges the
//     validity the library promised (Until, or with model.Options.Deadline
//     the deadline it declares: TTL - Margin from the request that took
//     the key); a library with neither has no verdict on it. Lock's
//     context deadline is the acquire wait, judged by acquire-deadline.
//     available needs the library's claim, WithAcquireBound, on three or
//     more masters, or on one master with replicas under Sentinel (a
//     failover within its down-after); without it it is not judged.
//   - Streams behave like TCP: a partition delays, a lost message (a drop
//     fault, random loss) breaks the stream, a crashed node resets its
//     streams and refuses dials.
//   - Failover: Env.NewFailoverClient gives go-redis's own Sentinel
//     client (redis.NewFailoverClient), which talks RESP to the simulated
//     sentinel ("sentinel:26379": SENTINEL GET-MASTER-ADDR-BY-NAME,
//     SENTINELS, REPLICAS, SUBSCRIBE +switch-master) and follows a
//     promotion as in production. The plain Env.Clients dial a group
//     ("m1:6379") and reach the primary their process believes in, which
//     the sentinel's announcement changes, as behind a DNS name or a
//     Sentinel-aware proxy. Connections to a crashed primary are reset.
//   - Runs seed process-wide generators: tests that use this package must
//     not run in parallel (t.Setenv refuses a parallel test).
//   - The history uses the catalogue's event kinds, plus the streams'
//     dial, dialed, reset and close (sim/external.go), and the placement
//     marks on the wire: acquire-send after each lock request,
//     release-send before each command of Unlock naming the key,
//     extend-send after a command naming the key while holding.
package realclient
