package node

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docBlocks returns docs/node.md's fenced blocks of a language.
func docBlocks(t *testing.T, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "node.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	parts := strings.Split(string(b), "```"+lang+"\n")
	for _, p := range parts[1:] {
		out = append(out, p[:strings.Index(p, "```")])
	}
	return out
}

// TestNodeDocWalkthrough runs docs/node.md's walkthrough and its other
// locksim-node commands as written: its module (with the installed
// ioredis, in a temporary home) under the page's command exits 1, naming
// the DEL, and saves the case next to the module; with the page's
// compare-and-delete release the same command exits 0 (the saved case
// replays first and no longer fails); every other command exits with the
// code its "# (exit N)" note documents.
func TestNodeDocWalkthrough(t *testing.T) {
	requireNode(t)
	if !*long {
		t.Skip("checks of 100 runs each through go run: make long (-node.long)")
	}
	js := docBlocks(t, "js")
	if len(js) != 2 {
		t.Fatalf("docs/node.md has %d js blocks, want the module and its fixed release", len(js))
	}
	bug := "    async release() { await redis.del(env.key); }, // the bug: not compare-and-delete\n"
	if !strings.Contains(js[0], bug) {
		t.Fatalf("the page's module has no line %q", bug)
	}
	var walk string
	var others []string
	for _, b := range docBlocks(t, "sh") {
		for _, line := range strings.Split(b, "\n") {
			switch {
			case strings.Contains(line, "locksim-node --lock ~/mylock/mylock.cjs"):
				walk = strings.TrimSpace(line)
			case strings.Contains(line, "go run ./cmd/locksim-node"):
				others = append(others, strings.TrimSpace(line))
			}
		}
	}
	if !strings.HasPrefix(walk, "cd realclient && go run ./cmd/locksim-node --lock ~/mylock/mylock.cjs ") || !strings.HasSuffix(walk, "# (exit 1)") {
		t.Fatalf("the page's check command changed: %q", walk)
	}
	abs, _ := filepath.Abs("js/node_modules")
	home := t.TempDir()
	dir := filepath.Join(home, "mylock")
	os.MkdirAll(dir, 0o755)
	os.Symlink(abs, filepath.Join(dir, "node_modules")) // stands for the page's npm install
	run := func(line string) (int, string) {
		// ~ is the temporary home (HOME itself stays: go's caches are under it).
		cmd := exec.Command("bash", "-c", strings.ReplaceAll(line, "~", home))
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	for _, tc := range []struct {
		name, code string
		exit       int
	}{{"mylock", js[0], 1}, {"mylock-fixed", strings.Replace(js[0], bug, js[1], 1), 0}} {
		os.WriteFile(filepath.Join(dir, "mylock.cjs"), []byte(tc.code), 0o644)
		exit, out := run(walk)
		if exit != tc.exit {
			t.Errorf("%s: exit %d, want %d:\n%s", tc.name, exit, tc.exit, out)
		}
		if tc.exit == 1 && !strings.Contains(out, "by B (DEL)") && !strings.Contains(out, "by A (DEL)") && !strings.Contains(out, "by C (DEL)") {
			t.Errorf("%s: the failure does not name the DEL:\n%s", tc.name, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "testdata", "locksim", "mylock", "TestNodeUserCheck.json")); err != nil {
			t.Errorf("%s: the case is not where the page says: %v", tc.name, err)
		}
		if tc.exit == 0 && !strings.Contains(out, "no longer fails") {
			t.Errorf("%s: the saved case did not replay first:\n%s", tc.name, out)
		}
	}
	for _, line := range others {
		want := int(line[strings.LastIndex(line, "(exit ")+len("(exit ")] - '0')
		if exit, out := run(line); exit != want {
			t.Errorf("%q: exit %d, want %d:\n%s", line, exit, want, out)
		}
	}
}
