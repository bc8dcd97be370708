// Package logcheck judges lock histories recorded in production: JSON
// Lines logs of what the clients saw (docs/check-log.md has the format),
// from many hosts at once, streamed in bounded memory.
//
// A log has no store-side truth, so it judges only what the clients'
// view decides, under the project's invariant IDs (package invariant):
// mutual-exclusion (two clients believing they hold one key at
// overlapping instants, by the validity their lock calls reported),
// token-unique (a token granted twice, or at or below one granted before
// the acquisition started) and fencing (a fenced resource accepting an
// older token's write after a newer one's; judged on a key whose log shows
// a rejected write) and, with a bound, liveness by timing (an acquisition
// that waited through a stretch longer than the bound in which no other
// client believed it held the key). The field judgements too (field.go):
// premature-loss (another client's grant inside a holder's promised
// validity, or the holder's lost with cause refused before it),
// acquire-deadline (a call that returned later than the deadline its
// acquire-attempt logged) and, with a bound, available (liveness's
// stretch, for a log whose faults the design tolerates). The other
// invariants are listed as not judged, with the reason (NotJudged).
//
// The checkers are this package's own, not package invariant's: those
// judge a simulated history in true time, one total order with the
// store's events (grants on nodes, applied writes); a log has one clock
// per host, each off by an unknown offset within a bound, so every
// relation between two hosts' events is an interval question whose answer
// is certain (for every offset), possible (for some, reported with the
// offsets) or no.
//
// Export turns a simulated history into the format, keeping only what a
// wrapper around the lock calls would see, for the round trip simulate,
// export, check-log.
package logcheck
