package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"locksim/engine"
)

// An output never overwrites an input or another output: each of these
// exits 2 before anything runs, naming both, and leaves the files as they
// were.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	shard := func(i int) string {
		p := fmt.Sprintf("s%d.json", i)
		if code, _, errs := runCLI("check", "--design", "set-px-lua", "--runs", "20", "--shard", fmt.Sprintf("%d/2", i), "--format", "json", "-o", p, "--save", "c.json", "--progress=false"); code == exitUsage {
			t.Fatalf("shard %d: %s", i, errs)
		}
		return p
	}
	s0, s1 := shard(0), shard(1)
	os.WriteFile("case.json", []byte("{}"), 0o644)
	os.Symlink(s0, "link.json")
	check := []string{"check", "--design", "set-px-lua", "--runs", "20", "--progress=false"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"merge -o a shard", []string{"merge", s0, s1, "-o", s0}, "-o s0.json is also an input"},
		{"merge -o a link to a shard", []string{"merge", s0, s1, "-o", "link.json"}, "-o link.json is also an input"},
		{"merge --save a shard", []string{"merge", s0, s1, "--save", s1}, "--save s1.json is also an input"},
		{"merge -o the case", []string{"merge", s0, s1, "-o", "m.json", "--save", "./m.json"}, "--save ./m.json is also -o"},
		{"check -o the case", append(check, "-o", "same.json", "--save", "same.json"), "--save same.json is also -o"},
		{"check -o the default case", append(check, "-o", defaultSave), "--save locksim-failure.json is also -o"},
		{"replay -o the case", []string{"replay", "case.json", "-o", "case.json"}, "-o case.json is also the case file"},
		{"run -o the case", []string{"run", "gc-pause", "-o", "r.json", "--save", "r.json"}, "--save r.json is also -o"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string]string{}
			for _, f := range []string{s0, s1, "case.json"} {
				b, _ := os.ReadFile(f)
				before[f] = string(b)
			}
			code, _, errs := runCLI(tc.args...)
			if code != exitUsage || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q: want exit 2 and %q", code, errs, tc.want)
			}
			for f, b := range before {
				if now, _ := os.ReadFile(f); string(now) != b {
					t.Errorf("%s changed", f)
				}
			}
		})
	}
	// The summary and the replay hint name the case, which is a case.
	code, out, errs := runCLI("merge", s0, s1, "-o", "m.txt", "--save", "m.json")
	if code != exitViolation || !strings.Contains(out, "summary in m.txt") {
		t.Fatalf("merge: exit %d %q %q", code, out, errs)
	}
	if b, _ := os.ReadFile("m.txt"); !strings.Contains(string(b), "locksim replay m.json") {
		t.Errorf("the summary's replay hint does not name the case:\n%s", b)
	}
	if _, err := engine.LoadCase("m.json"); err != nil {
		t.Errorf("the replay hint names %s, which is not a case: %v", "m.json", err)
	}
}

// Every command that writes a file says where, creating the directories
// it names.
func TestCommandsSayWhereTheyWrote(t *testing.T) {
	dir := t.TempDir()
	page, c := filepath.Join(dir, "reports", "new", "gc.html"), filepath.Join(dir, "cases", "gc.json")
	code, out, errs := runCLI("run", "gc-pause", "--format", "html", "-o", page, "--save", c)
	if code != exitViolation || out != "written to "+page+"\n" || !strings.Contains(errs, "case saved to "+c) {
		t.Errorf("run: exit %d, stdout %q, stderr %q: want written to %s and case saved to %s", code, out, errs, page, c)
	}
	again := filepath.Join(dir, "more", "again.txt")
	if code, out, _ := runCLI("replay", c, "-o", again); code != exitViolation || out != "written to "+again+"\n" {
		t.Errorf("replay: exit %d, stdout %q", code, out)
	}
	summary, cs := filepath.Join(dir, "check", "summary.md"), filepath.Join(dir, "check", "cases", "c.json")
	if code, out, errs := runCLI("check", "--design", "set-px-lua", "--runs", "40", "--progress=false", "--format", "markdown", "-o", summary, "--save", cs); code != exitViolation || !strings.Contains(out, "summary in "+summary) {
		t.Errorf("check: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, f := range []string{page, c, again, summary, cs} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("not written: %v", err)
		}
	}
}

// failWriter fails every write, as a closed stdout or a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("bad file descriptor") }

