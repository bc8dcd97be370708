package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fileMaps are the packages whose doc.go is a map of their files (from
// the module root): each non-test .go file must be named in it, so a new
// file cannot be added without saying what it holds.
var fileMaps = []string{"model", "harness", "verdict", "internal/repocheck", "internal/zoo"}

// TestFileMapsNameEveryFile: every file of a mapped package is named in
// its doc.go, and every .go name in the map is a file of the package.
func TestFileMapsNameEveryFile(t *testing.T) {
	root := "." // TestMain moved to the module root
	named := regexp.MustCompile(`\b[a-z0-9_]+\.go\b`)
	for _, pkg := range fileMaps {
		dir := filepath.Join(root, pkg)
		doc, err := os.ReadFile(filepath.Join(dir, "doc.go"))
		if err != nil {
			t.Fatal(err)
		}
		// Only the comment names files (an example may mention others).
		text := string(doc)
		if i := strings.Index(text, "\npackage "); i >= 0 {
			text = text[:i]
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]bool{}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") {
				continue
			}
			files[name] = true
			if strings.HasSuffix(name, "_test.go") || name == "doc.go" {
				continue
			}
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(text) {
				t.Errorf("%s/doc.go: the file map does not name %s", pkg, name)
			}
		}
		for _, n := range named.FindAllString(text, -1) {
			if !files[n] && !strings.Contains(n, "/") {
				t.Errorf("%s/doc.go names %s, which is not a file of the package", pkg, n)
			}
		}
	}
}
