// Package network decides the fate of every message in a simulation run.
//
// The network connects named endpoints (client processes, Redis nodes, the
// resource service, the sentinel). It never schedules anything itself: the
// event loop in package sim asks Send when a message leaves an endpoint and
// gets back when it arrives, or that it was lost and why. All decisions come
// from the run's seeded generator and the fault configuration:
//
//   - latency per link, uniform in [Min, Max] (Config.Default, Links);
//   - loss per link in parts per million;
//   - partitions, one-way or two-way, between sets of endpoints over a
//     window of true time [Start, End);
//   - extra delay for messages sent on a link within a window;
//   - drops: the next Count messages on a link within a window are lost
//     (dropping a reply gives the ambiguous outcome: the command ran, the
//     client never learns it).
//
// Invariants: delivery is FIFO per directed link (a message never overtakes
// an earlier one from the same sender to the same receiver); the same
// sequence of Send calls on a Network built from the same seed gives the
// same answers. A message sent on a reliable link (replication, like TCP
// retransmitting) is held while a partition blocks it and delivered after
// the partition heals; on an unreliable link (client requests) it is lost.
// On a stream (SendStream) a partition that never heals loses the message
// and the caller resets the stream, unless the partition is a blackhole:
// then the message vanishes silently (Fate.Silent) and the stream stays.
package network
