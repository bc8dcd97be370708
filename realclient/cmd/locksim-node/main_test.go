package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"locksim/realclient/node"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// Bad input exits 2 with a message naming the flag, before anything runs.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "lock.txt")
	os.WriteFile(txt, []byte("x"), 0o644)
	mod := filepath.Join("..", "..", "node", "js", "locks", "cad.cjs")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--lock FILE is required"},
		{[]string{"--lock", filepath.Join(dir, "missing.cjs")}, "no such file"},
		{[]string{"--lock", dir}, "is a directory"},
		{[]string{"--lock", txt}, "want a .cjs, .js or .mjs"},
		{[]string{"--lock", mod, "--faults", "pause,meteor"}, `unknown fault kind "meteor"`},
		{[]string{"--lock", mod, "--runs", "0"}, "--runs 0"},
		{[]string{"--lock", mod, "--seed", "0"}, "--seed 0"},
		{[]string{"--lock", mod, "--masters", "0"}, "--masters 0"},
		{[]string{"--lock", mod, "--exhaustive", "3"}, "--exhaustive 3"},
		{[]string{"--lock", mod, "--exhaustive", "1", "--runs", "50"}, "--runs 50 with --exhaustive 1"},
		{[]string{"--lock", mod, "--value-arg", "-1"}, "--value-arg -1"},
		{[]string{"--lock", mod, "--format", "pdf"}, `--format "pdf"`},
		{[]string{"--lock", mod, "extra"}, "unexpected arguments"},
		{[]string{"--runs", "x"}, "invalid value"},
		{[]string{"--nope"}, "flag provided but not defined"},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != exitNoVerdict || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 naming %q", tc.args, code, errs, out, tc.want)
		}
	}
	if code, out, _ := runCLI("--help"); code != 0 || !strings.Contains(out, "usage: go run ./cmd/locksim-node --lock FILE") {
		t.Errorf("--help: exit %d:\n%s", code, out)
	}
}

func requireNode(t *testing.T) {
	t.Helper()
	err := node.CheckVersion()
	if err == nil {
		_, err = os.Stat(filepath.Join("..", "..", "node", "js", "node_modules", "ioredis"))
	}
	if err == nil {
		return
	}
	if os.Getenv("LOCKSIM_REQUIRE_NODE") == "1" {
		t.Fatal(err)
	}
	t.Skipf("needs Node.js and realclient/node/js's modules (make node-deps): %v", err)
}

// The verdicts and their exit codes, each from a real check (go test of
// realclient/node, as the command runs it): the plain-DEL lock with the
// case Check saved for it replays and breaks mutual exclusion (1, the
// case and schedule in the JSON), its compare-and-delete twin holds (0),
// a module whose setup throws gets no verdict (2).
func TestVerdicts(t *testing.T) {
	requireNode(t)
	locks := filepath.Join("..", "..", "node", "js", "locks")
	saved, err := os.ReadFile(filepath.Join("..", "..", "node", "testdata", "plain-del-one-fault.json"))
	if err != nil {
		t.Fatal(err)
	}
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "TestNodeUserCheck.json"), saved, 0o644)
	out := filepath.Join(t.TempDir(), "out.json")
	reports := t.TempDir()
	code, stdout, errs := runCLI("--lock", filepath.Join(locks, "plain-del.cjs"), "--runs", "1", "--case-dir", broken, "--report-dir", reports, "--format", "json", "-o", out)
	if code != exitBroken || stdout != "" {
		t.Fatalf("plain-del: exit %d, want 1; stdout %q, stderr %s", code, stdout, errs)
	}
	var sum summary
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Verdict != "broken" || !strings.Contains(strings.Join(sum.Broken, ","), "mutual-exclusion") || len(sum.Schedule) != 1 ||
		!strings.Contains(sum.Report, "(DEL)") || sum.Case != filepath.Join(broken, "TestNodeUserCheck.json") {
		t.Errorf("plain-del's JSON: %+v", sum)
	}
	if pages, _ := filepath.Glob(filepath.Join(reports, "*.html")); len(pages) != 1 {
		t.Errorf("--report-dir: %d HTML reports, want the failing case's", len(pages))
	}

	code, stdout, errs = runCLI("--lock", filepath.Join(locks, "cad.cjs"), "--runs", "2", "--case-dir", t.TempDir())
	if code != exitHeld || !strings.Contains(stdout, "realclient: node-cad held in 2 runs") || !strings.Contains(stdout, "locksim-node: cad.cjs: nothing broke (exit 0)") {
		t.Errorf("cad: exit %d, want 0:\n%s%s", code, stdout, errs)
	}

	bad := filepath.Join(t.TempDir(), "throws.cjs")
	os.WriteFile(bad, []byte("exports.setup = () => { throw new Error('no lock here'); };\n"), 0o644)
	code, stdout, errs = runCLI("--lock", bad, "--runs", "1")
	if code != exitNoVerdict || !strings.Contains(stdout, "no lock here") || !strings.Contains(stdout, "no verdict") {
		t.Errorf("a setup that throws: exit %d, want 2:\n%s%s", code, stdout, errs)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(bad), "testdata", "locksim", "throws", "TestNodeUserCheck.json")); err == nil {
		t.Errorf("a run with no verdict saved a case")
	}
}

