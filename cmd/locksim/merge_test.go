package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/engine"
)

// mergeCase is one campaign, as check's flags.
type mergeCase struct {
	name string
	args []string
	code int
}

func mergeCases(t *testing.T) []mergeCase {
	loop := filepath.Join(t.TempDir(), "acquire.lua")
	os.WriteFile(loop, []byte("if tonumber(ARGV[1]:sub(-2), 36) % 400 == 0 then while true do end end\nreturn redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n"), 0o644)
	release := filepath.Join(t.TempDir(), "release.lua")
	os.WriteFile(release, []byte("return redis.call('DEL', KEYS[1])\n"), 0o644)
	return []mergeCase{
		{"fails", []string{"--design", "set-px-lua", "--runs", "400"}, exitViolation},
		{"holds", []string{"--design", "fenced", "--fencing", "strict-reads", "--faults", "pause,delay", "--invariants", "lost-update", "--runs", "200"}, exitSafe},
		{"stops", []string{"--acquire", loop, "--release", release, "--faults", "pause", "--runs", "200", "--seed", "7"}, exitUsage},
	}
}

// merge of the 4 shards' JSON prints what the unsharded check prints, byte
// for byte, in text, JSON and markdown, with the same exit code and the same
// minimal case saved; a check that stops at an errored run stops the merge
// at the same run, with the same error.
func TestMergeEqualsUnshardedCheck(t *testing.T) {
	for _, mc := range mergeCases(t) {
		for _, format := range []string{"text", "json", "markdown"} {
			t.Run(mc.name+"/"+format, func(t *testing.T) {
				dir := t.TempDir()
				save := filepath.Join(dir, "locksim-failure.json")
				base := append([]string{"check", "--progress=false"}, mc.args...)
				code, want, wantErr := runCLI(append(base, "--format", format, "--save", save)...)
				if code != mc.code {
					t.Fatalf("check: exit %d, want %d: %s", code, mc.code, wantErr)
				}
				wantCase, _ := os.ReadFile(save)
				os.Remove(save)
				var shards []string
				for i := range 4 {
					p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
					if c, _, errs := runCLI(append(base, "--shard", fmt.Sprintf("%d/4", i), "--format", "json", "-o", p, "--save", filepath.Join(dir, "shard-case.json"))...); c == exitUsage && mc.code != exitUsage {
						t.Fatalf("shard %d: exit 2: %s", i, errs)
					}
					shards = append(shards, p)
				}
				code, got, gotErr := runCLI(append([]string{"merge", "--format", format, "--save", save}, shards...)...)
				if code != mc.code {
					t.Errorf("merge: exit %d, want %d: %s", code, mc.code, gotErr)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("merge differs from the unsharded check (-check +merge):\n%s", diff)
				}
				if strings.ReplaceAll(gotErr, "merge", "check") != wantErr {
					t.Errorf("stderr: check %q, merge %q", wantErr, gotErr)
				}
				if gotCase, _ := os.ReadFile(save); !bytes.Equal(gotCase, wantCase) {
					t.Errorf("merge saved another case than check:\n%s\nwant:\n%s", gotCase, wantCase)
				}
			})
		}
	}
}

