package main

import (
	"strings"
	"testing"
)

// memory-pressure-burst's danger map places memory-pressure bursts (a
// kind exhaustive mode places only when asked) after the default kinds,
// and shows what they break.
func TestDangerMapPlacesMemoryPressure(t *testing.T) {
	code, out, errOut := runCLI("run", "memory-pressure-burst", "--danger", "--work", "100ms")
	if code != exitViolation || !strings.Contains(out, "fault kinds pause, crash, drop, delay, partition, node-crash, clock-jump, memory-pressure;") ||
		!strings.Contains(out, "  memory-pressure: ") {
		t.Errorf("run memory-pressure-burst --danger: exit %d, want %d, memory-pressure among the kinds placed and its ways:\n%.3000s%s", code, exitViolation, out, errOut)
	}
}
