package engine

import (
	"testing"

	"locksim/internal/goldenfile"
)

// golden compares got with testdata/name, or rewrites it with -rewrite
// (package goldenfile; make golden regenerates every golden file).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got)
}
