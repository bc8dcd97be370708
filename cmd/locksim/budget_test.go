package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// check --for runs until the budget is spent and prints the runs it
// reached; --runs with that number makes the same runs, so the summary is
// the same. The clock is fake (1 ms a reading, read once per run started),
// so the budget of 50 ms reaches exactly 49 runs, whatever the workers.
func TestCheckForBudget(t *testing.T) {
	dir := t.TempDir()
	args := []string{"check", "--design", "set-px-lua", "--progress=false", "--save", filepath.Join(dir, "case.json")}
	var first string
	for _, workers := range []string{"1", "2"} {
		useClock(t, newFakeClock(time.Millisecond))
		code, out, errs := runCLI(append(args, "--for", "50ms", "--workers", workers)...)
		if code != exitViolation && code != exitSafe {
			t.Fatalf("--for: exit %d: %s", code, errs)
		}
		if !strings.HasPrefix(out, "design set-px-lua: 49 runs in the time budget, ") {
			t.Fatalf("--for 50ms with %s workers does not say it reached 49 runs:\n%s", workers, out)
		}
		if first != "" && out != first {
			t.Errorf("the budget's summary depends on the workers")
		}
		first = out
	}
	code, out, _ := runCLI(append(args, "--runs", "49")...)
	if want := strings.Replace(first, " in the time budget", "", 1); out != want {
		t.Errorf("--runs 49 (exit %d) differs from what --for reached:\n%s\nwant:\n%s", code, out, want)
	}
	// Both: the runs stop at the budget and the summary says so.
	useClock(t, newFakeClock(time.Millisecond))
	if _, out, _ := runCLI(append(args, "--for", "50ms", "--runs", "1000")...); !strings.Contains(out, "49 runs, ") || !strings.Contains(out, "(stopped at the time budget, 1000 planned)") {
		t.Errorf("--for with --runs:\n%s", out)
	}
	// And the real clock: a short budget ends and prints what it reached.
	wallClock = time.Now
	code, out, errs := runCLI(append(args, "--for", "100ms", "--format", "json")...)
	if (code != exitSafe && code != exitViolation) || !strings.Contains(out, `"for_ns": 100000000`) && !strings.Contains(out, `"for_ns":100000000`) {
		t.Errorf("--for 100ms on the wall clock: exit %d %s\n%.400s", code, errs, out)
	}
}
