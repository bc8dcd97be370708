package repocheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// packagePrefixed matches an error constructor whose message starts with a
// package name ("sim: ..."), and fmt.Errorf, which the module does not use.
var packagePrefixed = regexp.MustCompile(`(errors\.(New|Errorf|Wrap|Wrapf)\((?:[^"()]|\([^()]*\))*"(locksim|model|scenarios|sim|report|network|clock|script|engine|invariant|history|resp|realclient|atomicfile|consensus|verdict|harness): )|fmt\.Errorf\(`)

// TestErrorsOneWay: the module (and realclient) writes errors one way
// (locklog, a module a service imports, keeps to the standard library),
// with github.com/pkg/errors, and without package prefixes: a message says
// what went wrong and the callers' wrapping says where ("locksim run:
// unknown fencing ..."), so the command line strips nothing.
func TestErrorsOneWay(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (path == "tools" || path == "locklog" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for i, line := range strings.Split(string(b), "\n") {
			if packagePrefixed.MatchString(line) {
				t.Errorf("%s:%d: %s", path, i+1, strings.TrimSpace(line))
			}
			if strings.TrimSpace(line) == `"errors"` {
				t.Errorf(`%s:%d: imports the standard "errors"; use github.com/pkg/errors (it has Is and As too)`, path, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("read %d files: the walk is broken", files)
	}
}