// Outside a module that has locksim/realclient the command says where to
// run it (exit 2).
func TestOutsideTheModule(t *testing.T) {
	requireNode(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal(err) // go test runs with go on PATH; the command itself refuses without it (goList)
	}
	mod, _ := filepath.Abs(filepath.Join("..", "..", "node", "js", "locks", "cad.cjs"))
	wd, _ := os.Getwd()
	dir := t.TempDir()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, _, errs := runCLI("--lock", mod)
	if code != exitNoVerdict || !strings.Contains(errs, "run from locksim's realclient directory") {
		t.Errorf("exit %d, want 2: %s", code, errs)
	}
}

// docCommands are the locksim-node command lines of the pages' sh blocks
// ("cd realclient && go run ./cmd/locksim-node ...   # (exit N)"): their
// arguments and documented exit codes.
func docCommands(t *testing.T) (cmds [][]string, codes []int) {
	t.Helper()
	for _, page := range []string{"docs/node.md", "README.md"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", page))
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range shBlock.FindAllStringSubmatch(string(b), -1) {
			for _, line := range strings.Split(block[1], "\n") {
				cmd, comment, _ := strings.Cut(line, "#")
				_, rest, ok := strings.Cut(cmd, "go run ./cmd/locksim-node")
				if !ok {
					continue
				}
				m := exitNote.FindStringSubmatch(comment)
				if m == nil {
					t.Errorf("%s: %q documents no exit code (# (exit N))", page, line)
					continue
				}
				cmds = append(cmds, strings.Fields(rest))
				codes = append(codes, int(m[1][0]-'0'))
			}
		}
	}
	if len(cmds) < 2 {
		t.Fatalf("found %d locksim-node commands in docs/node.md and README.md, want the walkthrough's and the example's", len(cmds))
	}
	return cmds, codes
}

var (
	shBlock  = regexp.MustCompile("(?s)```sh\n(.*?)```")
	exitNote = regexp.MustCompile(`\(exit (\d)\)`)
)

// Every documented locksim-node command parses (its flags and inputs are
// valid, from realclient, with the walkthrough's ~/mylock/mylock.cjs in a
// temporary home); realclient/node's TestNodeDocWalkthrough (make long)
// runs them and checks their exit codes.
func TestDocCommandsParse(t *testing.T) {
	cmds, _ := docCommands(t)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "mylock"), 0o755)
	os.WriteFile(filepath.Join(home, "mylock", "mylock.cjs"), []byte("exports.setup = () => ({});\n"), 0o644)
	wd, _ := os.Getwd()
	if err := os.Chdir(filepath.Join("..", "..")); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	for _, args := range cmds {
		for i, a := range args {
			args[i] = strings.Replace(a, "~", home, 1)
		}
		if _, _, err := parseArgs(args); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}
