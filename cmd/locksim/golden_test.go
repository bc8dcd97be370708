package main

import (
	"path/filepath"
	"testing"

	"locksim/internal/goldenfile"
)

// golden compares got with testdata/name, or rewrites it with -rewrite
// (package goldenfile; make golden regenerates every golden file).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got)
}

// TestMatrixGolden: the whole design x scenario matrix over two seeds. Its
// verdicts come from running the simulation; the file is reviewed by diff.
func TestMatrixGolden(t *testing.T) {
	code, out, errs := runCLI("matrix", "--seeds", "2")
	if code != exitSafe {
		t.Fatalf("matrix exit %d: %s", code, errs)
	}
	golden(t, "matrix.txt", out)
	if _, one, _ := runCLI("matrix", "--seeds", "2", "--workers", "1"); one != out {
		t.Error("the matrix depends on --workers")
	}
}

// TestRunGolden: the terminal story of a few scenarios for a fixed seed.
func TestRunGolden(t *testing.T) {
	for _, tc := range []struct{ scenario, design string }{
		{"gc-pause", "set-px-lua"},
		{"gc-pause", "fenced"},
		{"crash-before-expire", "setnx-expire"},
		{"failover-lost-write", "set-px-lua"},
		{"token-regression", "fenced"}, // a nonstrict resource accepts a reissued token: fencing broken
	} {
		t.Run(tc.scenario+"/"+tc.design, func(t *testing.T) {
			_, out, errs := runCLI("run", tc.scenario, "--design", tc.design, "--seed", "1")
			if errs != "" {
				t.Fatalf("stderr: %s", errs)
			}
			golden(t, "run-"+tc.scenario+"-"+tc.design+".txt", out)
			_, js, _ := runCLI("run", tc.scenario, "--design", tc.design, "--seed", "1", "--format", "json")
			golden(t, "run-"+tc.scenario+"-"+tc.design+".json", js)
		})
	}
}

// TestFieldRunGolden: the terminal story of each failure from the field on
// its own design, seed 1 (text only: scenarios/testdata/timelines holds
// their events).
func TestFieldRunGolden(t *testing.T) {
	for _, sc := range []string{"redsync-186", "redisson-3994", "redisson-5256", "redisson-5697", "redisson-2665", "jepsen-sentinel", "valkey-2651"} {
		t.Run(sc, func(t *testing.T) {
			code, out, errs := runCLI("run", sc, "--seed", "1")
			if code != exitViolation {
				t.Fatalf("exit %d, want %d (the scenario breaks its design): %s", code, exitViolation, errs)
			}
			golden(t, "run-"+sc+".txt", out)
		})
	}
	// jepsen-sentinel's fix from the command line: no violation.
	code, out, errs := runCLI("run", "jepsen-sentinel", "--seed", "1", "--min-replicas-to-write", "1", "--min-replicas-max-lag", "1s")
	if code != exitSafe {
		t.Fatalf("jepsen-sentinel with min-replicas-to-write 1: exit %d, want %d: %s", code, exitSafe, errs)
	}
	golden(t, "run-jepsen-sentinel-min-replicas.txt", out)
}

// TestLuaDesignGoldens: your own Lua design in matrix and sweep, and
// Redisson's scripts unmodified through the KEYS/ARGV mapping.
func TestLuaDesignGoldens(t *testing.T) {
	lua := func(f string) string { return filepath.Join("testdata", "lua", f) }
	redisson := []string{"--acquire", lua("redisson-lock.lua"), "--release", lua("redisson-unlock.lua"), "--renew", lua("redisson-renew.lua"),
		"--acquire-args", "KEYS=lock ARGV=ttl,value", "--release-args", "KEYS=lock,redisson_lock__channel:{lock} ARGV=0,ttl,value",
		"--renew-args", "KEYS=lock ARGV=ttl,value", "--held", "nil"}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"matrix-lua.txt", []string{"matrix", "--seeds", "1", "--designs", "set-px-lua", "--acquire", lua("acquire.lua"), "--release", lua("release-del.lua")}, exitSafe},
		{"sweep-lua-delay.txt", []string{"sweep", "--param", "delay", "--seeds", "1", "--x", "250ms,500ms,1s,2s", "--y", "100ms:3s:8:log",
			"--acquire", lua("acquire.lua"), "--release", lua("release-del.lua"), "--progress=false"}, exitSafe},
		{"run-redisson-gc-pause.txt", append([]string{"run", "gc-pause"}, redisson...), exitViolation},
		{"check-redisson-no-faults.txt", append([]string{"check", "--faults", "pause", "--runs", "1", "--max-faults", "1", "--pause-at", "time", "--progress=false",
			"--save", filepath.Join(t.TempDir(), "c.json")}, redisson...), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(tc.args...)
			if tc.code >= 0 && code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errs)
			}
			if tc.code < 0 && code == exitUsage {
				t.Fatalf("exit 2: %s", errs)
			}
			golden(t, tc.name, out)
		})
	}
}
