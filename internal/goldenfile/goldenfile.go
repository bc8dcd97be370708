// Package goldenfile compares test output with files under a package's
// testdata directory: the one golden-file helper of the module's tests.
//
// When a golden test fails, run `make golden` (or the package's tests with
// -rewrite: go test ./report -run TestTextGolden -rewrite) and inspect the
// diff with git diff. Only commit the changes if you understand what
// caused them: a golden file is a reviewed verdict, not a snapshot to
// refresh.
package goldenfile

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/internal/fingerprint"
)

// Fingerprint stands for the simulator fingerprint in golden files.
const Fingerprint = "FINGERPRINT"

// rewrite makes Check write the files instead of comparing them. Every
// test binary that imports the package has the flag.
var rewrite = flag.Bool("rewrite", false, "rewrite the golden files under testdata/ instead of comparing (review them with git diff)")

// Check compares got with testdata/name (name may hold directories), or
// with -rewrite writes got there. A difference is reported as a cmp.Diff
// (-want +got) naming the file.
//
// The simulator fingerprint (package fingerprint), which changes with
// every source change, is written and compared as FINGERPRINT, so that a
// change to the sources needs make fingerprint, not make golden.
func Check(t testing.TB, name, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, fingerprint.Sum, Fingerprint)
	path := filepath.Join("testdata", name)
	if *rewrite {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with make golden, or go test -run %s -rewrite in this package)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got); if the change is intended, run make golden and review the diff:\n%s", path, diff)
	}
}
