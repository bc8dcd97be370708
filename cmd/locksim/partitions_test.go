package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check --partitions chooses what a drawn partition does to the streams
// it cuts: reset (the default) or blackhole (scenarios.Gen.Blackhole),
// recorded in the campaign (the JSON summary's gen); any other value is a
// usage error (exit 2).
func TestCheckPartitionsFlag(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []string{"reset", "blackhole"} {
		out := filepath.Join(dir, mode+".json")
		code, _, stderr := runCLI("check", "--design", "set-px-lua", "--faults", "partition", "--partitions", mode, "--runs", "3", "--workers", "1", "--format", "json", "-o", out)
		if code != 0 {
			t.Fatalf("--partitions %s: exit %d, stderr %s", mode, code, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) {
			t.Fatalf("--partitions %s: the summary is not JSON", mode)
		}
		if got := strings.Contains(string(data), `"Blackhole":true`); got != (mode == "blackhole") {
			t.Errorf("--partitions %s: summary records blackhole %v", mode, got)
		}
	}
	code, _, stderr := runCLI("check", "--design", "set-px-lua", "--partitions", "drop", "--runs", "1")
	if code != 2 || !strings.Contains(stderr, "want reset or blackhole") {
		t.Errorf("--partitions drop: exit %d, stderr %q; want 2 naming the modes", code, stderr)
	}
}
