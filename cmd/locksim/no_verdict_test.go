package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Inputs that would judge nothing exit 2 with the reason, never "held"
// with exit 0: the only node down for good with only liveness counted,
// pauses asked at a watchdog the design lacks, a zero time budget, one
// client.
func TestNoVerdictExitsTwo(t *testing.T) {
	down := filepath.Join(t.TempDir(), "down.txt")
	scenario := "name down\ntitle the only node down for good\ndesign set-px-lua\ntopology masters=1 replicas=0\nclients A B\nttl 1s\nwork 50ms\nfault node-crash r1 after A acquired\n----\nr1 goes down and stays down.\n"
	if err := os.WriteFile(down, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", down, "--invariants", "liveness"}, "no verdict"},
		{[]string{"check", "--design", "set-px-lua", "--faults", "pause", "--pause-at", "watchdog", "--runs", "3"}, "no watchdog"},
		{[]string{"check", "--design", "fenced", "--for", "0s"}, "--for 0s"},
		{[]string{"check", "--design", "fenced", "--clients", "1", "--runs", "3"}, "--clients 1"},
		{[]string{"check", "--design", "etcd-lease", "--faults", "evict", "--runs", "5"}, "no fault took effect"},
		// A strict resource enforces fencing itself: counting it alone
		// would judge nothing.
		{[]string{"check", "--design", "fenced", "--invariants", "fencing", "--runs", "3"}, "a strict resource rejects such a write itself"},
		{[]string{"run", "gc-pause", "--design", "fenced", "--fencing", "strict-reads", "--invariants", "fencing"}, "a strict resource rejects"},
		{[]string{"check", "--design", "fenced", "--invariants", "token-order", "--runs", "3"}, "ask for token-unique alone (token-order means token-unique,fencing)"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, errs, exitUsage, tc.want)
		}
	}
	// Counting every invariant, the same run has verdicts: exit 0.
	if code, out, errs := runCLI("run", down); code != exitSafe || !strings.Contains(out, "liveness          no verdict") {
		t.Errorf("run down.txt: exit %d, want %d with liveness no verdict\n%s%s", code, exitSafe, out, errs)
	}
}
