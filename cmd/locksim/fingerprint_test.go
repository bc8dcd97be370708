package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"locksim/engine"
	"locksim/internal/fingerprint"
)

// buildSimulator copies the sources the fingerprint counts (all a build
// needs) into a directory without .git, applies edit to them, refreshes
// the fingerprint there with its generator, and builds the CLI with
// -buildvcs=false: a simulator built from a source tarball (-trimpath:
// the two copies share the build cache for what they have in common).
func buildSimulator(t *testing.T, name string, edit func(dir string)) string {
	t.Helper()
	root, err := fingerprint.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	files, err := fingerprint.Files(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), name)
	for _, rel := range append(files, fingerprint.SumFile) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if edit != nil {
		edit(dir)
	}
	for _, args := range [][]string{
		{"go", "run", "./internal/fingerprint/gen"},
		{"go", "build", "-buildvcs=false", "-trimpath", "-o", filepath.Join(dir, "locksim"), "./cmd/locksim"},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return filepath.Join(dir, "locksim")
}

// The case: two simulators built without VCS information (from
// source tarballs), one with a changed source. Each knows its own
// fingerprint without a commit; merge refuses to mix their shards, naming
// both fingerprints, with exit 2, and merges each one's own shards.
func TestMergeRefusesAnotherSimulatorBuiltWithoutVCS(t *testing.T) {
	a := buildSimulator(t, "a", nil)
	b := buildSimulator(t, "b", func(dir string) {
		p := filepath.Join(dir, "engine", "build.go")
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, append(src, "\n// Another simulator: one changed line of source.\n"...), 0o644)
	})
	dir := t.TempDir()
	run := func(bin string, args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, shardEnv()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errb.String()
	}
	version := regexp.MustCompile(`^locksim ` + regexp.QuoteMeta(Version) + ` fingerprint ([0-9a-f]{16}), go`)
	fp := map[string]string{}
	for name, bin := range map[string]string{"a": a, "b": b} {
		_, out, _ := run(bin, "version")
		m := version.FindStringSubmatch(out)
		if m == nil || strings.Contains(out, "commit") {
			t.Fatalf("%s: version prints %q: want a fingerprint and no commit", name, out)
		}
		fp[name] = m[1]
	}
	if fp["a"] != engine.Fingerprint || fp["b"] == fp["a"] {
		t.Fatalf("fingerprints a %s, b %s; this test's %s: want a the same, b another", fp["a"], fp["b"], engine.Fingerprint)
	}
	check := []string{"check", "--design", "set-px-lua", "--runs", "40", "--progress=false", "--format", "json", "--save", "c.json"}
	for _, s := range []struct {
		bin, out, shard string
	}{{a, "a-0.json", "0/2"}, {a, "a-1.json", "1/2"}, {b, "b-1.json", "1/2"}} {
		if code, _, errs := run(s.bin, append(check, "--shard", s.shard, "-o", s.out)...); code == exitUsage {
			t.Fatalf("%s: %s", s.out, errs)
		}
	}
	code, out, errs := run(a, "merge", "--save", "m.json", "a-0.json", "b-1.json")
	want := "a-0.json and b-1.json were written by different simulators: fingerprint " + fp["a"] + " (locksim " + Version + " fingerprint " + fp["a"] + ") and fingerprint " + fp["b"]
	if code != exitUsage || out != "" || !strings.Contains(errs, want) {
		t.Errorf("merge of two simulators' shards: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, want)
	}
	code, out, errs = run(b, "merge", "--save", "m.json", "a-0.json", "a-1.json")
	want = "a-0.json was written by a simulator with fingerprint " + fp["a"] + " (locksim " + Version + " fingerprint " + fp["a"] + "); this merge's simulator has fingerprint " + fp["b"]
	if code != exitUsage || out != "" || !strings.Contains(errs, want) {
		t.Errorf("merge by another simulator: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, want)
	}
	if code, out, errs := run(a, "merge", "--save", "m.json", "a-0.json", "a-1.json"); code != exitViolation || !strings.HasPrefix(out, "design set-px-lua: 40 runs") {
		t.Errorf("merge of one simulator's shards: exit %d %q %q", code, out, errs)
	}
}
