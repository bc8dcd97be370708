package main

import (
	"os"
	"runtime/debug"
	"sync"
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

// workersGCPercent is the pacing of a random check on two workers or
// more. One worker's collections mark on the idle second core; with two,
// every collection's mark phase runs on the workers' cores (write
// barriers on in both, a fractional mark worker taking from one) and its
// pauses stop both, and they collect twice as often per second (56-61
// collections per 20,000 set-px-lua runs with either count, at GOGC=400).
// At 1600 they collect 11-13 times, and two workers' CPU per run fell
// 4-9% (same-run pairs, medians 0.959 and 0.906 of 8 rounds each, load
// 10-19) against 2% for one worker (0.984), for 70-110 MB more peak
// memory (RSS 115-162 MB against 47-56 MB); see docs/speed.md, "Worker
// scaling, 2026-12-08". The soft memory limit (memLimit, unless the user
// set GOMEMLIMIT) still bounds the heap.
const workersGCPercent = 1600

// checkPacing is whether paceWorkers paces at all: main sets it. The
// CLI's in-process tests leave it off: they run many commands in one
// process, whose live heap (tens of MB) GOGC=1600 would let grow 17-fold
// (the test process reached 400 MB, which the children of
// TestDevZeroIsRefusedInBoundedMemory inherit as their peak);
// TestPaceWorkersInTheCLI runs the CLI's way in a child process.
var checkPacing bool

// paceWorkers sets the pacing for a check on `workers` workers unless the
// user set GOGC (or checkPacing is off): workersGCPercent for two or
// more, the pacing in effect (paceGC's) for one. It returns the function
// that restores the pacing before it once no such check runs any more.
func paceWorkers(workers int) (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set || workers < 2 || !checkPacing {
		return func() {}
	}
	p := &workersPacing
	p.Lock()
	defer p.Unlock()
	if p.active == 0 {
		p.before = debug.SetGCPercent(workersGCPercent)
	}
	p.active++
	return func() {
		p.Lock()
		defer p.Unlock()
		if p.active--; p.active == 0 {
			debug.SetGCPercent(p.before)
		}
	}
}

// workersPacing counts the checks paced by paceWorkers that are running,
// and keeps the pacing from before the first.
var workersPacing struct {
	sync.Mutex
	active, before int
}
