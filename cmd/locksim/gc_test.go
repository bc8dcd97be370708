package main

import (
	"math"
	"os"
	"runtime/debug"
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
