package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"locksim/engine"
	"locksim/model"
	"locksim/scenarios"
)

// maxInputRSS is the peak memory a refused input may cost the process: a
// generous bound (the CLI starts in about 15 MB; the largest limit, a case
// file's 16 MiB, is read into a buffer that grows to twice that).
const maxInputRSS = 300 << 20

// cliRun is one run of the built CLI as a subprocess: its exit code,
// output and peak memory (Linux's rusage, in bytes).
type cliRun struct {
	code         int
	stdout, errs string
	rss          int64
}

// runBuilt runs the CLI built by buildCLI in dir with args; a run still
// going after two minutes is killed (a hang detector, not a speed test).
func runBuilt(t *testing.T, dir string, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildCLI(t), args...)
	cmd.Dir, cmd.Env = dir, shardEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%q still running after two minutes", args)
	}
	return cliRun{code: cmd.ProcessState.ExitCode(), stdout: out.String(), errs: errb.String(),
		rss: int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10} // KiB (an int32 on 32-bit Linux)
}

func needLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read from Linux's rusage; /dev/zero and mkfifo")
	}
}

// Every input the CLI reads, given /dev/zero (endless bytes), is refused
// with exit 2, naming the limit and its value, within maxInputRSS (it died
// with "fatal error: out of memory" at 3-4 GB when files were read whole
// first); and every string flag of every command, given /dev/zero, exits
// 2 within the same bound with a short message: the flags that read a
// file are exactly the Lua scripts' and --scenario.
func TestDevZeroIsRefusedInBoundedMemory(t *testing.T) {
	needLinux(t)
	dir := t.TempDir()
	write := fileWriter(t, dir)
	acquire := write("acquire.lua", "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])")
	release := write("release.lua", "return redis.call('DEL', KEYS[1])")
	lua := fmt.Sprintf("%s (limits: max-script-source-bytes)", "a Lua script is at most 65536 bytes")
	scenario := fmt.Sprintf("a scenario file is at most %d bytes (limits: scenario-bytes)", scenarios.FileLimit.Bytes)
	caseFile := fmt.Sprintf("a case file is at most %d bytes (limits: case-bytes)", engine.CaseLimit.Bytes)
	if model.LuaFileLimit.Bytes != 65536 {
		t.Fatalf("the Lua file limit is %d", model.LuaFileLimit.Bytes)
	}
	zero := "/dev/zero is more than "
	bases := map[string][]string{
		"run":    {"run", "gc-pause"},
		"check":  {"check", "--design", "set-px-lua", "--runs", "2", "--progress=false", "--save", "c.json"},
		"matrix": {"matrix", "--seeds", "1", "--designs", "set-px-lua"},
		"sweep":  {"sweep", "--seeds", "1", "--x", "250ms,500ms", "--y", "100ms,200ms", "--progress=false"},
		"replay": {"replay", "case.json"},
		"merge":  {"merge", "shard.json", "--save", "m.json"},
	}
	type input struct {
		args []string
		want string // "" for a flag that reads no file
	}
	inputs := map[string]input{
		"run FILE":         {[]string{"run", "/dev/zero"}, scenario},
		"replay FILE":      {[]string{"replay", "/dev/zero"}, caseFile},
		"merge FILE":       {[]string{"merge", "/dev/zero"}, "/dev/zero after 0 runs: invalid character"},
		"check --scenario": {[]string{"check", "--scenario", "/dev/zero", "--runs", "1", "--progress=false"}, scenario},
	}
	scripts := map[string][]string{
		"acquire": {"--acquire", "/dev/zero", "--release", release},
		"release": {"--acquire", acquire, "--release", "/dev/zero"},
		"renew":   {"--acquire", acquire, "--release", release, "--renew", "/dev/zero"},
	}
	outputs := map[string]bool{"o": true, "save": true, "save-dir": true}
	for cmd, base := range bases {
		for name, typ := range flagsOf(t, cmd) {
			if typ != "string" || outputs[name] {
				continue
			}
			key := cmd + " --" + name
			if s, ok := scripts[name]; ok {
				args := append([]string{}, base...)
				if cmd != "run" { // run's base is a scenario that names a design: scripts replace it
					args = without(args, "--design", "--designs")
				}
				inputs[key] = input{append(args, s...), lua}
				continue
			}
			if name == "scenario" {
				continue // above, with a run that reaches it
			}
			inputs[key] = input{append(append([]string{}, base...), "--"+name+"=/dev/zero"), ""}
		}
	}
	if code, _, errs := runCLI("run", "gc-pause", "--save", filepath.Join(dir, "case.json")); code != exitViolation {
		t.Fatalf("saving a case: %d %s", code, errs)
	}
	if code, _, errs := runCLI("check", "--design", "set-px-lua", "--runs", "2", "--format", "json", "-o", filepath.Join(dir, "shard.json"), "--save", filepath.Join(dir, "f.json"), "--progress=false"); code > 1 {
		t.Fatalf("a shard: %d %s", code, errs)
	}
	fileFlags := 0
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			r := runBuilt(t, dir, in.args...)
			// A flag that names no file takes "/dev/zero" as a word: it
			// may be refused or (a flag for scripts, with a catalogue
			// design) unused.
			if in.want != "" && r.code != exitUsage || r.code < 0 || r.code > exitUsage {
				t.Errorf("%q: exit %d, want 2: %.300s", in.args, r.code, r.errs)
			}
			if in.want != "" && !strings.Contains(r.errs, in.want) || in.want == "" && strings.Contains(r.errs, zero) {
				t.Errorf("%q: stderr %.400q, want %q", in.args, r.errs, in.want)
			}
			if len(r.errs) > 2000 {
				t.Errorf("%q: %d bytes of messages: a value is quoted whole", in.args, len(r.errs))
			}
			if r.rss > maxInputRSS {
				t.Errorf("%q: peak memory %d MB, over %d MB", in.args, r.rss>>20, maxInputRSS>>20)
			}
			t.Logf("exit %d, peak %d MB", r.code, r.rss>>20)
		})
		if in.want == lua {
			fileFlags++
		}
	}
	if fileFlags != 12 {
		t.Errorf("%d script flags tried, want --acquire, --release, --renew of run, check, matrix and sweep", fileFlags)
	}
}

