package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// unsafeToken reports whether a fuzzed argument could write a file or
// make the command run long (a run count, a budget, exhaustive mode): the
// fuzz targets leave those out and fix them themselves.
func unsafeToken(tok string) bool {
	name := strings.TrimLeft(tok, "-")
	name, _, _ = strings.Cut(name, "=")
	switch name {
	case "o", "save", "save-dir", "runs", "for", "exhaustive", "seeds", "x", "y", "shard", "shards":
		return strings.HasPrefix(tok, "-")
	}
	return false
}

func fuzzArgs(base []string, s string) []string {
	args := base
	for i, tok := range strings.Fields(s) {
		if i == 8 {
			break
		}
		if !unsafeToken(tok) {
			args = append(args, tok)
		}
	}
	return args
}

// FuzzCLI: whatever flags and values follow `run gc-pause` or `check`,
// the command neither panics nor hangs: it exits 0, 1 or 2, and exit 2
// says why.
func FuzzCLI(f *testing.F) {
	for _, s := range []string{"--design fenced", "--seed 9223372036854775807", "--ttl 1708301h", "--fencing maybe",
		"--invariants token-order", "--format html", "--design redlock --nodes 0", "--clients 99", "--cycles 100000 --work 1h",
		"--faults evict --pause-at release", "--danger", "--depth 2", "--durations ttl+", "--acquire /nonexistent"} {
		f.Add(true, s)
		f.Add(false, s)
	}
	f.Fuzz(func(t *testing.T, check bool, s string) {
		base := []string{"run", "gc-pause"}
		if check {
			base = []string{"check", "--design", "set-px-lua", "--runs", "2", "--progress=false", "--save", filepath.Join(t.TempDir(), "c.json")}
		}
		args := fuzzArgs(base, s)
		code, _, errs := runCLI(args...)
		switch {
		case code < 0 || code > 2:
			t.Fatalf("%q: exit %d", args, code)
		case code == exitUsage && strings.TrimSpace(errs) == "":
			t.Fatalf("%q: exit 2 without a message", args)
		}
	})
}
