package main

import (
	"strings"
	"testing"
)

// TestWhatIfFlags: run's what-if flags change one knob of the scenario and
// rerun the same story: the report says what changed, the run is the
// changed one (a longer TTL outlives gc-pause's 1.5s pause, so the
// violation goes; aof-always keeps redsync-186's key), and bad values are
// refused with exit 2 as check refuses them (one code path:
// applyCheckFlags).
func TestWhatIfFlags(t *testing.T) {
	code, out, errs := runCLI("run", "gc-pause", "--ttl", "3s")
	if code != exitSafe {
		t.Fatalf("run gc-pause --ttl 3s exit %d, want 0 (the 3s lease outlives the 1.5s pause): %s\n%s", code, errs, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"what if --ttl 3s", "ttl 3s)", "this run changes --ttl 3s"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := runCLI("run", "gc-pause", "--pause", "500ms"); code != exitSafe || !strings.Contains(out, "pause A for 500ms") {
		t.Errorf("run gc-pause --pause 500ms exit %d, want 0 with the 500ms pause:\n%s", code, out)
	}
	if code, _, _ := runCLI("run", "gc-pause", "--pause", "1.5s"); code != exitViolation {
		t.Errorf("run gc-pause --pause 1.5s (the scenario's own) exit %d, want 1", code)
	}
	if code, out, _ := runCLI("run", "redsync-186", "--persistence", "aof-always"); code != exitSafe {
		t.Errorf("run redsync-186 --persistence aof-always exit %d, want 0:\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"run", "gc-pause", "--ttl", "0s"},
		{"run", "gc-pause", "--persistence", "sometimes"},
		{"run", "clock-jump", "--pause", "1s"}, // no pause fault to change
		{"run", "gc-pause", "--pause", "-1s"},
		{"run", "gc-pause", "--clients", "1"},
		{"run", "gc-pause", "--queue-wait", "1s"}, // set-px-lua keeps no queue
	} {
		code, _, errs := runCLI(bad...)
		if code != exitUsage || errs == "" {
			t.Errorf("%s: exit %d (%q), want 2 with the reason", strings.Join(bad, " "), code, errs)
		}
	}
	// check refuses --ttl 0s with the same words: one code path.
	_, _, runErr := runCLI("run", "gc-pause", "--ttl", "0s")
	_, _, checkErr := runCLI("check", "--design", "set-px-lua", "--ttl", "0s", "--runs", "1")
	first := func(s, cmd string) string {
		l, _, _ := strings.Cut(s, "\n")
		return strings.TrimPrefix(l, "locksim "+cmd+": ")
	}
	if runErr == "" || first(runErr, "run") != first(checkErr, "check") {
		t.Errorf("run and check word --ttl 0s differently:\nrun:   %s\ncheck: %s", runErr, checkErr)
	}
}

// TestDetailsUnfoldsNotChecked: a run names its invariants not checked on
// one line; --details lists each with its reason.
func TestDetailsUnfoldsNotChecked(t *testing.T) {
	_, out, _ := runCLI("run", "gc-pause")
	if !strings.Contains(out, "not checked here: token-unique, fencing") || strings.Contains(out, "token-unique      not checked (") {
		t.Errorf("without --details the not-checked verdicts are not on one line:\n%s", out)
	}
	_, out, _ = runCLI("run", "gc-pause", "--details")
	if !strings.Contains(out, "token-unique      not checked (the design grants no fencing tokens)") || strings.Contains(out, "not checked here") {
		t.Errorf("--details does not list each verdict with its reason:\n%s", out)
	}
}
