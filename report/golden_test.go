package report

import (
	"testing"

	"locksim/internal/goldenfile"
)

// golden compares got with testdata/name, or rewrites it with -rewrite
// (package goldenfile; make golden regenerates every golden file).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name, string(got))
}
