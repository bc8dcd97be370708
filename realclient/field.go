package realclient

import "time"

// WithAcquireBound states the library's availability claim: on three or
// more masters (WithTopology) with its quorum (model.Options.Quorum,
// default a majority), while at most masters-quorum of them are down,
// slow or cut off (a node crash or stall, a partition whose one side holds
// only masters, in either mode) and no other fault acts, a client that
// wants the lock while nobody holds it gets it within d
// (invariant.Available). Without it a real client is not judged on
// availability: the harness cannot know what the library promises. Give
// it after WithOptions, which sets every option at once.
//
// On one master with replicas under Sentinel (WithTopology: Masters 1,
// Replicas >= 1, Sentinel on; no min-replicas-to-write, every replica
// promotable) it states a Sentinel setup's claim instead: while only
// faults Sentinel repairs by a failover act (nodes of the group crashed,
// stalled or cut off from the sentinel, one left to promote), a wanted,
// free lock is acquired within d of the onset of the last such fault.
// Choose d as down-after plus the discovery delay plus the library's
// worst case on a healthy primary plus a TTL for the key the old primary's
// last holder left on the promoted replica.
func WithAcquireBound(d time.Duration) Option {
	return func(c *config) { c.Base.Options.AcquireBound = d }
}