// merge refuses files that are not every shard of one check, with exit 2
// and a message naming the file; a pattern is expanded when no shell did.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	shard := func(name string, args ...string) string {
		p := filepath.Join(dir, name)
		base := []string{"check", "--design", "set-px-lua", "--runs", "40", "--progress=false", "--format", "json", "-o", p, "--save", filepath.Join(dir, "c.json")}
		if code, _, errs := runCLI(append(base, args...)...); code == exitUsage {
			t.Fatalf("%s: %s", name, errs)
		}
		return p
	}
	s0, s1, s2 := shard("s-0.json", "--shard", "0/3"), shard("s-1.json", "--shard", "1/3"), shard("s-2.json", "--shard", "2/3")
	seed := shard("seed.json", "--shard", "2/3", "--seed", "9")
	text := filepath.Join(dir, "text.txt")
	os.WriteFile(text, []byte("design set-px-lua: 40 runs\n"), 0o644)
	// edit writes a copy of a shard with its "locksim" build replaced.
	edit := func(src, name, build string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		this := `"locksim": {"version":"` + Version + `","fingerprint":"` + engine.Fingerprint + `"}`
		if !bytes.Contains(b, []byte(this)) {
			t.Fatalf("%s does not carry %s", src, this)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, bytes.Replace(b, []byte(this), []byte(`"locksim": `+build), 1), 0o644)
		return p
	}
	other := edit(s1, "other-1.json", `{"version":"`+Version+`","fingerprint":"00000000000000ff"}`)
	none := edit(s2, "none-2.json", `{"version":"`+Version+`"}`)
	vcs := edit(s2, "vcs-2.json", `{"version":"`+Version+`","fingerprint":"`+engine.Fingerprint+`","commit":"0123456789abcdef0123","modified":true}`)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no files", nil, "give the JSON of every shard"},
		{"a shard missing", []string{s0, s2}, "shard 1 of 3 missing"},
		{"a shard twice", []string{s0, s1, s1, s2}, "are both shard 1 of 3"},
		{"another check", []string{s0, s1, seed}, "their campaigns differ in seed (1 vs 9)"},
		{"not JSON", []string{s0, s1, text}, text},
		{"no such file", []string{s0, s1, filepath.Join(dir, "s-9.json")}, "s-9.json"},
		{"no match", []string{filepath.Join(dir, "nothing-*.json")}, "no file matches"},
		{"bad format", []string{"--format", "yaml", s0, s1, s2}, "unknown --format"},
		{"another simulator", []string{s0, other, s2}, s0 + " and " + other + " were written by different simulators: fingerprint " + engine.Fingerprint + " (locksim " + Version + " fingerprint " + engine.Fingerprint + ") and fingerprint 00000000000000ff"},
		{"no fingerprint", []string{s0, s1, none}, none + " has no simulator fingerprint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"merge"}, tc.args...)...)
			if code != exitUsage || !strings.Contains(errs, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q: want exit 2 and %q", code, out, errs, tc.want)
			}
		})
	}
	if code, out, errs := runCLI("merge", "--save", filepath.Join(dir, "m.json"), filepath.Join(dir, "s-*.json")); code != exitViolation || !strings.HasPrefix(out, "design set-px-lua: 40 runs") {
		t.Errorf("merge of a pattern: exit %d %s %s", code, out, errs)
	}
	// The same fingerprint merges whatever the VCS stamp says.
	if code, out, errs := runCLI("merge", "--save", filepath.Join(dir, "m.json"), s0, s1, vcs); code != exitViolation || !strings.HasPrefix(out, "design set-px-lua: 40 runs") {
		t.Errorf("merge of shards with one fingerprint and another commit: exit %d %s %s", code, out, errs)
	}
}

