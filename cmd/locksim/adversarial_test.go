package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// adversarialRow is one row of testdata/adversarial.txt.
type adversarialRow struct {
	line       int
	code       int
	want       string
	args       []string
	stdin      string
	signal     syscall.Signal
	hasStdin   bool
	hasSignals bool
}

// readAdversarial parses the table: EXIT | STDERR | ARGS [| stdin=TEXT]
// [| signal=S]; # starts a comment.
func readAdversarial(t *testing.T) []adversarialRow {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "adversarial.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []adversarialRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) < 3 {
			t.Fatalf("adversarial.txt:%d: want EXIT | STDERR | ARGS, got %q", n, line)
		}
		code, err := strconv.Atoi(strings.TrimSpace(parts[0]))
		if err != nil {
			t.Fatalf("adversarial.txt:%d: exit %q", n, parts[0])
		}
		r := adversarialRow{line: n, code: code, want: strings.TrimSpace(parts[1]), args: strings.Fields(parts[2])}
		for _, opt := range parts[3:] {
			k, v, _ := strings.Cut(strings.TrimSpace(opt), "=")
			switch k {
			case "stdin":
				r.stdin, r.hasStdin = strings.ReplaceAll(v, `\n`, "\n"), true
			case "signal":
				r.hasSignals = true
				switch v {
				case "INT":
					r.signal = syscall.SIGINT
				case "TERM":
					r.signal = syscall.SIGTERM
				case "HUP":
					r.signal = syscall.SIGHUP
				default:
					t.Fatalf("adversarial.txt:%d: signal %q", n, v)
				}
			default:
				t.Fatalf("adversarial.txt:%d: option %q", n, opt)
			}
		}
		if r.want == "" {
			t.Fatalf("adversarial.txt:%d: no stderr substring: every refusal says why", n)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// adversarialFixtures writes the files the table names into dir.
func adversarialFixtures(t *testing.T, dir string) {
	t.Helper()
	release, _, _ := luaFixtures(t, dir)
	files := map[string]string{"never.lua": "return 0\n", "empty.txt": "", "empty.lua": "", "garbage.json": `{"version":1,`, "binary.txt": "name x\x00\x01\n", "plain": "a file\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"run", "gc-pause", "--save", filepath.Join(dir, "case.json")}, &out, &errb); code != exitViolation {
		t.Fatalf("saving case.json: exit %d %s", code, errb.String())
	}
	for link, target := range map[string]string{"link-to-case.json": "case.json", "link-to-release.lua": filepath.Base(release), "dangling.json": "nowhere.json"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot reads every fixture, to see that no row changed one.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			out[e.Name()] = string(b)
		}
	}
	return out
}

// The standing adversarial suite: every row of testdata/adversarial.txt
// run as its own process exits as the row says with the message it names
// (never a panic, a hang or exit 0), and leaves the fixtures unchanged.
func TestAdversarialTable(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	adversarialFixtures(t, dir)
	before := snapshot(t, dir)
	for _, r := range readAdversarial(t) {
		t.Run(strconv.Itoa(r.line)+"_"+strings.Join(r.args, "_"), func(t *testing.T) {
			cmd := exec.Command(bin, r.args...)
			cmd.Dir = dir
			if r.hasStdin {
				cmd.Stdin = strings.NewReader(r.stdin)
			}
			var outb, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &outb, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			if r.hasSignals {
				// Under way: the work asked for takes hours. The signal
				// comes once the process has used 300 ms of CPU, not after
				// a fixed wall time its workers would spend burning both
				// cores (underWay, verdict_everywhere_test.go).
				underWay(cmd.Process.Pid, 300*time.Millisecond, 2*time.Second)
				cmd.Process.Signal(r.signal)
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Minute): // a hang detector, not a speed test
				cmd.Process.Kill()
				t.Fatalf("adversarial.txt:%d: still running after 5 minutes", r.line)
			}
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != r.code || !strings.Contains(errb.String(), r.want) {
				t.Errorf("adversarial.txt:%d: locksim %s: exit %d, stderr %q; want exit %d and %q",
					r.line, strings.Join(r.args, " "), code, tail(errb.String(), 600), r.code, r.want)
			}
			if strings.Contains(errb.String(), "panic") || strings.Contains(errb.String(), "goroutine ") {
				t.Errorf("adversarial.txt:%d: a panic:\n%s", r.line, errb.String())
			}
			if r.hasSignals && !strings.Contains(outb.String(), "PARTIAL") {
				t.Errorf("adversarial.txt:%d: no partial summary marked PARTIAL on stdout:\n%s", r.line, tail(outb.String(), 400))
			}
		})
	}
	after := snapshot(t, dir)
	for name, b := range before {
		if after[name] != b {
			t.Errorf("fixture %s changed: %.80q", name, after[name])
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
