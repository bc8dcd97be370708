package realclient_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/ci.md's "From another repository", as a CI job runs it: a fresh
// module with locksim checked out into ./locksim (here a link to this
// checkout), that section's go mod commands, the README's two examples
// (the Go API's and the real client's) as its tests, and LOCKSIM_REPORT_DIR
// naming a directory that does not exist yet. The tests fail (their locks
// break, as the README says) and the directory then holds each failing
// test's HTML report, from locksim.Check and realclient.Check alike. It
// needs the modules in the module cache (or a network); without them it
// skips.
func TestCIFromAnotherRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	section := func(page, start string) string {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(b), start)
		if i < 0 {
			t.Fatalf("%s has no %q", page, start)
		}
		return string(b)[i:]
	}
	block := func(text, lang string) string {
		m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %s block after %.40q", lang, text)
		}
		return m[1]
	}
	steps := block(section(filepath.Join("docs", "ci.md"), "## From another repository"), "sh")
	dir := stableDir(t, root, "ci-fresh-module")
	if err := os.Symlink(root, filepath.Join(dir, "locksim")); err != nil {
		t.Skipf("no symlink for the checkout: %v", err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module mylock\n\ngo 1.26\n")
	write("mylock_test.go", block(section("README.md", "## The Go API, in your tests"), "go"))
	write("realclient_test.go", block(section("README.md", "## Your real client in the simulation"), "go"))
	reports := filepath.Join(dir, "ci-tmp", "locksim-reports")
	goCmd := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "LOCKSIM_REPORT_DIR="+reports)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	ran := 0
	for _, l := range strings.Split(steps, "\n") {
		l, _, _ = strings.Cut(l, "#")
		if f := strings.Fields(l); len(f) > 2 && f[0] == "go" && f[1] == "mod" {
			ran++
			if out, err := goCmd(f[1:]...); err != nil {
				t.Skipf("%s: %v (no module cache or network?)\n%s", l, err, out)
			}
		}
	}
	if ran < 3 {
		t.Fatalf("docs/ci.md's steps have %d go mod commands, want the two edits and tidy:\n%s", ran, steps)
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	for _, want := range []string{"locksim => ./locksim", "locksim/realclient => ./locksim/realclient"} {
		if !strings.Contains(string(gomod), want) {
			t.Errorf("go.mod lacks %q:\n%s", want, gomod)
		}
	}
	out, err := goCmd("test", "-count=1", "./...")
	if err == nil {
		t.Fatalf("the README's tests passed; their locks should break:\n%s", out)
	}
	if strings.Contains(out, "--- FAIL: TestCompareAndDeleteRelease") {
		t.Errorf("the README's correct twin failed:\n%.3000s", out)
	}
	for _, name := range []string{"TestMyLock", "TestPlainDelRelease"} {
		if !strings.Contains(out, "--- FAIL: "+name) {
			t.Errorf("%s did not fail:\n%.3000s", name, out)
		}
		if b, err := os.ReadFile(filepath.Join(reports, name+".html")); err != nil || !strings.Contains(string(b), "<html") {
			t.Errorf("no HTML report for %s in %s: %v", name, reports, err)
		}
	}
	if strings.Contains(out, "no HTML report") {
		t.Errorf("a report was not written:\n%.3000s", out)
	}
}

// stableDir returns an empty directory named for the test and the
// checkout, the same in every run, and removes it after the test. A fresh
// module whose replace points into itself (./locksim) gives go's build
// cache a new package directory in every t.TempDir, so each run compiled
// all of locksim again (~40 s of CPU); from a stable directory the second
// run compiles only what changed, as a user's repository does.
func stableDir(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("locksim-%s-%x", name, sha256.Sum256([]byte(root)))[:len("locksim-")+len(name)+13])
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
