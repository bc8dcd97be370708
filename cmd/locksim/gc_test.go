package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// The CLI paces its collector at gcPercent unless GOGC is set, and then
// leaves the user's value.
func TestPaceGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "150") // restored after the test
	debug.SetGCPercent(150)
	if got := paceGC(); got != 150 || debug.SetGCPercent(150) != 150 {
		t.Errorf("with GOGC=150: pacing %d, want the user's 150", got)
	}
	os.Unsetenv("GOGC")
	if got := paceGC(); got != gcPercent || debug.SetGCPercent(100) != gcPercent {
		t.Errorf("without GOGC: pacing %d, want %d", got, gcPercent)
	}
}
