// Package invariant judges a run's history: the invariants a lock must
// keep, and the checkers that decide them from the history alone (through
// one reading of it, history.Index), each violation explained in words.
//
// The invariants (IDs as in the catalogue):
//
//   - mutual-exclusion: no two clients' exclusive critical sections
//     overlap in true time. The critical sections are history.Section's
//     (defined in words in CONTRIBUTING.md, "The critical section").
//     Shared holds (read locks) are not judged here.
//   - stale-write: the resource accepted a write from a client whose lease
//     was already lost on the nodes that granted it (on enough of them that
//     another client could gather its quorum: Config.Quorum): the key
//     expired, was deleted or replaced, was evicted, the node restarted
//     without it, or a failover promoted a node without it. A node that is
//     down and comes back with the key did not lose the lease: nobody
//     could take the lock there meanwhile.
//   - lost-update: an accepted write did not build on the previous
//     accepted value.
//   - token-unique (the token source): no token is granted twice, and an
//     acquisition that starts after a grant gets a larger token.
//   - fencing (a nonstrict resource): the resource lets no older holder
//     write after a newer one: no token below one it accepted, and, for a
//     reissued token, no write of the older acquisition after the newer
//     one's. Not judged on a strict or strict-reads resource, which
//     rejects both itself, so a "held" would judge nothing. The two token invariants were one, token-order, which Parse
//     still reads as both: a strict resource keeps the data even when a
//     failover makes the source reissue a token.
//   - liveness: after the last fault heals, a wanted lock nobody holds is
//     acquired within a bound.
//   - reentrancy: hold counts go up and back down by one.
//   - fifo (fair designs): no client is granted the lock while one whose
//     request reached Redis first is still waiting for it.
//   - rw-exclusion (designs with shared holds): no exclusive hold overlaps
//     another client's hold, shared or exclusive; readers may overlap.
//   - premature-loss (designs that promise a validity): a holder whose
//     renewals all reported success and who has not released keeps its
//     lease alive on a quorum of its grants until the validity it was
//     last promised runs out, unless a node crash, failover, eviction or
//     clock step or drift on its nodes or its own clock acted first. The
//     violation names the promise (the acquisition or renewal) that the
//     key did not keep.
//   - acquire-deadline (designs that declare a tolerance): an acquisition
//     given a deadline returns by it: its return after the deadline, less
//     the time its process was paused and its task waited on Redis
//     requests, is within the tolerance.
//   - available (quorum locks on independent masters; locks on one
//     primary with replicas under Sentinel): while only faults the design
//     tolerates are active (at most Tolerate of its masters down, slow or
//     cut off; or, with Config.Failover, nodes of the lock's group
//     crashed, stalled or cut off from the sentinel while one remains to
//     promote), a wanted lock nobody holds is acquired within a bound
//     derived from the design (for a Sentinel setup counted from the last
//     such fault's onset, and only while the lock is still wanted when it
//     runs out).
//
// A run that stopped with an error has no verdicts; callers do not judge
// its history.
package invariant
