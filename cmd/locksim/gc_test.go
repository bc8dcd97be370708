package main

import (
	"math"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// The CLI paces its collector at gcPercent unless GOGC is set, and then
// leaves the user's value; likewise its soft memory limit and GOMEMLIMIT.
func TestPaceGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOGC", "150") // restored after the test
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetGCPercent(150)
	if got := paceGC(); got != 150 || debug.SetGCPercent(150) != 150 {
		t.Errorf("with GOGC=150: pacing %d, want the user's 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set: memory limit %d, want the user's", got)
	}
	os.Unsetenv("GOGC")
	os.Unsetenv("GOMEMLIMIT")
	if got := paceGC(); got != gcPercent || debug.SetGCPercent(100) != gcPercent {
		t.Errorf("without GOGC: pacing %d, want %d", got, gcPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != memLimit {
		t.Errorf("without GOMEMLIMIT: memory limit %d, want %d", got, memLimit)
	}
}

// A check on two workers or more paces its collector at workersGCPercent
// unless GOGC is set, and puts the pacing back when it ends; one worker
// keeps the pacing in effect.
func TestPaceWorkers(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	t.Setenv("GOGC", "150") // restored after the test
	os.Unsetenv("GOGC")
	paceWorkers(2)() // checkPacing off, as in the CLI's other tests
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Errorf("checkPacing off: pacing %d, want %d", got, gcPercent)
	}
	checkPacing = true
	defer func() { checkPacing = false }()
	for _, w := range []int{2, 4} {
		restore := paceWorkers(w)
		if got := debug.SetGCPercent(-1); got != workersGCPercent {
			t.Errorf("%d workers: pacing %d, want %d", w, got, workersGCPercent)
		}
		debug.SetGCPercent(workersGCPercent)
		restore()
		if got := debug.SetGCPercent(gcPercent); got != gcPercent {
			t.Errorf("%d workers, after the check: pacing %d, want %d back", w, got, gcPercent)
		}
	}
	// Two checks at once: the pacing goes back when both have ended.
	first, second := paceWorkers(2), paceWorkers(2)
	first()
	if got := debug.SetGCPercent(workersGCPercent); got != workersGCPercent {
		t.Errorf("one of two checks ended: pacing %d, want %d while the other runs", got, workersGCPercent)
	}
	second()
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Errorf("both checks ended: pacing %d, want %d back", got, gcPercent)
	}
	paceWorkers(1)()
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Errorf("1 worker: pacing %d, want %d", got, gcPercent)
	}
	os.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	restore := paceWorkers(2)
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("2 workers with GOGC=150: pacing %d, want the user's 150", got)
	}
	restore()
	if got := debug.SetGCPercent(gcPercent); got != 150 {
		t.Errorf("2 workers with GOGC=150, after the check: pacing %d, want 150", got)
	}
}

// The CLI paces a check on two workers at workersGCPercent: run as main
// runs it (in a child process, GOGC unset), 2,000 set-px-lua runs collect
// 6-7 times on one worker at GOGC=400 and at most twice on two
// (GODEBUG=gctrace=1 prints a line per collection). Collections follow
// allocation, not the clock.
func TestPaceWorkersInTheCLI(t *testing.T) {
	collections := func(workers string) int {
		cmd := exec.Command(os.Args[0], "-test.run=^$") // TestMain runs the child
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GODEBUG=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, "GODEBUG=gctrace=1", paceChildEnv+"="+workers)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "2000 runs") {
			t.Fatalf("workers %s: the check did not run:\n%.2000s", workers, out)
		}
		n := 0
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "gc ") {
				n++
			}
		}
		return n
	}
	one, two := collections("1"), collections("2")
	t.Logf("collections: %d on one worker, %d on two", one, two)
	if one < 4 || two*2 >= one {
		t.Errorf("collections: %d on one worker, %d on two: want two workers to collect less than half as often", one, two)
	}
}

// paceChildEnv carries the worker count to the child (paceChild).
const paceChildEnv = "LOCKSIM_PACE_CHILD"

// paceChild runs TestPaceWorkersInTheCLI's child, from TestMain when
// paceChildEnv is set: a check run as main runs it (TestMain has paced
// the collector as main does), then the process exits.
func paceChild(workers string) {
	checkPacing = true
	dir, err := os.MkdirTemp("", "locksim-pace-")
	if err != nil {
		os.Exit(99)
	}
	code := run([]string{"check", "--design", "set-px-lua", "--runs", "2000", "--workers", workers, "--progress=false", "--save", dir + "/c.json"}, os.Stdout, os.Stderr)
	os.RemoveAll(dir)
	if code != exitSafe && code != exitViolation {
		os.Exit(100 + code)
	}
	os.Exit(0)
}
