package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check-log's exit codes and refusals: 1 for a certain violation, 0 for
// only possible ones (1 with --possible-exits 1), 2 for bad input, bad
// flags and a log that judges nothing; JSON and markdown carry the same
// verdicts.
func TestCheckLogCLI(t *testing.T) {
	dir := t.TempDir()
	certain := filepath.Join("..", "..", "logcheck", "testdata", "certain.jsonl")
	possible := filepath.Join("..", "..", "logcheck", "testdata", "possible.jsonl")
	refusedOnly := filepath.Join(dir, "refused.jsonl")
	os.WriteFile(refusedOnly, []byte(`{"time":1,"host":"h","client":"c","key":"k","kind":"acquire-attempt"}`+"\n"+`{"time":2,"host":"h","client":"c","key":"k","kind":"refused"}`+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check-log", "--skew", "50ms", certain}, exitViolation, "mutual-exclusion  broken (1 certain)"},
		{[]string{"check-log", "--skew", "50ms", possible}, exitSafe, "possibly broken (1 possible)"},
		{[]string{"check-log", "--skew", "50ms", "--possible-exits", "1", possible}, exitViolation, "web-2's clock ran between 30ms and 100ms ahead of web-1's"},
		{[]string{"check-log", possible}, exitSafe, "mutual-exclusion  held"},
		{[]string{"check-log", "--skew", "50ms", "--format", "markdown", certain}, exitViolation, "| mutual-exclusion | broken | 1 | 0 |"},
		{[]string{"check-log", refusedOnly}, exitUsage, "nothing judged"},
		{[]string{"check-log"}, exitUsage, "at least one log file"},
		{[]string{"check-log", filepath.Join(dir, "nope.jsonl")}, exitUsage, "cannot read"},
		{[]string{"check-log", "--format", "pdf", certain}, exitUsage, "--format"},
		{[]string{"check-log", "--skew", "50ms", "--format", "html", certain}, exitViolation, "<h2>Timeline</h2>"},
		{[]string{"check-log", "--host-skew", "web-1", certain}, exitUsage, "HOST=DURATION"},
		// A bound for a host the log does not name (a typo) is refused,
		// naming it: web-1 would be judged at --skew (new-user trial).
		{[]string{"check-log", "--host-skew", "web1=200ms", certain}, exitUsage, `--host-skew names host "web1", which logs no event (the log's hosts: web-1, web-2)`},
		{[]string{"check-log", "--skew", "-1s", certain}, exitUsage, "negative"},
		{[]string{"check-log", "--possible-exits", "3", certain}, exitUsage, "give 0 or 1"},
		{[]string{"check-log", "-o", certain, certain}, exitUsage, "never overwrites an input"},
		// One log given twice (here by two spellings) would count every
		// grant and hold twice (new-user trial).
		{[]string{"check-log", certain, "./" + certain}, exitUsage, "are the same file: give each log once"},
		{[]string{"check-log", "--available", "1s", "--claim", "failover", certain}, exitUsage, "a log shows no faults"},
		{[]string{"check-log", "--available", "1s", "--claim", "quorum", certain}, exitUsage, "give minority or failover"},
		{[]string{"check-log", "--skew", "50ms", "--available", "1s", "--claim", "minority", certain}, exitViolation, "mutual-exclusion  broken (1 certain)"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d (want %d), want %q in\n%s%s", c.args, code, c.code, c.want, out, errs)
		}
	}
	js := filepath.Join(dir, "r.json")
	if code, _, errs := runCLI("check-log", "--skew", "50ms", "--format", "json", "-o", js, possible); code != exitSafe {
		t.Fatalf("json: exit %d %s", code, errs)
	}
	var r struct {
		Verdicts []struct {
			Invariant, Verdict string
			Possible           int
		}
		Violations []struct {
			Invariant string
			Certainty string
			OffsetMin int64 `json:"offset_min_ns"`
			OffsetMax int64 `json:"offset_max_ns"`
		}
	}
	// The overlap, and the premature loss it shows (web-2's grant inside
	// web-1's 10s validity, before its release), for the same offsets.
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &r); err != nil || len(r.Violations) != 2 || r.Verdicts[0].Verdict != "possibly broken" {
		t.Errorf("json: %v %+v\n%s", err, r, b)
	}
	for _, v := range r.Violations {
		if v.Certainty != "possible" || v.OffsetMin != -100e6 || v.OffsetMax != -30e6 || v.Invariant != "mutual-exclusion" && v.Invariant != "premature-loss" {
			t.Errorf("json: %+v", v)
		}
	}
}

// check --export writes the minimal failing run as a lock log, and
// check-log finds the same break in it; a check where nothing broke
// writes none and says so.
func TestCheckExport(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "min.jsonl")
	code, _, errs := runCLI("check", "--design", "setnx-expire", "--invariants", "mutual-exclusion", "--runs", "200", "--export", log, "--save", filepath.Join(dir, "case.json"), "--progress=false")
	if code != exitViolation || !strings.Contains(errs, "lock log exported to "+log) {
		t.Fatalf("check: exit %d\n%s", code, errs)
	}
	code, out, errs := runCLI("check-log", log)
	if code != exitViolation || !strings.Contains(out, "broken") {
		t.Errorf("check-log of the minimal run: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runCLI("check", "--design", "fenced", "--runs", "3", "--export", filepath.Join(dir, "none.jsonl"), "--save", "", "--progress=false"); code == exitViolation || !strings.Contains(errs, "no lock log was written") {
		t.Errorf("a clean check: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.jsonl")); err == nil {
		t.Error("a clean check wrote a log")
	}
}
