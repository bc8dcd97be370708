package realclient_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/realclient-search.md's complete test file, as a user would run it:
// a fresh module next to the checkout, the file copied from the page, `go
// test -v`. The exhaustive test states its guarantee and passes, the
// interleaved check holds in its runs, and the fuzz target's seed corpus
// passes. Like the README's example test it needs the modules in the
// module cache (or a network); without them it skips. Its directory is
// named for the checkout, as the README example's is (stableDir).
func TestSearchDocExampleFromAFreshModule(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "realclient-search.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(page)
	section = section[strings.Index(section, "## A complete test file"):]
	example := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	if example == nil {
		t.Fatal("the page's complete test file is missing")
	}
	dir := stableDir(t, root, "search-fresh-module")
	for name, text := range map[string]string{"mylock_test.go": example[1], "go.mod": "module mylock\n\ngo 1.26\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, s := range [][]string{
		{"mod", "edit", "-require=locksim@v0.0.0", "-require=locksim/realclient@v0.0.0",
			"-replace=locksim=" + root, "-replace=locksim/realclient=" + filepath.Join(root, "realclient")},
		{"get", "github.com/go-redsync/redsync/v4@v4.18.1"},
		{"mod", "tidy"},
	} {
		if out, err := goCmd(s...); err != nil {
			t.Skipf("go %s: %v (no module cache or network?)\n%s", strings.Join(s, " "), err, out)
		}
	}
	out, err := goCmd("test", "-count=1", "-v", "./...")
	if err != nil {
		t.Fatalf("the page's tests failed:\n%s", out)
	}
	for _, want := range []string{"--- PASS: TestRedsyncExhaustive", "explored all ", "--- PASS: TestRedsyncInterleaved",
		"redsync held in 30 runs", "--- PASS: FuzzRedsync"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%.4000s", want, out)
		}
	}
}