// without returns args without the named flags and their values.
func without(args []string, flags ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if slices.Contains(flags, args[i]) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// A FIFO is read as its writer writes, through the same limit: the read
// waits for the writer (as cat does), and is refused with exit 2 as soon
// as the writer has written one byte past the limit, though the writer
// never closes it; a FIFO whose writer writes a script and closes is read
// like a file.
func TestFIFOInputs(t *testing.T) {
	needLinux(t)
	dir := t.TempDir()
	release := filepath.Join(dir, "release.lua")
	os.WriteFile(release, []byte("return redis.call('DEL', KEYS[1])"), 0o644)
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// writer opens the FIFO and writes data; unless closeAfter, it keeps
	// the FIFO open until the test ends (its write past what the reader
	// took fails once the reader is gone).
	writer := func(p string, data []byte, closeAfter bool) {
		stop := make(chan struct{})
		t.Cleanup(func() { close(stop) })
		go func() {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer f.Close()
			f.Write(data)
			if !closeAfter {
				<-stop
			}
		}()
	}
	for _, tc := range []struct {
		name  string
		flag  string
		bytes int64
		want  string
	}{
		{"a Lua script past its limit", "--acquire", model.LuaFileLimit.Bytes + 1000, "is more than 65536 bytes: a Lua script is at most 65536 bytes (limits: max-script-source-bytes)"},
		{"a scenario past its limit", "", scenarios.FileLimit.Bytes + 1000, "is more than 1048576 bytes: a scenario file is at most 1048576 bytes (limits: scenario-bytes)"},
		{"a case past its limit", "replay", engine.CaseLimit.Bytes + 1000, "is more than 16777216 bytes: a case file is at most 16777216 bytes (limits: case-bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := fifo(strings.ReplaceAll(tc.name, " ", "-"))
			writer(p, bytes.Repeat([]byte("-- "), int(tc.bytes/3)+1), false)
			args := []string{"run", "gc-pause", "--acquire", p, "--release", release}
			switch tc.flag {
			case "":
				args = []string{"run", p}
			case "replay":
				args = []string{"replay", p}
			}
			r := runBuilt(t, dir, args...)
			if r.code != exitUsage || !strings.Contains(r.errs, p+" "+tc.want) || r.rss > maxInputRSS {
				t.Errorf("exit %d, peak %d MB, stderr %.300q; want exit 2 and %q", r.code, r.rss>>20, r.errs, tc.want)
			}
		})
	}
	t.Run("a script that fits", func(t *testing.T) {
		p := fifo("acquire.lua")
		writer(p, []byte("return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n"), true)
		if r := runBuilt(t, dir, "run", "gc-pause", "--acquire", p, "--release", release); r.code != exitViolation || !strings.Contains(r.stdout, "mutual-exclusion") {
			t.Errorf("exit %d: %.300s %.300s", r.code, r.stdout, r.errs)
		}
	})
}

// A script that returns 60 MB: the error quotes its first 200 bytes and
// says how many more there were, and the process peaks far below the
// 1.9 GB it took when the reply was rendered and quoted whole.
func TestHugeLuaReplyIsBounded(t *testing.T) {
	needLinux(t)
	dir := t.TempDir()
	write := fileWriter(t, dir)
	release := write("release.lua", "return redis.call('DEL', KEYS[1])")
	for _, tc := range []struct {
		name, script, want string
	}{
		{"a bulk reply", "return string.rep('x', 60000000)", `acquire returned "` + strings.Repeat("x", 200) + `"... (59999800 more bytes); want a positive integer`},
		{"an error reply", "return redis.error_reply(string.rep('y', 10000000))", "big.lua: ERR " + strings.Repeat("y", 196) + "... (9999804 more bytes)"},
		{"a Lua error", "error(string.rep('z', 10000000))", "big.lua: run-time error: line 1: " + strings.Repeat("z", 200) + "... ("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := write("big.lua", tc.script)
			r := runBuilt(t, dir, "run", "gc-pause", "--acquire", script, "--release", release)
			if r.code != exitUsage || !strings.Contains(r.errs, tc.want) {
				t.Errorf("exit %d, stderr %.600q: want exit 2 and %q", r.code, r.errs, tc.want)
			}
			if n := len(r.stdout) + len(r.errs); n > 20_000 {
				t.Errorf("%d bytes of output: the reply is quoted whole", n)
			}
			if r.rss > maxInputRSS {
				t.Errorf("peak memory %d MB, over %d MB", r.rss>>20, maxInputRSS>>20)
			}
			t.Logf("peak %d MB", r.rss>>20)
		})
	}
}
