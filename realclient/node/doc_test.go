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

// TestNodeDocWalkthrough runs docs/node.md's walkthrough: its module (with
// the installed ioredis) under the page's go test command fails with exit
// status 1, naming the DEL; with the page's compare-and-delete release it
// passes with 0.
func TestNodeDocWalkthrough(t *testing.T) {
	requireNode(t)
	if !*long {
		t.Skip("two checks (a go test build and 100 runs): make long (-node.long)")
	}
	js := docBlocks(t, "js")
	if len(js) != 2 {
		t.Fatalf("docs/node.md has %d js blocks, want the module and its fixed release", len(js))
	}
	bug := "    async release() { await redis.del(env.key); }, // the bug: not compare-and-delete\n"
	if !strings.Contains(js[0], bug) {
		t.Fatalf("the page's module has no line %q", bug)
	}
	var command string
	for _, b := range docBlocks(t, "sh") {
		if strings.Contains(b, "NODE_LOCK=") {
			command = strings.TrimSpace(b)
		}
	}
	if !strings.HasPrefix(command, "cd realclient && NODE_LOCK=~/mylock/mylock.cjs go test ./node ") {
		t.Fatalf("the page's check command changed: %q", command)
	}
	abs, _ := filepath.Abs("js/node_modules")
	for _, tc := range []struct {
		name, code string
		exit       int
	}{{"mylock", js[0], 1}, {"mylock-fixed", strings.Replace(js[0], bug, js[1], 1), 0}} {
		home := t.TempDir()
		dir := filepath.Join(home, "mylock")
		os.MkdirAll(dir, 0o755)
		os.Symlink(abs, filepath.Join(dir, "node_modules")) // stands for the page's npm install
		os.WriteFile(filepath.Join(dir, "mylock.cjs"), []byte(tc.code), 0o644)
		// ~ is the temporary home (HOME itself stays: go's caches are under it).
		cmd := exec.Command("bash", "-c", strings.ReplaceAll(command, "~", home)+" -count=1")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "NODE_CASE_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		exit := 0
		if ee, ok := err.(*exec.ExitError); ok {
			exit = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if exit != tc.exit {
			t.Errorf("%s: exit %d, want %d:\n%s", tc.name, exit, tc.exit, out)
		}
		if tc.exit == 1 && !strings.Contains(string(out), "by B (DEL)") && !strings.Contains(string(out), "by A (DEL)") {
			t.Errorf("%s: the failure does not name the DEL:\n%s", tc.name, out)
		}
	}
}
