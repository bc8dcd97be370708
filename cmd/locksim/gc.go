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

// paceGC applies gcPercent unless the user set GOGC, and reports the
// pacing in effect.
func paceGC() int {
	if _, set := os.LookupEnv("GOGC"); set {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	debug.SetGCPercent(gcPercent)
	return gcPercent
}
