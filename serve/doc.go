// Package serve is locksim's real-time endpoint for clients in any
// language (`locksim serve`, docs/serve.md): a loopback RESP server on
// 127.0.0.1 onto a simulated world (package sim: miniredis-based nodes,
// the simulated network, replication and Sentinel-style failover) whose
// true time is the wall clock since the endpoint started.
//
// Each client process is one sim.External process with its own address
// per group; every TCP connection is one of its streams (sim/stream.go),
// so partitions, delays, drops, node crashes and failovers act on it as on
// a simulated client. Pauses are carried out on the real process: SIGSTOP
// and SIGCONT of its process group. Pub/sub is answered at the endpoint
// (no message reaches a real connection).
//
// A Campaign launches the client programs n times; each writes its own
// lock events in the check-log format (docs/check-log.md), which the
// endpoint follows as they are written (recording them in the world, where
// fault triggers such as "after A granted" fire) and package logcheck
// judges after the run.
//
// Nothing here is deterministic: real threads and the machine's load
// decide the interleaving, so a verdict is a recurrence (broke in k of n
// runs), never a replayable case. The deterministic paths (sim, clock,
// network, model, scenarios, report) do not import this package.
package serve
