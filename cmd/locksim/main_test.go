package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.lua")
	os.WriteFile(bad, []byte("return ("), 0o644)
	ok := filepath.Join(dir, "release.lua")
	os.WriteFile(ok, []byte("return redis.call('DEL', KEYS[1])"), 0o644)
	noToken := filepath.Join(dir, "acquire.lua")
	os.WriteFile(noToken, []byte("return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no args", nil, exitUsage, "Usage"},
		{"help", []string{"help"}, exitSafe, "locksim list"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "unknown command"},
		{"list", []string{"list"}, exitSafe, "gc-pause"},
		{"run breaks", []string{"run", "gc-pause"}, exitViolation, "BROKEN"},
		{"run safe", []string{"run", "no-faults"}, exitSafe, "held"},
		{"run unknown scenario", []string{"run", "nope"}, exitUsage, "nope"},
		{"run unknown design", []string{"run", "gc-pause", "--design", "zk"}, exitUsage, "zk"},
		{"run bad flag", []string{"run", "gc-pause", "--sed", "1"}, exitUsage, "sed"},
		{"run bad format", []string{"run", "gc-pause", "--format", "pdf"}, exitUsage, "pdf"},
		{"run --help", []string{"run", "--help"}, exitSafe, "--design"},
		{"run unreadable file", []string{"run", "./missing.txt"}, exitUsage, "missing.txt"},
		{"check needs design", []string{"check"}, exitUsage, "--design"},
		{"check unknown fault", []string{"check", "--design", "set-px-lua", "--faults", "meteor"}, exitUsage, "meteor"},
		{"check bad shard", []string{"check", "--design", "set-px-lua", "--shard", "3/2"}, exitUsage, "shard"},
		{"check redlock on two nodes", []string{"check", "--design", "redlock", "--nodes", "2", "--runs", "1"}, exitSafe, "design redlock"},
		{"check strict fencing without tokens", []string{"check", "--acquire", noToken, "--release", ok, "--fencing", "strict", "--runs", "3"}, exitUsage, "acquired without a fencing token"},
		{"check ttl 0", []string{"check", "--design", "set-px-lua", "--ttl", "0"}, exitUsage, "--ttl 0s: the lease TTL must be positive"},
		{"check negative ttl", []string{"check", "--design", "set-px-lua", "--ttl", "-1s"}, exitUsage, "--ttl -1s"},
		{"check wait-replica without replicas", []string{"check", "--design", "wait-replica", "--replicas", "0"}, exitUsage, "needs at least 1"},
		{"check zero nodes", []string{"check", "--design", "redlock", "--nodes", "0"}, exitUsage, "--nodes 0"},
		{"check zero runs", []string{"check", "--design", "redlock", "--runs", "0"}, exitUsage, "--runs 0"},
		{"check bad persistence", []string{"check", "--design", "fenced", "--persistence", "rdb"}, exitUsage, "--persistence \"rdb\""},
		// docs/tour.md's command: a crash with aof-always keeps the
		// token counter, so no token is granted twice.
		{"check with aof-always", []string{"check", "--design", "fenced", "--faults", "node-crash", "--persistence", "aof-always", "--invariants", "token-unique", "--progress=false", "--save", os.TempDir() + "/locksim-test-aof.json"}, exitSafe, "token-unique      held"},
		{"check without persistence", []string{"check", "--design", "fenced", "--faults", "node-crash", "--persistence", "none", "--invariants", "token-unique", "--runs", "200", "--progress=false", "--save", os.TempDir() + "/locksim-test-aof.json"}, exitViolation, "token-unique      broken"},
		// The new-user trial's configuration (two clients, two cycles of
		// 50ms): a crash with aof-always keeps A's key, so nothing breaks
		// (it reported stale writes before the checkers knew persistence).
		{"check with aof-always, short sections", []string{"check", "--design", "fenced", "--faults", "node-crash", "--persistence", "aof-always", "--work", "50ms", "--clients", "2", "--cycles", "2", "--progress=false", "--save", os.TempDir() + "/locksim-test-aof.json"}, exitSafe, "stale-write       held"},
		{"token-order means both token invariants", []string{"check", "--design", "fenced", "--faults", "node-crash", "--persistence", "aof-always", "--runs", "20", "--fencing", "nonstrict", "--invariants", "token-order", "--progress=false", "--save", os.TempDir() + "/locksim-test-aof.json"}, exitSafe, "fencing           held"},
		{"check lua syntax", []string{"check", "--acquire", bad, "--release", ok}, exitUsage, "bad.lua: syntax error at the end of the script (it ends early, after line 1)"},
		{"check unreadable lua", []string{"check", "--acquire", "/nonexistent.lua", "--release", ok}, exitUsage, "nonexistent"},
		{"replay missing", []string{"replay", "/nonexistent.json"}, exitUsage, "nonexistent"},
		{"sweep bad param", []string{"sweep", "--param", "gravity"}, exitUsage, "gravity"},
		{"run fenced keeps the data", []string{"run", "gc-pause", "--design", "fenced", "--invariants", "stale-write,lost-update"}, exitSafe, "broken (not counted: 1 violation)"},
		{"run unknown invariant", []string{"run", "gc-pause", "--invariants", "speed"}, exitUsage, "speed"},
		// The fixes the scenario texts name, tried with --option: B's
		// place runs out within the bound; the monotonic deadline keeps A
		// out. The header says what the run changed.
		{"run with a shorter queue wait", []string{"run", "fair-crash", "--option", "queue-wait=500ms"}, exitSafe, "fair-lock (fencing off, ttl 1s, queue-wait=500ms)"},
		{"run on the monotonic clock", []string{"run", "wall-clock-jump", "--option", "wall-clock=false,acquire-wait=1s"}, exitSafe, "acquire-wait=1s"},
		{"run unknown option", []string{"run", "fair-crash", "--option", "speed=1"}, exitUsage, `option: unknown key "speed"`},
		{"run bad option value", []string{"run", "fair-crash", "--option", "queue-wait=-1s"}, exitUsage, "queue-wait"},
		{"run flag without value", []string{"run", "gc-pause", "--design"}, exitUsage, "--design needs a value"},
		{"run acquire without release", []string{"run", "gc-pause", "--acquire", ok}, exitUsage, "go together"},
		{"run nodes without scripts", []string{"run", "gc-pause", "--nodes", "3"}, exitUsage, "--nodes goes with --acquire"},
		{"run nodes beyond layout", []string{"run", "gc-pause", "--acquire", ok, "--release", ok, "--nodes", "99"}, exitUsage, "--nodes 99"},
		{"check nodes on single-primary", []string{"check", "--design", "fenced", "--nodes", "2"}, exitUsage, "--nodes applies"},
		{"check quorum on keys of one node", []string{"check", "--design", "redlock-one-node", "--quorum", "1"}, exitUsage, "--quorum applies"},
		{"check empty faults", []string{"check", "--design", "fenced", "--faults", ""}, exitUsage, "no fault kind"},
		{"matrix extra argument", []string{"matrix", "extra"}, exitUsage, "extra"},
		{"sweep drift wrong design", []string{"sweep", "--param", "drift", "--design", "set-px-lua"}, exitUsage, "redlock"},
		{"check unknown invariant", []string{"check", "--design", "fenced", "--invariants", "safety"}, exitUsage, "safety"},
		{"fenced reads keep the data", []string{"check", "--design", "fenced", "--fencing", "strict-reads", "--faults", "pause,delay", "--invariants", "lost-update", "--runs", "200", "--progress=false"}, exitSafe, "lost-update       held"},
		{"fenced breaks mutual exclusion", []string{"check", "--design", "fenced", "--faults", "pause", "--invariants", "mutual-exclusion", "--runs", "200", "--progress=false", "--save", os.TempDir() + "/locksim-test-case.json"}, exitViolation, "mutual-exclusion  broken"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errs)
			}
			if !strings.Contains(out+errs, tc.want) {
				t.Errorf("output does not mention %q\nstdout:\n%s\nstderr:\n%s", tc.want, out, errs)
			}
		})
	}
}

