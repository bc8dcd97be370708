package main

import (
	"strings"
	"testing"
)

// A scenario whose fault is of a kind exhaustive mode places only when
// asked (starve) draws its danger map with that kind too, after the
// default kinds; a scenario of default kinds draws the defaults alone.
func TestDangerMapPlacesTheScenariosOwnKind(t *testing.T) {
	code, out, errOut := runCLI("run", "redisson-2665", "--design", "watchdog", "--danger", "--work", "100ms")
	if code != exitViolation || !strings.Contains(out, "fault kinds pause, crash, drop, delay, partition, node-crash, clock-jump, starve;") {
		t.Errorf("run redisson-2665 --danger: exit %d, want %d and starve among the kinds placed:\n%.600s%s", code, exitViolation, out, errOut)
	}
	code, out, errOut = runCLI("run", "gc-pause", "--design", "watchdog", "--danger")
	if code != exitViolation || !strings.Contains(out, "fault kinds pause, crash, drop, delay, partition, node-crash, clock-jump;") {
		t.Errorf("run gc-pause --danger: exit %d, want %d and the default kinds alone:\n%.600s%s", code, exitViolation, out, errOut)
	}
}
