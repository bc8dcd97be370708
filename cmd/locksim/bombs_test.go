package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bombEnv names the bomb a child process runs (TestBombChild).
const bombEnv = "LOCKSIM_BOMB_ARGS"

// The inputs issue 13 found crashing, hanging or eating memory, run as
// they would be from a shell: each in its own process, which must end
// within a minute (a hang detector, not a speed test) with the exit code
// expected, a message, and at most 1 GB of peak memory. The long run has
// 8000 cycles in make long and 2000 under -short (make test): the same
// paths (a history of tens of thousands of events, its HTML report), a
// quarter of the CPU.
func TestBombs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read from Linux's rusage")
	}
	dir := t.TempDir()
	write := fileWriter(t, dir)
	release := write("release.lua", "return redis.call('DEL', KEYS[1])")
	lua := func(name, acquire string) []string {
		return []string{"run", "gc-pause", "--acquire", write(name, acquire), "--release", release}
	}
	nested := "local t = {} local c = t for i = 1, 1000000 do c[1] = {} c = c[1] end return cjson.encode(t)"
	var literal strings.Builder
	literal.WriteString("local t = {")
	for i := 0; i < 2_000_000; i++ {
		literal.WriteString("1,")
	}
	literal.WriteString("} return 1")
	scenario := func(name, body string) string {
		return write(name, "name "+strings.TrimSuffix(name, ".txt")+"\ntitle a bomb\ndesign set-px-lua\nclients A B\nttl 1s\nwork 5ms\n"+body)
	}
	cycles := 8000
	if testing.Short() {
		cycles = 2000
	}
	bigCase := write("masters.json", `{"version":1,"spec":{"Design":"redlock","Topology":{"Masters":100000}},"seed":1}`)
	var faults strings.Builder
	for i := 0; i < 40_000; i++ {
		if i > 0 {
			faults.WriteString(",")
		}
		fmt.Fprintf(&faults, `{"Kind":"pause","Target":"A","At":%d,"Dur":1000}`, i*1000)
	}
	manyFaults := write("faults.json", `{"version":1,"spec":{"Design":"set-px-lua","Faults":[`+faults.String()+`]},"seed":1}`)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"huge ttl", []string{"check", "--design", "set-px-lua", "--runs", "1", "--ttl", "1708301h"}, exitUsage, "limits: ttl"},
		{"string doubling", lua("double.lua", "local s = 'x' while true do s = s .. s end"), exitUsage, "memory budget"},
		{"string.rep 2^31", lua("rep.lua", "return string.rep('x', 2^31)"), exitUsage, "memory budget"},
		{"SET 500 MB", lua("set.lua", "return redis.call('SET', KEYS[1], string.rep('x', 500*1024*1024))"), exitUsage, "limits"},
		{"SETRANGE 512 MB", lua("setrange.lua", "return redis.call('SETRANGE', KEYS[1], 512*1024*1024, 'x')"), exitUsage, "limits"},
		{"cjson nested 10^6", lua("cjson.lua", nested), exitUsage, "(limits: max-script-bytes)"},
		{"pattern", lua("pattern.lua", "return string.find(('a'):rep(22), ('a?'):rep(22)..('a'):rep(22)..'b')"), exitUsage, "(limits: max-script-instructions)"},
		{"2M-element literal", lua("literal.lua", literal.String()), exitUsage, "limits"},
		{fmt.Sprint(cycles, " cycles, text"), []string{"run", scenario("cycles.txt", fmt.Sprintf("cycles %d\n", cycles))}, exitSafe, "Verdicts"},
		{fmt.Sprint(cycles, " cycles, html"), []string{"run", scenario("cycles2.txt", fmt.Sprintf("cycles %d\n", cycles)), "--format", "html", "-o", filepath.Join(dir, "r.html")}, exitSafe, ""},
		{"a billion events", []string{"run", scenario("events.txt", "duration 24h\nlimits events=1000000000 time=24h\n")}, exitUsage, "events"},
		{"the most events, html", []string{"run", scenario("events2.txt", "duration 24h\nlimits events=250000 time=24h\n"), "--format", "html",
			"-o", filepath.Join(dir, "e.html")}, exitUsage, "limits: events"},
		{"100000 masters in a case", []string{"replay", bigCase}, exitUsage, "limits: masters"},
		{"40000 faults in a case", []string{"replay", manyFaults}, exitUsage, "limits: faults"},
		{"an endless acquire in check", []string{"check", "--acquire", write("endless.lua", "while true do end"), "--release", release,
			"--progress=false", "--save", filepath.Join(dir, "c.json")}, exitUsage, "run 0"},
		{"run count overflow", []string{"check", "--design", "set-px-lua", "--runs", "9223372036854775807", "--shard", "5/7"}, exitUsage, "limits: runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A hang guard, not a speed limit: 8000 cycles take about 12 s
			// of CPU, and a loaded machine stretches that several times.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestBombChild$")
			cmd.Env = append(os.Environ(), bombEnv+"="+strings.Join(tc.args, "\x1f"))
			out, _ := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("still running after 5 minutes")
			}
			code := cmd.ProcessState.ExitCode()
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB
			if code != tc.code || !strings.Contains(string(out), tc.want) {
				t.Errorf("exit %d, want %d and %q:\n%.600s", code, tc.code, tc.want, out)
			}
			if rss > 1<<20 {
				t.Errorf("peak memory %d MB, over 1 GB", rss>>10)
			}
			t.Logf("exit %d, peak %d MB", code, rss>>10)
		})
	}
}

// TestBombChild runs one bomb's command line (TestBombs), exiting with
// the command's code.
func TestBombChild(t *testing.T) {
	args := os.Getenv(bombEnv)
	if args == "" {
		t.Skip("a child of TestBombs")
	}
	code := run(strings.Split(args, "\x1f"), os.Stdout, os.Stderr)
	os.Exit(code)
}
