package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWrapWidth: prose wraps at the terminal's width (COLUMNS, else its
// size, else 80, at least 40) and never at anything but the default off a
// terminal: a file stays the same bytes.
func TestWrapWidth(t *testing.T) {
	for _, tc := range []struct {
		terminal bool
		columns  string
		query    int
		want     int
	}{
		{false, "120", 100, 0},
		{true, "120", 100, 120},
		{true, "", 100, 100},
		{true, "wide", 100, 100},
		{true, "", 0, 80},
		{true, "20", 0, 40},
	} {
		if got := wrapFor(tc.terminal, tc.columns, func() int { return tc.query }); got != tc.want {
			t.Errorf("wrapFor(%v, %q, %d) = %d, want %d", tc.terminal, tc.columns, tc.query, got, tc.want)
		}
	}
	t.Setenv("COLUMNS", "150")
	f, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := wrapWidth(f); got != 0 {
		t.Errorf("a file wraps at %d, want the default (0)", got)
	}
	if got := wrapWidth(&bytes.Buffer{}); got != 0 {
		t.Errorf("a buffer wraps at %d, want the default (0)", got)
	}
}
