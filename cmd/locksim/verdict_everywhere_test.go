package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
)

// luaFixtures writes the scripts the refusal tests use: a release, an
// acquire that raises an error, one that never finishes.
func luaFixtures(t *testing.T, dir string) (release, boom, loop string) {
	t.Helper()
	write := fileWriter(t, dir)
	return write("release.lua", "return redis.call('DEL', KEYS[1])\n"),
		write("boom.lua", "error('boom')\n"),
		write("loop.lua", "while true do end\n")
}

// No verdict without evidence, in every command: an invariant the design
// cannot judge is refused (exit 2 with the reason) by run, replay, check,
// exhaustive mode, matrix and sweep alike; a run that stopped with an
// error is exit 2 with the error in all of them (matrix and sweep mark the
// cell and list the error), never a silent "?" or blank cell with exit 0.
func TestNoVerdictWithoutEvidenceEverywhere(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	release, boom, loop := luaFixtures(t, dir)
	if code, _, errs := runCLI("run", "gc-pause", "--save", "gc.json"); code != exitViolation {
		t.Fatalf("saving a case: exit %d %s", code, errs)
	}
	// The case broke mutual exclusion: counting fifo alone, which its
	// design cannot judge, would read "held".
	const fifoNA = "invariant fifo cannot apply to design set-px-lua"
	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		errs, outs string
	}{
		{"run fifo", []string{"run", "gc-pause", "--invariants", "fifo"}, exitUsage, fifoNA, ""},
		{"replay fifo", []string{"replay", "gc.json", "--invariants", "fifo"}, exitUsage, fifoNA, ""},
		{"check fifo", []string{"check", "--design", "set-px-lua", "--invariants", "fifo", "--runs", "3", "--progress=false"}, exitUsage, fifoNA, ""},
		{"exhaustive fifo", []string{"check", "--design", "set-px-lua", "--exhaustive", "--invariants", "fifo", "--save-dir", "", "--progress=false"}, exitUsage, fifoNA, ""},
		{"matrix fifo", []string{"matrix", "--designs", "set-px-lua", "--invariants", "fifo"}, exitUsage, "invariant fifo cannot apply to any cell", ""},
		{"sweep fifo", []string{"sweep", "--invariants", "fifo", "--x", "1s", "--y", "100ms", "--progress=false"}, exitUsage, fifoNA, ""},
		// Runs that stop with an error.
		{"run error", []string{"run", "gc-pause", "--acquire", boom, "--release", release}, exitUsage, "boom", ""},
		{"check error", []string{"check", "--acquire", boom, "--release", release, "--runs", "2", "--progress=false"}, exitUsage, "run 0 (seed 1) stopped", ""},
		{"check endless loop", []string{"check", "--acquire", loop, "--release", release, "--runs", "1", "--progress=false"}, exitUsage, "an endless loop?", ""},
		{"exhaustive error", []string{"check", "--exhaustive", "--acquire", boom, "--release", release, "--save-dir", "", "--progress=false"}, exitUsage, "the fault-free run stopped", ""},
		{"matrix script error", []string{"matrix", "--acquire", boom, "--release", release, "--seeds", "1", "--details"}, exitUsage,
			"no verdict in 36 cells: a run stopped with an error (shown as ERR; --details lists them); the first: gc-pause x lua: seed 1:", "Errors (no verdict"},
		{"matrix brief", []string{"matrix", "--acquire", boom, "--release", release, "--seeds", "1"}, exitUsage, "no verdict in 36 cells", "36 cells: a run stopped with an error (no verdict); --details lists the errors."},
		{"matrix markdown", []string{"matrix", "--acquire", boom, "--release", release, "--seeds", "1", "--format", "markdown", "--details"}, exitUsage, "no verdict in 36 cells", "### Errors (no verdict)"},
		{"matrix html", []string{"matrix", "--acquire", boom, "--release", release, "--seeds", "1", "--format", "html"}, exitUsage, "no verdict in 36 cells", `<td class="error"`},
		{"matrix strict fencing without tokens", []string{"matrix", "--designs", "set-px-lua", "--fencing", "strict", "--seeds", "1", "--details"}, exitUsage,
			"acquired without a fencing token", "ERR"},
		{"sweep endless loop", []string{"sweep", "--acquire", loop, "--release", release, "--x", "1s", "--y", "100ms", "--seeds", "1", "--progress=false"}, exitUsage,
			"no verdict in 1 cell: a run stopped with an error (shown as E; listed under the map)", "Errors (no verdict):"},
		{"sweep strict fencing without tokens", []string{"sweep", "--fencing", "strict", "--x", "1s", "--y", "100ms", "--seeds", "1", "--progress=false"}, exitUsage,
			"acquired without a fencing token", "E: no verdict"},
		{"sweep svg", []string{"sweep", "--fencing", "strict", "--x", "1s", "--y", "100ms", "--seeds", "1", "--format", "svg", "--progress=false"}, exitUsage,
			"acquired without a fencing token", `data-state="error"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.errs) || !strings.Contains(out, tc.outs) {
				t.Errorf("%s: exit %d, stderr %q, stdout ends %q; want exit %d, %q on stderr and %q on stdout",
					strings.Join(tc.args, " "), code, errs, tail(out, 600), tc.code, tc.errs, tc.outs)
			}
		})
	}
	// A case saved from a run that stopped, and a merge of shards whose
	// runs stopped, are no verdict either.
	runCLI("run", "gc-pause", "--acquire", boom, "--release", release, "--save", "boom-case.json")
	if code, _, errs := runCLI("replay", "boom-case.json"); code != exitUsage || !strings.Contains(errs, "boom") {
		t.Errorf("replay of a run that stopped: exit %d, %q; want 2 and the error", code, errs)
	}
	runCLI("check", "--acquire", boom, "--release", release, "--runs", "2", "--format", "json", "-o", "s.json", "--progress=false")
	if code, _, errs := runCLI("merge", "s.json"); code != exitUsage || !strings.Contains(errs, "stopped") {
		t.Errorf("merge of a shard that stopped: exit %d, %q; want 2 and the error", code, errs)
	}
}

// tail is the end of s, for messages.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// A matrix cell whose runs stopped counts them in Errors, with the first
// error, and ErrorCells finds it.
func TestMatrixErrorCells(t *testing.T) {
	sc, err := scenarios.Lookup("gc-pause")
	if err != nil {
		t.Fatal(err)
	}
	m, err := engine.Matrix(engine.MatrixConfig{Designs: []model.Spec{{Design: model.SetPxLua, Fencing: model.FenceStrict}},
		Scenarios: []*scenarios.Scenario{sc}, Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n, first := m.ErrorCells(); n != 1 || !strings.Contains(first, "gc-pause x set-px-lua: seed 1: ") {
		t.Errorf("ErrorCells: %d, %q; want the strict-fencing cell", n, first)
	}
	c := m.Cells[[2]string{model.SetPxLua, "gc-pause"}]
	if c.Errors != 2 || c.Runs != 0 {
		t.Errorf("the cell: %d errors, %d runs judged; want 2 and 0", c.Errors, c.Runs)
	}
	runs := []*model.Result{{Seed: 1, Err: errors.New("limit")}}
	if got := engine.CellOf(runs); got.Errors != 1 || got.Error != "seed 1: limit" {
		t.Errorf("CellOf: %+v", got)
	}
}

// Outputs are checked against every input and each other, and for being
// writable, before the campaign starts: matrix and sweep -o onto their
// own scripts, an exhaustive -o that a saved case would take, a --save
// or -o that cannot be written (a huge --runs would otherwise run first).
func TestOutputsCheckedBeforeTheCampaign(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	release, boom, _ := luaFixtures(t, dir)
	os.WriteFile("plain", []byte("a file\n"), 0o644)
	os.Mkdir("cases", 0o755)
	os.Symlink(release, "link-to-release.lua")
	lua := []string{"--acquire", boom, "--release", release}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"matrix -o its acquire", append([]string{"matrix", "-o", boom}, lua...), "-o " + boom + " is also --acquire"},
		{"matrix -o a link to its release", append([]string{"matrix", "-o", "link-to-release.lua"}, lua...), "-o link-to-release.lua is also --release"},
		{"sweep -o its release", append([]string{"sweep", "-o", release}, lua...), "-o " + release + " is also --release"},
		{"check -o its acquire", append([]string{"check", "-o", boom}, lua...), "-o " + boom + " is also --acquire"},
		{"exhaustive -o a case it saves", []string{"check", "--design", "set-px-lua", "--exhaustive", "--save-dir", "cases", "-o", "cases/01.json"}, "-o cases/01.json is inside --save-dir cases"},
		{"exhaustive -o the save dir", []string{"check", "--design", "set-px-lua", "--exhaustive", "--save-dir", "cases", "-o", "cases"}, "-o cases is a directory"},
		{"exhaustive save dir a file", []string{"check", "--design", "set-px-lua", "--exhaustive", "--save-dir", "plain"}, "--save-dir plain is a file"},
		{"check --save under a file", []string{"check", "--design", "set-px-lua", "--runs", "100000000", "--save", "plain/x.json"}, "--save plain/x.json cannot be written: plain is not a directory"},
		{"check --save a directory", []string{"check", "--design", "set-px-lua", "--runs", "100000000", "--save", "cases"}, "--save cases is a directory"},
		{"check -o under a file", []string{"check", "--design", "set-px-lua", "--runs", "100000000", "-o", "plain/x.txt"}, "-o plain/x.txt cannot be written"},
		{"matrix -o a directory", []string{"matrix", "-o", "cases"}, "-o cases is a directory"},
		{"sweep -o under a file", []string{"sweep", "-o", "plain/m.svg"}, "-o plain/m.svg cannot be written"},
		{"run --save a directory", []string{"run", "gc-pause", "--save", "cases"}, "--save cases is a directory"},
		{"replay -o a directory", []string{"replay", "x.json", "-o", "cases"}, "-o cases is a directory"},
		{"merge --save under a file", []string{"merge", "x.json", "--save", "plain/c.json"}, "--save plain/c.json cannot be written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(boom)
			code, _, errs := runCLI(tc.args...)
			if code != exitUsage || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, tc.want)
			}
			if after, _ := os.ReadFile(boom); !bytes.Equal(before, after) {
				t.Errorf("%s changed", boom)
			}
		})
	}
}

// A minimal case that cannot be saved at the end (a disk that filled)
// loses no work: the summary is written, then the save error reported.
func TestSummaryKeptWhenTheSaveFails(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plain"), []byte("x"), 0o644)
	c := engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: scenarios.Gen{Kinds: scenarios.DefaultKinds, MaxFaults: 3, Swarm: true},
		Runs: 40, Seed: 1, Invariants: invariant.All}, Workers: 1}
	res, err := engine.Check(c)
	if err != nil || res.Minimal == nil {
		t.Fatalf("want a failing check: %v, minimal %v", err, res.Minimal != nil)
	}
	var out, errb bytes.Buffer
	sum, err := openSummary("check", "text", "", filepath.Join(dir, "plain", "case.json"), &out, c)
	if err != nil {
		t.Fatal(err)
	}
	code, err := sum.finish(res, &out, &errb)
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), "the summary is written, but the minimal case could not be saved") {
		t.Errorf("exit %d, %v; want 2 and the save error", code, err)
	}
	if !strings.Contains(out.String(), "design set-px-lua: 40 runs") {
		t.Errorf("the summary was thrown away: %q", out.String())
	}
}

// SIGINT, SIGTERM and SIGHUP stop check, exhaustive mode, matrix and sweep
// cleanly: exit 130, a partial summary marked PARTIAL on stdout, the -o
// file as it was, and no temporary file of the process left behind.
func TestSignalsStopCampaignsWithAPartialSummary(t *testing.T) {
	bin := buildCLI(t)
	for _, tc := range []struct {
		name     string
		sig      syscall.Signal
		args     []string
		out, err string
	}{
		{"check SIGHUP", syscall.SIGHUP, []string{"check", "--design", "set-px-lua", "--runs", "100000000", "--format", "json"},
			"PARTIAL: interrupted after", "locksim check: interrupted: no verdict"},
		{"check SIGINT text", syscall.SIGINT, []string{"check", "--design", "set-px-lua", "--runs", "100000000"},
			"no verdict (interrupted after", "wrote the partial summary above"},
		{"exhaustive SIGINT", syscall.SIGINT, []string{"check", "--design", "watchdog", "--exhaustive", "--depth", "2", "--max-schedules", "100000000", "--save-dir", "cases"},
			"PARTIAL: interrupted after", "locksim check: interrupted: no guarantee"},
		{"matrix SIGTERM", syscall.SIGTERM, []string{"matrix", "--seeds", "1000"},
			"PARTIAL: interrupted before every cell ran", "locksim matrix: interrupted:"},
		{"sweep SIGHUP", syscall.SIGHUP, []string{"sweep", "--seeds", "1000", "--progress=false"},
			"PARTIAL: interrupted before every cell ran", "locksim sweep: interrupted:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.txt")
			os.WriteFile(out, []byte("the previous output\n"), 0o644)
			// A signal that comes before main installed its handler
			// ends the process by the signal's default action: a race in
			// this test on a loaded machine (the process has not started),
			// not the behaviour under test; such a start is tried again
			// with a longer wait, three times at most.
			//
			// The signal comes once the campaign is under way: when the
			// process has used 300 ms of CPU (hundreds of runs; read from
			// /proc, so a loaded machine only delays it), or after 2 s of
			// wall time where there is no /proc. The runs asked for take
			// hours. Waiting on wall time alone, the campaign's workers
			// burned up to 4 s of CPU per process on two idle cores.
			var outb, errb bytes.Buffer
			var err error
			for busy, wait := 300*time.Millisecond, 2*time.Second; ; busy, wait = 2*busy, 2*wait {
				cmd := exec.Command(bin, append(tc.args, "-o", out)...)
				cmd.Dir = dir
				outb.Reset()
				errb.Reset()
				cmd.Stdout, cmd.Stderr = &outb, &errb
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				underWay(cmd.Process.Pid, busy, wait)
				cmd.Process.Signal(tc.sig)
				err = cmd.Wait()
				ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
				if !ws.Signaled() || wait >= 8*time.Second {
					break
				}
				t.Logf("killed by %v before its handler was installed; waiting for %v of its CPU this time", ws.Signal(), 2*busy)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Errorf("exit %v, want %d; stderr %q", err, exitInterrupted, errb.String())
			}
			if !strings.Contains(outb.String(), tc.out) || !strings.Contains(errb.String(), tc.err) {
				t.Errorf("stdout %q, stderr %q; want %q and %q", tail(outb.String(), 800), errb.String(), tc.out, tc.err)
			}
			if b, _ := os.ReadFile(out); string(b) != "the previous output\n" {
				t.Errorf("-o is %.100q, want the previous file", b)
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			if cases, _ := filepath.Glob(filepath.Join(dir, "cases", "*.json")); len(cases) > 0 {
				t.Errorf("an interrupted run saved cases: %v", cases)
			}
		})
	}
}

// underWay returns once process pid has used cpu of CPU time (user +
// system, from /proc/pid/stat), or has ended; where /proc cannot be read
// it sleeps for wait instead. It gives up after a minute of polling (a
// hang guard, not a timing assert: at load 49 on two cores a process
// gets 300 ms of CPU in about 8 s).
func underWay(pid int, cpu, wait time.Duration) {
	const tick = 10 * time.Millisecond // USER_HZ, 100 on Linux
	stat := fmt.Sprintf("/proc/%d/stat", pid)
	if _, err := os.Stat(stat); err != nil {
		time.Sleep(wait)
		return
	}
	for idle := time.Duration(0); idle < time.Minute; idle += 20 * time.Millisecond {
		b, err := os.ReadFile(stat)
		if err != nil {
			return // ended
		}
		// The fields after the command's name, which is in parentheses:
		// state is the first; utime and stime the 12th and 13th.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 13 || f[0] == "Z" {
			return
		}
		ut, _ := strconv.Atoi(f[11])
		st, _ := strconv.Atoi(f[12])
		if time.Duration(ut+st)*tick >= cpu {
			return
		}
		time.Sleep(20 * time.Millisecond) // polling another process
	}
}

// signalChildEnv makes the test binary a process that is writing an
// output when a signal comes (TestSignalRemovesOwnTemporaries).
const signalChildEnv = "LOCKSIM_SIGNAL_CHILD_DIR"

// A command without a campaign to stop (run, replay, merge) that gets
// SIGINT, SIGTERM or SIGHUP while it writes an output removes its
// temporary file, leaves the output as it was and another process's
// temporary file alone, and exits 130.
//
// The test starts itself as a process of its own; there (dir := os.Getenv(signalChildEnv); dir != "") it is
// the child that the rest of the test judges.
func TestSignalRemovesOwnTemporaries(t *testing.T) {
	if dir := os.Getenv(signalChildEnv); dir != "" {
		exitOnSignal(os.Stderr)
		w, _, err := output(filepath.Join(dir, "out.txt"), os.Stdout)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, "half")
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute)
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "out.txt"), []byte("before\n"), 0o644)
			foreign := filepath.Join(dir, ".out.txt.tmp-12345")
			os.WriteFile(foreign, []byte("a shard's"), 0o644)
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalRemovesOwnTemporaries$")
			cmd.Env = append(os.Environ(), signalChildEnv+"="+dir)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if line != "ready\n" {
				t.Fatalf("child said %q; stderr %s", line, errb.String())
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".out.txt.tmp-*")); len(tmp) != 2 {
				t.Fatalf("temporaries while writing: %v, want the child's and the foreign one", tmp)
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted || !strings.Contains(errb.String(), "stopped; no output was written") {
				t.Errorf("exit %v, stderr %q; want %d and the note", err, errb.String(), exitInterrupted)
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".out.txt.tmp-*")); len(tmp) != 1 || tmp[0] != foreign {
				t.Errorf("temporaries after the signal: %v, want only the foreign one", tmp)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "before\n" {
				t.Errorf("out.txt is %q", b)
			}
		})
	}
}
