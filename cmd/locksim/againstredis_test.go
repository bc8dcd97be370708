package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"locksim/sim"
	"locksim/sim/script/redistest"
)

// saveCase runs locksim run with args and --save, and returns the case.
func saveCase(t *testing.T, args ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "case.json")
	if code, _, errs := runCLI(append(append([]string{"run"}, args...), "--save", path)...); code == exitUsage {
		t.Fatalf("run %q: exit %d: %s", args, code, errs)
	}
	return path
}

// replay --against-redis without a redis-server, and with flags it does
// not take, is a usage error that says why (no server needed).
func TestReplayAgainstRedisRefusals(t *testing.T) {
	c := saveCase(t, "no-faults")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", c, "--against-redis", "-o", filepath.Join(t.TempDir(), "x.txt")}, "takes no -o, --format or --invariants"},
		{[]string{"replay", c, "--against-redis", "--format", "json"}, "takes no -o, --format or --invariants"},
	} {
		if code, out, errs := runCLI(tc.args...); code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, want %d with %q: %s%s", tc.args, code, exitUsage, tc.want, out, errs)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if code, out, errs := runCLI("replay", c, "--against-redis"); code != exitUsage || !strings.Contains(errs, "needs redis-server on PATH") {
		t.Errorf("no redis-server: exit %d: %s%s", code, out, errs)
	}
}

// replay --against-redis replays a case's commands on a real
// redis-server: a clean set-px-lua run agrees reply for reply; a Lua
// design whose release returns a score differs there (the simulation
// prints 0.1, Redis 7.0 %.17g: a listed difference), which it prints; a
// case modelling
// redis-8.4 is refused against the 7.0 server here. Required under
// LOCKSIM_REQUIRE_REDIS=1.
func TestReplayAgainstRedis(t *testing.T) {
	if !redistest.Available() {
		redistest.Missing(t)
	}
	clean := saveCase(t, "no-faults", "--design", "set-px-lua")
	code, out, errs := runCLI("replay", clean, "--against-redis")
	if code != exitSafe || !strings.Contains(out, "commands: every reply agrees") || !strings.Contains(out, "against redis-server 7.0.") {
		t.Errorf("a clean run: exit %d, want %d:\n%s%s", code, exitSafe, out, errs)
	}
	lua := func(f string) string { return filepath.Join("testdata", "lua", f) }
	bad := saveCase(t, "no-faults", "--acquire", lua("acquire.lua"), "--release", lua("float-release.lua"))
	code, out, errs = runCLI("replay", bad, "--against-redis")
	if code != exitViolation || !strings.Contains(out, "first difference, command ") ||
		!strings.Contains(out, `simulation: "0.1"`) || !strings.Contains(out, `real Redis: "0.10000000000000001"`) {
		t.Errorf("a score: exit %d, want %d:\n%s%s", code, exitViolation, out, errs)
	}
	newer := saveCase(t, "no-faults", "--design", "set-ifeq")
	code, out, errs = runCLI("replay", newer, "--against-redis")
	if code != exitUsage || !strings.Contains(errs, "the case's nodes model redis-8.4 and redis-server here is 7.0.") {
		t.Errorf("a redis-8.4 case: exit %d, want %d:\n%s%s", code, exitUsage, out, errs)
	}
}

// planReplay stops at what a real server cannot follow and says why.
func TestPlanReplayStops(t *testing.T) {
	exec := func(at int, args ...string) sim.Event {
		return sim.Event{Kind: sim.KindExec, Actor: "r1", Peer: "A", Args: args, Reply: "OK", At: time.Duration(at) * time.Millisecond}
	}
	for _, tc := range []struct {
		h         sim.History
		steps     int
		stopsWith string
	}{
		{sim.History{exec(1, "SET", "k", "v"), exec(2, "GET", "k")}, 2, ""},
		{sim.History{exec(1, "SET", "k", "v"), {Kind: sim.KindReplApply, Actor: "r2"}, exec(3, "GET", "k")}, 1, "replication is not replayed"},
		{sim.History{exec(1, "SET", "k", "v"), {Kind: sim.KindClockJump, Actor: "r1"}, exec(3, "GET", "k")}, 1, "clock cannot be stepped"},
		{sim.History{exec(1, "SET", "k", "v"), {Kind: sim.KindClockJump, Actor: "A"}, exec(3, "GET", "k")}, 2, ""},
		{sim.History{exec(1, "SET", "k", "v"), {Kind: sim.KindNodeUp, Actor: "r1"}, exec(3, "GET", "k")}, 3, ""},
		{sim.History{exec(1, "SET", "k", "v"), {Kind: sim.KindNodeUp, Actor: "r1", N: 1}, exec(3, "GET", "k")}, 1, "keys its persistence kept"},
		{sim.History{exec(1, "SET", "k", strings.Repeat("x", sim.MaxRecordedBytes)+"...(5000 bytes)")}, 0, "first 4096 bytes"},
		{sim.History{exec(1, "SET", "k", "v"), {Kind: sim.KindMemoryPressure, Actor: "r1", Note: "maxmemory 100 allkeys-lru"}, exec(3, "GET", "k")}, 1, "memory-pressure burst"},
	} {
		steps, _, stop := planReplay(tc.h)
		if len(steps) != tc.steps || !strings.Contains(stop, tc.stopsWith) || (tc.stopsWith == "") != (stop == "") {
			t.Errorf("%v: %d steps, stop %q; want %d, %q", tc.h, len(steps), stop, tc.steps, tc.stopsWith)
		}
	}
}