// Output that cannot be written is an error (exit 2, said on stderr),
// whatever the command found; it was exit 1 with the output lost.
func TestStdoutErrorsAreReported(t *testing.T) {
	for _, args := range [][]string{
		{"list"},
		{"run", "gc-pause"},
		{"check", "--design", "set-px-lua", "--runs", "20", "--save", filepath.Join(t.TempDir(), "c.json"), "--progress=false"},
	} {
		var errb bytes.Buffer
		code := run(args, failWriter{}, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), "locksim "+args[0]+": writing to stdout: bad file descriptor") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	bin := buildCLI(t)
	for _, tc := range []struct {
		redirect, want string
		code           int
	}{
		{">&-", "stdout is closed", exitUsage},         // Go reopens it on /dev/null: recognised at start
		{">/dev/full", "writing to stdout", exitUsage}, // a full disk
		{">/dev/null", "", exitViolation},              // discarding the output is the user's choice
	} {
		if _, err := os.Stat("/dev/full"); err != nil && tc.redirect == ">/dev/full" {
			continue
		}
		cmd := exec.Command("sh", "-c", `"$0" run gc-pause `+tc.redirect, bin)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != tc.code || !strings.Contains(errb.String(), tc.want) || tc.want == "" && errb.Len() > 0 {
			t.Errorf("run gc-pause %s: exit %d, stderr %q; want exit %d and %q", tc.redirect, code, errb.String(), tc.code, tc.want)
		}
	}
}

// SIGINT or SIGTERM during `check -o out.json` stops the check between
// runs: exit 130, "interrupted: no verdict" with what it ran, out.json as
// it was, no temporary file left, no case saved.
func TestInterruptedCheckKeepsTheOutput(t *testing.T) {
	bin := buildCLI(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.json")
			os.WriteFile(out, []byte("the previous summary\n"), 0o644)
			cmd := exec.Command(bin, "check", "--design", "set-px-lua", "--runs", "100000000", "--format", "json", "-o", out, "--progress=false")
			cmd.Dir = dir
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the output is being written: the temporary file.
			for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(20 * time.Millisecond) {
				if tmp, _ := filepath.Glob(filepath.Join(dir, ".out.json.tmp-*")); len(tmp) > 0 {
					break
				}
			}
			time.Sleep(300 * time.Millisecond) // some runs made
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Errorf("exit %v, want %d; stderr %q", err, exitInterrupted, errb.String())
			}
			if s := errb.String(); !strings.Contains(s, "locksim check: interrupted: no verdict; it ran ") || !strings.Contains(s, "of 100000000 planned runs") {
				t.Errorf("stderr %q: want the interruption and what it ran", s)
			}
			if b, _ := os.ReadFile(out); string(b) != "the previous summary\n" {
				t.Errorf("out.json is %.100q, want the previous file", b)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("the directory holds %v, want only out.json", entries)
			}
		})
	}
}

// Exhaustive mode removes only the case files an exhaustive run saved:
// --show 0 saves none and deleted a file of the user's named 01.json.
func TestExhaustiveSaveDirKeepsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "01.json")
	os.WriteFile(mine, []byte("my notes\n"), 0o644)
	if code, _, errs := runCLI("check", "--design", "set-px-lua", "--exhaustive", "--durations", "ttl+", "--faults", "pause", "--save-dir", dir, "--show", "0", "--progress=false"); code != exitViolation {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my notes\n" {
		t.Errorf("--show 0 removed or changed %s: %q", mine, b)
	}
	// A run that would write 01.json refuses to overwrite it.
	code, _, errs := runCLI("check", "--design", "set-px-lua", "--exhaustive", "--durations", "ttl+", "--faults", "pause", "--save-dir", dir, "--progress=false")
	if b, _ := os.ReadFile(mine); code != exitUsage || string(b) != "my notes\n" || !strings.Contains(errs, "01.json is not a case file") {
		t.Errorf("exit %d, %q: want exit 2 and the file kept (%q)", code, errs, b)
	}
	// Its own cases it replaces.
	os.Remove(mine)
	for range 2 {
		if code, _, errs := runCLI("check", "--design", "set-px-lua", "--exhaustive", "--durations", "ttl+", "--faults", "pause", "--save-dir", dir, "--progress=false"); code != exitViolation {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	if _, err := engine.LoadCase(mine); err != nil {
		t.Errorf("no case saved: %v", err)
	}
}

// merge refuses a file past the shard size limit before reading it.
func TestMergeRefusesAHugeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(engine.MaxShardBytes + 1); err != nil { // sparse: no disk used
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	code, _, errs := runCLI("merge", p)
	if code != exitUsage || !strings.Contains(errs, fmt.Sprintf("huge.json is %d bytes: a shard's JSON is at most %d (limits: shard-bytes)", int64(engine.MaxShardBytes)+1, int64(engine.MaxShardBytes))) {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
