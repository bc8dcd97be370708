package tools

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// workflowFile matches a GitHub Actions workflow: a top-level jobs: key
// next to a top-level on: key (a Kubernetes manifest has neither).
var workflowFile = [2]*regexp.Regexp{regexp.MustCompile(`(?m)^jobs:`), regexp.MustCompile(`(?m)^(on|"on"):`)}

// workflows returns every workflow file in the repository: the recipes
// and .github/workflows, wherever they are, outside installed packages.
func workflows(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// node_modules and target hold installed packages (npm ci, Maven),
		// whose workflows are theirs, not the repository's.
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".github" || d.Name() == "testdata" || d.Name() == "node_modules" || d.Name() == "target") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if workflowFile[0].Match(b) && workflowFile[1].Match(b) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every workflow in the repository passes actionlint, the linter GitHub
// Actions users run: a workflow GitHub would reject before any job starts
// (a context where it is not allowed, a bad expression, an unknown action
// input) fails here. shellcheck and pyflakes are off, so the verdict does
// not depend on what else the machine has installed.
func TestWorkflowsPassActionlint(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := workflows(t, root)
	if len(files) < 2 {
		t.Fatalf("found %d workflows (%v); want at least the two GitHub Actions recipes", len(files), files)
	}
	var out strings.Builder
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{LogWriter: io.Discard, WorkingDir: root})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Logf("linted %s", f)
	}
	if len(errs) > 0 {
		t.Errorf("actionlint v1.7.12 found %d problems:\n%s", len(errs), out.String())
	}
}
