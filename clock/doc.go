// Package clock models time in a simulation run.
//
// There is one true time, the simulation's own: a time.Duration since the
// start of the run, advanced only by the event loop in package sim. Every
// process and every Redis node reads its own Clock, derived from true time
// by an offset, a rate (drift) and scheduled step jumps:
//
//	local(t) = offset + t + t*ratePPM/1e6 + sum of jumps at or before t
//
// A Clock gives two readings:
//
//   - Mono, the monotonic clock a client uses to measure elapsed time: it
//     follows the rate but ignores the offset and every jump, as
//     CLOCK_MONOTONIC does.
//   - Wall, the wall clock: Epoch + offset + drifted time + jumps (Local is
//     the same without Epoch). A Redis node's key TTLs run on its wall
//     clock; a world may count it from another instant than Epoch
//     (sim.Config.Epoch: package realclient uses the synctest bubble's).
//
// Invariants: Mono never decreases; true time never decreases; a Clock is a
// pure function of true time (no state is mutated by reading it), so the
// same run reads the same values. Nothing in this package reads the host's
// clock.
//
// Example:
//
//	c, err := clock.New(clock.Config{RatePPM: 200_000}) // 20% fast
//	c.Mono(time.Second)                                 // 1.2s
//	c.TrueAfterMono(0, 1200*time.Millisecond)          // 1s of true time
package clock
