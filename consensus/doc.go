// Package consensus is an etcd-style lease service on go.etcd.io/raft/v3
// inside locksim's simulated world: the stronger contrast to the Redis
// lock designs.
//
// Each member is a raft RawNode run as a sim.Machine on a sim node: its
// ticks come from the node's own monotonic clock (Config.Tick per tick, so
// a drift fault on a node speeds up or slows its heartbeats, elections and
// lease expiry; a wall-clock step does not, as Go's monotonic clock on a
// real etcd host), its messages travel the simulated network (partitions,
// latency, delays and drops apply), and its disk (disk.go: hard state, log
// entries, snapshot, written before anything depending on them is sent)
// is what a crash keeps. At boot a node builds a MemoryStorage from its
// disk and replays the committed log into a fresh state machine.
//
// The state machine (kv.go) holds leases with a TTL, keys bound to a lease
// by put-if-absent, delete, and a revision that every write bumps: the
// fencing token. Every client command is a log entry, answered when it
// applies on the node the client asked (linearizable). Only the leader
// expires leases, on its own clock (leader.go), by proposing an expire
// entry; a new leader gives every lease a full TTL (etcd's
// lessor.Promote).
//
// Determinism: raft v3.7.0 draws its randomized election timeout from
// crypto/rand, so raft's own election timer is set out of reach and the
// driver (campaign.go) campaigns on a timeout drawn from the node's seeded
// generator. PreVote and CheckQuorum are off. A run is then a function of
// its seed, like every other run in locksim.
//
// Invariants: the core packages (sim, clock, network, model, scenarios,
// report, engine) do not import this package or raft (deps_test.go);
// nothing here runs outside the event loop's calls.
package consensus
