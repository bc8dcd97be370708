package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// check --format markdown writes the short summary (engine's golden files
// hold its exact form) with the same exit code as the text summary, and to
// -o when asked: a CI job appends it to its summary.
func TestCheckMarkdown(t *testing.T) {
	dir := t.TempDir()
	save := filepath.Join(dir, "case.json")
	code, out, errs := runCLI("check", "--design", "set-px-lua", "--runs", "300", "--format", "markdown", "--progress=false", "--save", save)
	if code != exitViolation {
		t.Fatalf("exit %d, want 1: %s", code, errs)
	}
	for _, want := range []string{"### locksim check: `set-px-lua` broke mutual-exclusion", "| broken runs | **31 (10.3%)** |", "**Replay:** `locksim replay " + save + "`"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	md := filepath.Join(dir, "summary.md")
	code, out, _ = runCLI("check", "--design", "fenced", "--fencing", "strict-reads", "--faults", "pause,delay", "--invariants", "lost-update",
		"--runs", "100", "--format", "md", "-o", md, "--progress=false")
	if code != exitSafe || !strings.Contains(out, "summary in "+md) {
		t.Errorf("exit %d, want 0: %s", code, out)
	}
	if code, _, errs := runCLI("check", "--design", "fenced", "--format", "pdf"); code != exitUsage || !strings.Contains(errs, "want text, json, markdown or html") {
		t.Errorf("--format pdf: exit %d %s", code, errs)
	}
}
