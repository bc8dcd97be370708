// Package sim is the simulated world: an event loop in virtual time that
// runs client processes against Redis nodes (miniredis instances) and
// services over a faulty network, and records everything in a History.
//
// A run is a pure function of its Config and seed. Exactly one thing runs
// at a time: client programs are plain sequential Go run as coroutines
// (iter.Pull); a call into the world (Ctx.Call, Ctx.Sleep,
// Ctx.WaitMessage) hands control back to the loop, which resumes the task
// when its reply, timeout or wake-up event comes due. Events are ordered
// by (true time, sequence number). Time comes only from package clock and
// randomness only from generators derived from the seed, so the same seed
// gives a byte-identical history (History.Hash).
//
// Redis nodes are miniredis instances driven synchronously through the
// exported dispatch path, with SetTime before every command and
// ClockTTL(true), so key TTLs run on each node's own clock. The simulator
// models what miniredis lacks: asynchronous replication (a stream of key
// states, absolute expiries as Redis 7's PXAT; replicas do not expire keys,
// the primary's DEL does), WAIT with real semantics, min-replicas-to-write
// (NOREPLICAS; replicas then acknowledge every second: minreplicas.go),
// persistence modes (none, aof-everysec, aof-always) across crashes,
// Sentinel-style failover (promotion by priority then offset after
// down-after; an old primary keeps serving its side of a partition until it
// rejoins and is demoted), pub/sub
// delivery, and key expiry observed as an event at the true instant it
// happens. Nodes follow Redis 7's rules where miniredis is looser
// (redisrules.go): replicas refuse exactly the write commands, SET's
// options and expiry arguments are checked with Redis's texts. The nodes
// model one server release (Config.Server, version.go: redis-7.0 by
// default, redis-8.4, valkey-9.0): a command the release lacks gets
// Redis's unknown-command reply, and the commands and SET options of the
// newer releases (DELEX, DIGEST, DELIFEQ, SET IFEQ ...) are served by the
// pre-hook as those releases document them (versioned.go). Each node
// bounds what it stores (limits.go: a value at most 1 MiB, a keyspace at
// most 16 MiB), charged before a command runs; an event records at most
// MaxRecordedBytes of each argument and reply.
// After a client's write a node records the keys that changed (KindKey,
// KindExpire) from the keys the commands named, not by reading its whole
// keyspace (touched.go: the same events in the same order; commands it
// cannot follow fall back to the whole reading).
//
// With Config.Cluster the groups are one Redis Cluster (cluster.go): hash
// slots (CRC16 with hash tags), MOVED/ASK/CROSSSLOT/TRYAGAIN/CLUSTERDOWN
// as Redis 7 gives them, the CLUSTER commands clients read
// (cluster_cmd.go), failover by the cluster's own election after the node
// timeout (cluster_failover.go), and slot migration, legacy or Redis 8.4's
// atomic one, as the slot-migrate fault (cluster_migrate.go). A simulated
// process calling a group of a cluster is routed as a cluster client
// routes (cluster_client.go); every node reads one slot map (no gossip).
//
// A node may run a Machine instead of Redis (machine.go: the raft members
// of package consensus). It keeps the node's name on the network, its
// clock, and its crash and restart faults; it gets timers on the node's
// monotonic clock, messages to other machine nodes over the simulated
// network, and deferred replies to client requests, and it owns its
// persistence. Redis-only faults (evict) find no target on it.
//
// A node with NodeConfig.MaxMemory evicts as Redis does (evict.go): before
// each client's command, by its maxmemory-policy, from candidates sampled
// with the run's generator, counting memory by a documented formula; a
// command that adds data is refused with OOM when nothing can go. A
// FillConfig is another application's writes that fill the memory; the
// memory-pressure fault (pressure.go) is a burst of them at one moment,
// capping a node without maxmemory at what it holds then.
//
// Faults (Fault, FaultKind) are placed at absolute true times or relative
// to a recorded event (Trigger), which is how "pause A right after its
// acquire returns" is exact. Each kind is one row of FaultKindTable
// (fault_kinds.go): its targets, its arguments' syntax, parse and format,
// its value rules (the one validation), what applying it does and the
// events it records; CONTRIBUTING.md lists what adding a kind takes. A node crash triggered by one of the node's
// own events (its exec, a key change, a replication apply) ends the step
// there: no reply, nothing replicated, no ack.
//
// Invariants: a paused process sends, receives and wakes up for nothing
// (its replies, timers and background tasks queue until it resumes); a
// pause triggered by the process's own event takes hold at its next call
// into the world, so code in between (a clock read, recording an event)
// still runs, as a real GC pause stops a thread at its next safepoint. A
// starved task (starve.go: one task of a process held back by name, CPU
// starvation) wakes up for nothing and sends nothing until its window
// ends, while its process's other tasks run on; an external process's
// starvation is an Effect pair its driver acts on. A crashed process
// records nothing more. The event loop stops with an error
// at Limits.MaxEvents or Limits.MaxTime, or if clients are left with
// nothing scheduled; no goroutine outlives Run.
//
// Cost (see `make bench`): a call costs one allocation (the events of its
// life are typed actions on a heap of pointer-free keys, not closures); the
// history is written into pooled chunks (eventlog.go) and joined
// once at its final length, or into Config.HistoryBuf when the caller
// reuses one; a node answers its per-command questions (does the release
// have it, does it write, where are its keys) from a small table filled on
// a name's first use (cmdinfo.go), and a call keeps its endpoint; nodes hand
// their miniredis instances and Lua states back to pools when the run ends
// (instance.go lists what a recycled instance could carry over and why it
// does not). What remains per run is mostly miniredis itself. miniredis's
// RANDOMKEY (Go map order) and INFO (instance counters) are refused, and
// its generator is seeded from the run before the first command that
// draws from it.
//
// Stepping and external processes: Run is Start, Step until it reports
// the end, and Finish (step.go); a driver may interleave its own work
// between steps, asking NextAt and moving the clock with AdvanceTo. A
// client with ClientConfig.External has no Main: its program runs outside
// the world (package locksim/realclient runs real go-redis libraries this
// way) and enters it through World.External: TCP-like streams to nodes
// (Dial, Send, CloseStream; a partition delays them, one for good resets
// them or, as a blackhole, swallows their messages; a dial unanswered
// within Config.DialTimeout fails; a lost message breaks them, a node
// crash resets them), single-message calls to services, and
// Record. What the world does to the process comes back as Effects, held
// while the process is paused and released in order at its resume (see
// external.go and stream.go). External clients with one
// ClientConfig.Process (the goroutines of one process) may send on each
// other's streams, each command, its execution and its reply the
// sender's, as goroutines share a connection pool. A stream to "sentinel" reaches the sentinel
// as a Sentinel RESP endpoint (sentinel_endpoint.go), so that a real
// Sentinel client finds the primary and hears +switch-master. With
// Config.RESP3 the nodes answer HELLO as Redis 7.0 does (a connection then
// gets RESP3 replies) and serve CLIENT TRACKING: a tracked key that
// changes, expires or is evicted sends an invalidation push on the
// streams tracking it, through the network like a reply (tracking.go;
// EffectPush, KindInvalidate, KindPush).
//
// A history's text (Event.Line, History.Text: one stable line per event)
// reads back with ParseLine and ParseHistory (history_parse.go), so tests
// and tools can keep histories as text (model/invariant's testdata/check).
//
// Example:
//
//	h, err := sim.Run(sim.Config{
//		Nodes:   []sim.NodeConfig{{Name: "r1"}},
//		Groups:  []sim.GroupConfig{{Name: "m1", Primary: "r1"}},
//		Clients: []sim.ClientConfig{{Name: "A", Main: func(c *sim.Ctx) error {
//			_, err := c.Call("m1", time.Second, "SET", "lock", "v", "NX", "PX", "1000")
//			return err
//		}}},
//	}, 1)
//	fmt.Print(h.Text())
package sim