// TestErrorsWithoutPackagePrefixes: error messages on the command line do
// not carry Go package prefixes ("locksim replay: locksim: reading...").
func TestErrorsWithoutPackagePrefixes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "case.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	prefixed := regexp.MustCompile(`: (locksim|model|scenarios|sim|report|network|clock|script|engine|invariant|history|resp|atomicfile): `)
	for _, args := range [][]string{
		{"replay", "/nonexistent.json"},
		{"replay", bad},
		{"run", "nope"},
		{"check", "--design", "zk"},
		{"run", "gc-pause", "--design", "zk"},
	} {
		code, _, errs := runCLI(args...)
		if code != exitUsage || prefixed.MatchString(errs) {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
	// A file named like a package keeps its name in the message.
	model := filepath.Join(dir, "model")
	os.WriteFile(model, []byte("return ("), 0o644)
	if _, _, errs := runCLI("check", "--acquire", model, "--release", model); !strings.Contains(errs, model+": syntax error") {
		t.Errorf("the file name went missing: %q", errs)
	}
}

// Two shards together give exactly the runs of the unsharded command, and
// the results do not depend on the worker count.
func TestCheckShardsAndWorkers(t *testing.T) {
	dir := t.TempDir()
	get := func(args ...string) string {
		base := []string{"check", "--design", "set-px-lua", "--runs", "12", "--format", "json", "--faults", "pause,delay", "--save", filepath.Join(dir, "c.json"), "--progress=false"}
		_, out, errs := runCLI(append(base, args...)...)
		if errs != "" && !strings.Contains(errs, "stopped") {
			t.Logf("stderr: %s", errs)
		}
		return out
	}
	one, four := get("--workers", "1"), get("--workers", "4")
	if one != four {
		t.Errorf("results depend on --workers")
	}
	s0, s1 := get("--shard", "0/2"), get("--shard", "1/2")
	for _, i := range []string{`"index":0,`, `"index":1,`, `"index":11,`} {
		if !strings.Contains(s0+s1, i) || strings.Contains(s0, i) == strings.Contains(s1, i) {
			t.Errorf("run %s is not in exactly one shard", i)
		}
	}
}

// A saved case replays to the same verdict.
func TestRunSaveReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.json")
	code, out1, _ := runCLI("run", "gc-pause", "--save", path, "--format", "json")
	code2, out2, errs := runCLI("replay", path, "--format", "json")
	if code != exitViolation || code2 != exitViolation {
		t.Fatalf("exit codes %d and %d, want 1 and 1: %s", code, code2, errs)
	}
	if strings.Contains(errs, "differs") {
		t.Errorf("replay differs from the saved run")
	}
	if out1 != out2 {
		t.Errorf("replaying a saved run printed a different report")
	}
}

