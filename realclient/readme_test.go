package realclient_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's example, as a user would write it: a fresh module next to
// the checkout with the README's replace directives, the test file
// copied from the README, `go test`. On the same seeds, the plain-DEL
// build fails with its fault schedule (a pause inside the release), the
// linked go-redis and a replay line, and the compare-and-delete twin
// holds. It needs the modules in the module cache
// (or a network); without them it skips. The module is made afresh in
// every run, in a directory named for the checkout (stableDir), so go's
// build cache keeps its compiled test package and vet between runs (a new
// directory each time recompiled and vetted it: ~2 s of CPU).
func TestReadmeExampleFromAFreshModule(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	i := strings.Index(section, "## Your real client in the simulation")
	if i < 0 {
		t.Fatal("the README has no section \"## Your real client in the simulation\"")
	}
	section = section[i:]
	example := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	if example == nil {
		t.Fatal("the README's real-client section has no Go example")
	}
	dir := stableDir(t, root, "readme-fresh-module")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mylock_test.go", example[1])
	write("go.mod", "module mylock\n\ngo 1.26\n")
	goCmd := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	steps := [][]string{
		{"mod", "edit", "-require=locksim@v0.0.0", "-require=locksim/realclient@v0.0.0",
			"-replace=locksim=" + root, "-replace=locksim/realclient=" + filepath.Join(root, "realclient")},
		{"get", "github.com/redis/go-redis/v9@v9.22.0"},
		{"mod", "tidy"},
	}
	for _, s := range steps {
		if out, err := goCmd(s...); err != nil {
			t.Skipf("go %s: %v (no module cache or network?)\n%s", strings.Join(s, " "), err, out)
		}
	}
	out, err := goCmd("test", "-count=1", "-v", "./...")
	if err == nil {
		t.Fatalf("the README's tests passed; the plain-DEL build should break:\n%s", out)
	}
	// The buggy build fails and its twin holds, on the same seeds.
	if !strings.Contains(out, "--- FAIL: TestPlainDelRelease") || !strings.Contains(out, "--- PASS: TestCompareAndDeleteRelease") {
		t.Errorf("want TestPlainDelRelease failing and TestCompareAndDeleteRelease passing:\n%s", out)
	}
	for _, want := range []string{"fault schedule:", "release-send", "broke mutual-exclusion", "compare-and-delete held in 20 runs (seeds 1..20)",
		"linked: github.com/redis/go-redis/v9 v9.22.0", "replay: go test -run '^TestPlainDelRelease$'", "realclient.Run(t, c, yourSetup)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%.4000s", want, out)
		}
	}
}