// --shard auto reads the index and the count from the environment; missing
// or inconsistent values are usage errors.
func TestResolveShard(t *testing.T) {
	for _, tc := range []struct {
		name      string
		spec      string
		shards    int
		env       map[string]string
		i, n      int
		from, err string
	}{
		{"none", "", 0, nil, 0, 1, "", ""},
		{"explicit", "2/5", 0, map[string]string{envShardIndex: "1"}, 2, 5, "", ""},
		{"ci matrix", "auto", 0, map[string]string{envShardIndex: "1", envShardCount: "4"}, 1, 4, "LOCKSIM_SHARD_INDEX=1, LOCKSIM_SHARD_COUNT=4", ""},
		{"indexed job, --shards", "auto", 8, map[string]string{envJobIndex: "7"}, 7, 8, "JOB_COMPLETION_INDEX=7, --shards 8", ""},
		{"indexed job, count from env", "auto", 0, map[string]string{envJobIndex: "0", envShardCount: "8"}, 0, 8, "JOB_COMPLETION_INDEX=0, LOCKSIM_SHARD_COUNT=8", ""},
		{"both indices agree", "auto", 0, map[string]string{envJobIndex: "3", envShardIndex: "3", envShardCount: "4"}, 3, 4, "LOCKSIM_SHARD_INDEX=3, LOCKSIM_SHARD_COUNT=4", ""},
		{"both counts agree", "auto", 4, map[string]string{envShardIndex: "3", envShardCount: "4"}, 3, 4, "LOCKSIM_SHARD_INDEX=3, --shards 4", ""},
		{"no index", "auto", 4, map[string]string{envShardCount: "4"}, 0, 0, "", "no shard index in the environment: set LOCKSIM_SHARD_INDEX"},
		{"empty index", "auto", 4, map[string]string{envShardIndex: ""}, 0, 0, "", "no shard index"},
		{"no count", "auto", 0, map[string]string{envJobIndex: "2"}, 0, 0, "", "JOB_COMPLETION_INDEX=2 gives the index, but nothing gives the count: pass --shards N or set LOCKSIM_SHARD_COUNT"},
		{"indices disagree", "auto", 4, map[string]string{envJobIndex: "2", envShardIndex: "1"}, 0, 0, "", "LOCKSIM_SHARD_INDEX=1 and JOB_COMPLETION_INDEX=2 disagree"},
		{"counts disagree", "auto", 4, map[string]string{envShardIndex: "1", envShardCount: "5"}, 0, 0, "", "--shards 4 and LOCKSIM_SHARD_COUNT=5 disagree"},
		{"index too large", "auto", 0, map[string]string{envShardIndex: "4", envShardCount: "4"}, 0, 0, "", "LOCKSIM_SHARD_INDEX=4 is not a shard of 4 (LOCKSIM_SHARD_COUNT=4): the indices are 0 to 3"},
		{"index not a number", "auto", 0, map[string]string{envShardIndex: "one", envShardCount: "4"}, 0, 0, "", `LOCKSIM_SHARD_INDEX="one": want a shard index`},
		{"negative index", "auto", 0, map[string]string{envJobIndex: "-1", envShardCount: "4"}, 0, 0, "", `JOB_COMPLETION_INDEX="-1"`},
		{"count not a number", "auto", 0, map[string]string{envShardIndex: "0", envShardCount: "four"}, 0, 0, "", `LOCKSIM_SHARD_COUNT="four": want the number of shards`},
		{"zero count", "auto", 0, map[string]string{envShardIndex: "0", envShardCount: "0"}, 0, 0, "", "want at least 1 shard"},
		{"--shards without auto", "1/4", 4, nil, 0, 0, "", "--shards goes with --shard auto"},
		{"bad spec", "automatic", 0, nil, 0, 0, "", `--shard "automatic"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			i, n, from, err := resolveShard(tc.spec, tc.shards, tc.shards != 0, getenv)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || i != tc.i || n != tc.n || from != tc.from {
				t.Errorf("= %d/%d %q %v, want %d/%d %q", i, n, from, err, tc.i, tc.n, tc.from)
			}
		})
	}
}

// check --shard auto through the command, in a CI matrix's environment:
// it runs shard 1 of 4, says so on stderr, saves its case under the
// shard's own name; with no index set it exits 2.
func TestCheckShardAuto(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(envJobIndex, "")
	t.Setenv(envShardIndex, "1")
	t.Setenv(envShardCount, "4")
	code, out, errs := runCLI("check", "--design", "set-px-lua", "--runs", "400", "--shard", "auto", "--format", "json", "--progress=false")
	if code != exitViolation || !strings.Contains(errs, "locksim check: shard 1/4 (LOCKSIM_SHARD_INDEX=1, LOCKSIM_SHARD_COUNT=4)") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, `"shard":1,"shards":4`) || !strings.Contains(out, `"index":1,`) || strings.Contains(out, `"index":2,`) {
		t.Errorf("not shard 1 of 4:\n%.600s", out)
	}
	if _, err := os.Stat("locksim-failure-shard1of4.json"); err != nil {
		t.Errorf("the shard's case: %v", err)
	}
	t.Setenv(envShardIndex, "")
	t.Setenv(envJobIndex, "2")
	t.Setenv(envShardCount, "")
	if code, _, errs := runCLI("check", "--design", "set-px-lua", "--runs", "40", "--shard", "auto", "--progress=false"); code != exitUsage || !strings.Contains(errs, "nothing gives the count") {
		t.Errorf("no count: exit %d %s", code, errs)
	}
	if code, _, errs := runCLI("check", "--design", "set-px-lua", "--runs", "40", "--shard", "auto", "--shards", "4", "--progress=false"); code != exitViolation || !strings.Contains(errs, "shard 2/4 (JOB_COMPLETION_INDEX=2, --shards 4)") {
		t.Errorf("indexed job: exit %d %s", code, errs)
	}
	if code, out, _ := runCLI("check", "--help"); code != exitSafe || !strings.Contains(out, "JOB_COMPLETION_INDEX") || !strings.Contains(out, "LOCKSIM_SHARD_COUNT") {
		t.Errorf("check --help does not document --shard auto's environment")
	}
}

// cli is the locksim binary the subprocess tests share: go build runs once
// per test binary, into a directory TestMain removes.
var cli struct {
	once      sync.Once
	dir, path string
	err       error
}

// buildCLI returns the locksim binary, built with go build on first use.
func buildCLI(t *testing.T) string {
	t.Helper()
	cli.once.Do(func() {
		if cli.dir, cli.err = os.MkdirTemp("", "locksim-cli-"); cli.err != nil {
			return
		}
		cli.path = filepath.Join(cli.dir, "locksim")
		if out, err := exec.Command("go", "build", "-o", cli.path, ".").CombinedOutput(); err != nil {
			cli.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if cli.err != nil {
		t.Fatal(cli.err)
	}
	return cli.path
}

func TestMain(m *testing.M) {
	// The in-process commands (runCLI, TestBombChild's children) pace the
	// collector as the CLI's main does: GOGC=400 unless GOGC is set.
	paceGC()
	if workers := os.Getenv(paceChildEnv); workers != "" {
		paceChild(workers) // TestPaceWorkersInTheCLI's child; exits
	}
	code := m.Run()
	if cli.dir != "" {
		os.RemoveAll(cli.dir)
	}
	if labBuild.dir != "" {
		os.RemoveAll(labBuild.dir) // lab_test.go's wasm build and site
	}
	os.Exit(code)
}

// shardEnv is the test's environment without any shard variables, plus
// those given.
func shardEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != envShardIndex && k != envShardCount && k != envJobIndex && k != "LOCKSIM_REPORT_DIR" {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// Real processes, as a CI matrix runs them: 4 shard processes at once, each
// told its shard by the environment (--shard auto), then merge; its output
// is the unsharded process's, byte for byte, with the same exit code.
func TestMergeShardProcesses(t *testing.T) {
	start := time.Now() // wall clock: for the log only
	dir := t.TempDir()
	bin := buildCLI(t)
	built := time.Since(start)
	flags := []string{"check", "--design", "set-px-lua", "--runs", "2000", "--progress=false"}
	run := func(env []string, args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	var wg sync.WaitGroup
	codes := make([]int, 4)
	errs := make([]string, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, errs[i] = run(shardEnv(fmt.Sprintf("%s=%d", envShardIndex, i), envShardCount+"=4"),
				append(flags, "--shard", "auto", "--format", "json", "-o", fmt.Sprintf("shard-%d.json", i))...)
		}()
	}
	wg.Wait()
	for i := range 4 {
		if codes[i] == exitUsage || !strings.Contains(errs[i], fmt.Sprintf("shard %d/4", i)) {
			t.Fatalf("shard %d: exit %d: %s", i, codes[i], errs[i])
		}
	}
	mcode, merged, merr := run(shardEnv(), "merge", "shard-0.json", "shard-1.json", "shard-2.json", "shard-3.json")
	took := time.Since(start)
	code, want, werr := run(shardEnv(), flags...)
	if code != exitViolation || mcode != code {
		t.Errorf("exit codes: check %d (%s), merge %d (%s), want 1", code, werr, mcode, merr)
	}
	if diff := cmp.Diff(want, merged); diff != "" {
		t.Errorf("merged shard processes differ from the unsharded process (-check +merge):\n%s", diff)
	}
	t.Logf("build %v; 4 shard processes and the merge %v", built.Round(time.Millisecond), (took - built).Round(time.Millisecond))
}