// -o creates the directories it names.
func TestOutputCreatesDirectories(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reports", "2026", "gc.html")
	if code, _, errs := runCLI("run", "gc-pause", "--format", "html", "-o", path); code != exitViolation {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "<html") {
		t.Errorf("no report at %s: %v", path, err)
	}
}

// A case saved with --invariants replays judged by the same invariants,
// unless replay is given its own.
func TestReplayKeepsInvariants(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.json")
	args := []string{"gc-pause", "--design", "fenced", "--invariants", "lost-update", "--save", path}
	code, out1, _ := runCLI(append([]string{"run"}, args...)...)
	code2, out2, errs := runCLI("replay", path)
	if code != exitSafe || code2 != exitSafe || out1 != out2 {
		t.Fatalf("run exit %d, replay exit %d (%s); reports equal: %v", code, code2, errs, out1 == out2)
	}
	if code, out, _ := runCLI("replay", path, "--invariants", "mutual-exclusion"); code != exitViolation || !strings.Contains(out, "mutual-exclusion  BROKEN") {
		t.Errorf("replay --invariants mutual-exclusion: exit %d\n%s", code, out)
	}
	// A list naming one invariant six times is still one invariant.
	dup := filepath.Join(t.TempDir(), "dup.json")
	runCLI("run", "gc-pause", "--design", "fenced", "--invariants", strings.Repeat("lost-update,", 6), "--save", dup)
	if code, _, errs := runCLI("replay", dup); code != exitSafe {
		t.Errorf("replay of a case saved with a repeated invariant: exit %d %s", code, errs)
	}
	// A case naming an unknown invariant is refused, not judged by nothing.
	b, _ := os.ReadFile(path)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(strings.Replace(string(b), `"lost-update"`, `"lost-updaet"`, 1)), 0o644)
	if code, _, errs := runCLI("replay", bad); code != exitUsage || !strings.Contains(errs, "lost-updaet") {
		t.Errorf("replay of a case with an unknown invariant: exit %d %s", code, errs)
	}
}

// A user's Lua lock on a named scenario: compare-and-delete survives
// stale-release, a plain DEL does not.
func TestRunLuaOnScenario(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(src), 0o644)
		return p
	}
	acq := write("acquire.lua", "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end\nreturn 0\n")
	good := write("good.lua", "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end\nreturn 0\n")
	bad := write("bad.lua", "return redis.call('DEL', KEYS[1])\n")
	if code, out, errs := runCLI("run", "stale-release", "--acquire", acq, "--release", good); code != exitSafe {
		t.Errorf("compare-and-delete: exit %d, want 0\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI("run", "stale-release", "--acquire", acq, "--release", bad); code != exitViolation {
		t.Errorf("plain DEL: exit %d, want 1\n%s%s", code, out, errs)
	}
}

// Flags may come before or after positional arguments; whether a flag takes
// a value is asked of the flag itself, so boolean flags never swallow the
// argument after them.
func TestReorder(t *testing.T) {
	fs := newFlags("t", "t", os.Stdout)
	fs.Bool("brief", false, "")
	fs.Int("seed", 0, "")
	got, err := fs.reorder([]string{"gc-pause", "--brief", "x", "--seed", "3", "--", "-literal"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "--brief --seed 3 gc-pause x -literal"; strings.Join(got, " ") != want {
		t.Errorf("reorder = %q, want %q", strings.Join(got, " "), want)
	}
	if _, err := fs.reorder([]string{"gc-pause", "--seed"}); err == nil {
		t.Error("a value flag with no value was accepted")
	}
}
