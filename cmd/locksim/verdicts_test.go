package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoVerdictWithoutEvidence (issue 27): a check, run or matrix that
// judged nothing exits 2 with the reason, never "held" with exit 0.
func TestNoVerdictWithoutEvidence(t *testing.T) {
	dir := t.TempDir()
	vacuous := filepath.Join(dir, "until.txt")
	os.WriteFile(vacuous, []byte("name until-1ns\ntitle nobody acquires\ndesign set-px-lua\nclients A B\nuntil 1ns\nfault pause A for 1.5s after A write\n----\nNobody gets to acquire.\n"), 0o644)
	save := filepath.Join(dir, "case.json")
	check := func(args ...string) []string {
		return append([]string{"check", "--design", "set-px-lua", "--progress=false", "--save", save}, args...)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"a budget spent before the first run", check("--for", "1ns"), "no verdict: no run was made"},
		{"a shard past the runs", check("--runs", "30", "--shard", "40/100"), "shard 40/100 has no runs"},
		{"an invariant the design cannot judge", check("--runs", "5", "--invariants", "fifo"), "invariant fifo cannot apply to design set-px-lua (the design promises no grant order)"},
		{"fencing on an unfenced resource", check("--runs", "5", "--invariants", "fencing", "--format", "markdown"), "invariant fencing cannot apply to design set-px-lua (the resource is not fenced)"},
		{"exhaustive, an invariant the design cannot judge", []string{"check", "--design", "set-px-lua", "--exhaustive", "--invariants", "fifo"}, "invariant fifo cannot apply"},
		{"seeds that wrap", check("--seed", "18446744073709551614", "--runs", "5"), "would wrap past 2^64-1"},
		{"matrix, an invariant no design judges", []string{"matrix", "--designs", "set-px-lua", "--seeds", "1", "--invariants", "fifo"}, "invariant fifo cannot apply to any cell"},
		{"run, an invariant the design cannot judge", []string{"run", "gc-pause", "--invariants", "fifo"}, "invariant fifo cannot apply"},
		{"a run where nobody acquired", []string{"run", vacuous}, "no verdict: vacuous: no client acquired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(tc.args...)
			if code != exitUsage || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q\nstdout:\n%s", code, errs, tc.want, out)
			}
		})
	}
	if _, err := os.Stat(save); err == nil {
		t.Errorf("a check with no verdict saved a case")
	}
	// fenced's default resource is strict, but token-regression's cell
	// runs it nonstrict and judges fencing: the matrix may show it.
	if code, out, errs := runCLI("matrix", "--designs", "fenced", "--seeds", "1", "--invariants", "fencing"); code != exitSafe {
		t.Errorf("matrix --invariants fencing: exit %d\n%s%s", code, out, errs)
	}
	// The vacuous run says so where held used to be.
	_, out, _ := runCLI("run", vacuous)
	for _, want := range []string{"Vacuous: no client acquired", "mutual-exclusion  no verdict (vacuous: no client acquired)",
		"fault    pause A for 1.5s after A write (never fired: its trigger never happened)"} {
		if !strings.Contains(out, want) {
			t.Errorf("run of a vacuous scenario lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "No violations found") {
		t.Errorf("a vacuous run says no violations found:\n%s", out)
	}
}

// TestFaultsNone: --faults none runs without faults (does the design work
// at all?) and the summary says no faults were drawn.
func TestFaultsNone(t *testing.T) {
	code, out, errs := runCLI("check", "--design", "set-px-lua", "--runs", "20", "--faults", "none", "--progress=false", "--save", filepath.Join(t.TempDir(), "c.json"))
	if code != exitSafe || !strings.Contains(out, "faults: none drawn") {
		t.Errorf("exit %d (%s), want 0 and a summary saying no faults were drawn:\n%s", code, errs, out)
	}
}

// TestCoverageBlock: check's summary says what the faults did, in every
// format, and warns of a placement that never fired.
func TestCoverageBlock(t *testing.T) {
	dir := t.TempDir()
	base := []string{"check", "--design", "set-px-lua", "--runs", "40", "--progress=false", "--save", filepath.Join(dir, "c.json")}
	_, text, _ := runCLI(base...)
	for _, want := range []string{"faults: ", " fired", "runs with a failover", "fired per kind: pause ", "per placement: acquire "} {
		if !strings.Contains(text, want) {
			t.Errorf("text summary lacks %q:\n%s", want, text)
		}
	}
	_, md, _ := runCLI(append(base, "--format", "markdown")...)
	if !strings.Contains(md, "| faults | ") {
		t.Errorf("markdown summary lacks the faults row:\n%s", md)
	}
	_, js, _ := runCLI(append(base, "--format", "json")...)
	if !strings.Contains(js, `"coverage": {`) || !strings.Contains(js, `"fired_per_kind"`) {
		t.Errorf("JSON summary lacks the coverage object:\n%s", js[max(0, len(js)-1500):])
	}
	// Pauses inside a watchdog renewal, in runs too short to renew: none
	// fires, and the summary says so.
	_, warn, _ := runCLI("check", "--design", "watchdog", "--runs", "3", "--faults", "pause", "--pause-at", "watchdog", "--work", "10ms",
		"--cycles", "1", "--progress=false", "--save", filepath.Join(dir, "w.json"))
	if !strings.Contains(warn, "warning: placement watchdog (pauses and client crashes) never fired") {
		t.Errorf("no warning for a placement that never fired:\n%s", warn)
	}
}

// TestOneValidationForEveryPath (issue 27): a setting the design cannot
// use is refused alike from a scenario file, run --option and check.
func TestOneValidationForEveryPath(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	readers := write("readers.txt", "name rd\ntitle x\ndesign read-write-lock\nclients A B\nreaders 5\n----\nx\n")
	wait := write("wait.txt", "name wr\ntitle x\ndesign wait-replica\nclients A B\noption wait-replicas=16\n----\nx\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", readers}, "readers 5: more than the 2 clients"},
		{[]string{"check", "--scenario", readers, "--runs", "2", "--progress=false"}, "readers 5: more than the 2 clients"},
		{[]string{"run", wait}, "wait-replicas 16: more than the 1 replica(s) per master"},
		{[]string{"check", "--scenario", wait, "--runs", "2", "--progress=false"}, "wait-replicas 16: more than the 1 replica(s) per master"},
		{[]string{"run", "gc-pause", "--design", "fair-lock", "--option", "quorum=1"}, "quorum applies to designs that take a quorum"},
		{[]string{"check", "--design", "fair-lock", "--quorum", "1", "--runs", "2", "--progress=false"}, "quorum applies to designs that take a quorum"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
