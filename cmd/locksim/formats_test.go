package main

import (
	"strings"
	"testing"
)

// TestFormatTable: checkFormat accepts exactly what formatTable says each
// command writes, and every command refuses another format with exit 2,
// listing what it writes: one validation for every --format.
func TestFormatTable(t *testing.T) {
	for _, r := range formatTable {
		for _, cmd := range r.commands {
			if err := checkFormat(cmd, r.name); err != nil {
				t.Errorf("%s --format %s: %v, want accepted", cmd, r.name, err)
			}
		}
	}
	if err := checkFormat("check --exhaustive", "markdown"); err == nil || !strings.Contains(err.Error(), `unknown --format "markdown" with --exhaustive (want text, json or html)`) {
		t.Errorf("check --exhaustive --format markdown: %v", err)
	}
	for _, args := range [][]string{
		{"check", "--design", "set-px-lua", "--runs", "1"},
		{"check", "--design", "set-px-lua", "--exhaustive"},
		{"merge", "x.json"},
		{"check-log", "x.log"},
		{"risk", "--design", "set-px-lua"},
		{"advise", "--design", "set-px-lua", "--target", "0.01"},
		{"matrix", "--seeds", "1"},
		{"sweep", "--seeds", "1"},
		{"run", "gc-pause", "--danger"},
		{"run", "gc-pause"},
	} {
		code, _, errs := runCLI(append(args, "--format", "pdf")...)
		if code != exitUsage || !strings.Contains(errs, `unknown --format "pdf"`) || !strings.Contains(errs, "(want text") {
			t.Errorf("%s --format pdf: exit %d %q, want 2 listing the formats", strings.Join(args, " "), code, firstLine(errs))
		}
	}
}

// TestOptionFlagFromTable: a design option's flag comes from its row of
// model.OptionTable alone: retry-jitter, added as one row, is a what-if
// flag of run and a flag of check, refused at 0 with the same words.
func TestOptionFlagFromTable(t *testing.T) {
	code, out, errs := runCLI("run", "gc-pause", "--retry-jitter", "50ms")
	if code > 1 || !strings.Contains(strings.Join(strings.Fields(out), " "), "--retry-jitter 50ms") {
		t.Errorf("run gc-pause --retry-jitter 50ms: exit %d %s, want the report to name the what-if:\n%s", code, errs, out)
	}
	if code, _, errs := runCLI("check", "--design", "set-px-lua", "--retry-jitter", "20ms", "--runs", "2", "--progress=false", "--save", t.TempDir()+"/f.json"); code > 1 {
		t.Errorf("check --retry-jitter 20ms: exit %d %s", code, errs)
	}
	_, _, runErr := runCLI("run", "gc-pause", "--retry-jitter", "0s")
	_, _, checkErr := runCLI("check", "--design", "set-px-lua", "--retry-jitter", "0s", "--runs", "1")
	if !strings.Contains(runErr, "--retry-jitter 0s: give a positive duration") || firstLine(strings.TrimPrefix(runErr, "locksim run: ")) != firstLine(strings.TrimPrefix(checkErr, "locksim check: ")) {
		t.Errorf("--retry-jitter 0s: run %q, check %q: want one refusal in the same words", firstLine(runErr), firstLine(checkErr))
	}
	if code, _, errs := runCLI("run", "gc-pause", "--option", "retry-jitter=30ms"); code > 1 {
		t.Errorf("run gc-pause --option retry-jitter=30ms: exit %d %s", code, errs)
	}
}
