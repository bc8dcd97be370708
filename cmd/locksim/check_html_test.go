package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckHTML: check --format html -o FILE writes one page with the
// tallies, what ran, the summary and the minimal case's timeline; the
// same check writes the same bytes; a passing check's page says there is
// no case.
func TestCheckHTML(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "check.html")
	args := []string{"check", "--design", "fenced", "--runs", "10", "--workers", "2", "--format", "html", "-o", page, "--save", filepath.Join(dir, "case.json")}
	code, out, errs := runCLI(args...)
	if code != exitViolation {
		t.Fatalf("exit %d, want %d (a violation)\n%s%s", code, exitViolation, out, errs)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"<!DOCTYPE html>", "<title>locksim check: design fenced</title>", `id="headline">design fenced: 10 runs,`,
		`<tr class="broken" data-invariant="mutual-exclusion">`, `<h2 class="case">The minimal failing case</h2>`, `<svg id="lanes"`,
		`data-section="What ran"`, `data-section="Summary"`, `<tr data-field="broken_runs">`, `<tr data-field="minimal_schedule">`, "replay with: locksim replay"} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(out, "summary in "+page) {
		t.Errorf("stdout does not say where the page went: %q", out)
	}
	again := filepath.Join(dir, "again.html")
	args[len(args)-3] = again
	runCLI(args...)
	if b2, _ := os.ReadFile(again); !bytes.Equal(b, b2) {
		t.Error("the same check wrote a different page")
	}
	okPage := filepath.Join(dir, "ok.html")
	if code, out, errs := runCLI("check", "--design", "fenced", "--runs", "2", "--format", "html", "-o", okPage, "--save", filepath.Join(dir, "ok.json")); code != exitSafe {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(okPage); !strings.Contains(string(b), "there is no failing case to draw") || strings.Contains(string(b), `<svg id="lanes"`) {
		t.Error("a passing check's page draws a timeline or does not say why not")
	}
}
