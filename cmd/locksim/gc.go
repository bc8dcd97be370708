package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the CLI's garbage collector pacing (GOGC): a check run
// allocates briefly and keeps little, so collecting at 4x the live heap
// instead of 2x costs about 10 MB and saves CPU per run (make bench
// prints the pair). GOGC in the environment wins.
const gcPercent = 400

// memLimit is the soft memory limit (GOMEMLIMIT) that comes with
// gcPercent: at 4x the live heap, a run near the limits (250,000 events
// rendered as HTML) peaked at 1.15 GB against 680 MB at the runtime's
// default; under the limit the collector runs as often as it must to stay
// below it, so such a run keeps within the 1 GB TestBombs allows and
// ordinary runs (a few MB live) keep gcPercent's saving. GOMEMLIMIT in the environment
// wins.
const memLimit = 768 << 20

// paceGC applies gcPercent unless the user set GOGC, and memLimit
// unless the user set GOMEMLIMIT, and reports the pacing in effect.
func paceGC() int {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memLimit)
	}
	if _, set := os.LookupEnv("GOGC"); set {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	debug.SetGCPercent(gcPercent)
	return gcPercent
}
