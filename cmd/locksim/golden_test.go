package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/locksim -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got); if intended, run go test ./cmd/locksim -update and review the diff:\n%s", path, diff)
	}
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
