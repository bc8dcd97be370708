package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo builds a git repository with three commits of a small module ab:
// good (BenchmarkA), broken (does not compile), and head (BenchmarkA,
// a new BenchmarkB with two sub-benchmarks, and a new package sub with
// BenchmarkC). It returns the directory and the first two commits.
func repo(t *testing.T) (dir, good, broken string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	dir = t.TempDir()
	gitc := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const sum = "package ab\n\nfunc Sum(n int) int {\n\ts := 0\n\tfor i := 0; i < n; i++ {\n\t\ts += i\n\t}\n\treturn s\n}\n"
	const benchA = "package ab\n\nimport \"testing\"\n\nfunc BenchmarkA(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tSum(1000)\n\t}\n}\n"
	gitc("init", "-q", "-b", "main")
	write("go.mod", "module ab\n\ngo 1.21\n")
	write("ab.go", sum)
	write("ab_test.go", benchA)
	gitc("add", ".")
	gitc("commit", "-q", "-m", "good")
	good = gitc("rev-parse", "HEAD")
	write("ab.go", sum+"\nfunc broken( {\n")
	gitc("commit", "-q", "-am", "broken")
	broken = gitc("rev-parse", "HEAD")
	write("ab.go", sum)
	write("b_test.go", "package ab\n\nimport \"testing\"\n\nfunc BenchmarkB(b *testing.B) {\n\tfor _, n := range []int{10, 100} {\n\t\tb.Run(map[int]string{10: \"small\", 100: \"large\"}[n], func(b *testing.B) {\n\t\t\tfor b.Loop() {\n\t\t\t\tSum(n)\n\t\t\t}\n\t\t})\n\t}\n}\n")
	write("sub/sub.go", "package sub\n\nfunc One() int { return 1 }\n")
	write("sub/sub_test.go", "package sub\n\nimport \"testing\"\n\nfunc BenchmarkC(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tOne()\n\t}\n}\n")
	write("nobench/n.go", "package nobench\n")
	gitc("add", ".")
	gitc("commit", "-q", "-m", "head")
	return dir, good, broken
}

// One real comparison of a small repository: a benchmark at both sides
// gets a ratio and a reading; a benchmark and a package the base lacks
// are "new, no base" and still get head's absolute figures; the load
// average is printed at the start and the end.
func TestCompareAgainstABase(t *testing.T) {
	dir, good, _ := repo(t)
	var out, errb bytes.Buffer
	code := run([]string{"-C", dir, "-base", good, "-rounds", "2", "-target", "20ms"}, &out, &errb)
	text := out.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, text, errb.String())
	}
	t.Log(text)
	rows := map[string]string{}
	inRatios := true
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "absolute") {
			inRatios = false
		}
		if f := strings.Fields(line); inRatios && len(f) > 1 && strings.HasPrefix(f[0], "ab") {
			rows[f[0]] = strings.Join(f[1:], " ")
		}
	}
	if r := rows["ab.BenchmarkA"]; !strings.Contains(r, "(") || !strings.Contains(r, "/2)") || strings.Contains(r, "no base") {
		t.Errorf("BenchmarkA, at both sides, has no ratio and reading: %q", r)
	}
	for _, name := range []string{"ab.BenchmarkB/small", "ab.BenchmarkB/large"} {
		if r := rows[name]; r != "new, no base" {
			t.Errorf("%s, not at base: %q, want new, no base", name, r)
		}
	}
	if r := rows["ab/sub.BenchmarkC"]; r != "new, no base (the package is not at base)" {
		t.Errorf("BenchmarkC of a package not at base: %q", r)
	}
	if _, ok := rows["ab/nobench.BenchmarkX"]; ok || strings.Contains(text, "nobench") {
		t.Errorf("a package without benchmarks was measured")
	}
	for _, want := range []string{"load average at the start: ", "load average at the end: ", "absolute (load-dependent)", "base = " + good[:7], "(BASE=" + good + ")"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if n := strings.Count(text, "ab/sub.BenchmarkC"); n != 2 {
		t.Errorf("BenchmarkC appears %d times, want a row and its absolute figures", n)
	}
}

// A base that does not build is a clear error with exit status 2, as is
// one git cannot resolve; a working tree that does not build exits 1.
func TestBaseThatDoesNotBuild(t *testing.T) {
	dir, good, broken := repo(t)
	var out, errb bytes.Buffer
	code := run([]string{"-C", dir, "-base", broken, "-rounds", "1", "-target", "1ms", "./"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "does not build ab") || !strings.Contains(errb.String(), "pick another with BASE=") ||
		!strings.Contains(errb.String(), "syntax error") {
		t.Errorf("a broken base: exit %d, stderr:\n%s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-C", dir, "-base", good, "-bench", "NoSuch", "./"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `no benchmark matches -bench "NoSuch"`) {
		t.Errorf("a -bench that selects nothing: exit %d, stderr: %s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-C", dir, "-base", "no-such-rev"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `base "no-such-rev": git cannot resolve it`) {
		t.Errorf("an unknown base: exit %d, stderr: %s", code, errb.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "ab.go"), []byte("package ab\n\nfunc Sum( {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"-C", dir, "-base", good, "-rounds", "1", "./"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "the working tree does not build ab") {
		t.Errorf("a broken working tree: exit %d, stderr: %s", code, errb.String())
	}
}

// The default base: where HEAD left main; on main, HEAD~1 when nothing is
// uncommitted and HEAD when something is.
func TestDefaultBase(t *testing.T) {
	dir, good, broken := repo(t)
	head, _ := git(dir, "rev-parse", "HEAD")
	if sha, why, err := chooseBase(dir, "", false); err != nil || sha != broken || !strings.Contains(why, "HEAD~1") {
		t.Errorf("on main, clean: %s %q %v; want HEAD~1 %s", sha, why, err, broken)
	}
	if sha, why, err := chooseBase(dir, "", true); err != nil || sha != head || !strings.Contains(why, "uncommitted") {
		t.Errorf("on main, dirty: %s %q %v; want HEAD", sha, why, err)
	}
	if _, err := git(dir, "checkout", "-q", "-b", "topic", good); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.go"), []byte("package ab\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := git(dir, "add", "c.go"); err != nil {
		t.Fatal(err)
	}
	if _, err := git(dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "topic"); err != nil {
		t.Fatal(err)
	}
	if sha, why, err := chooseBase(dir, "", false); err != nil || sha != good || !strings.Contains(why, "merge-base HEAD main") {
		t.Errorf("on a branch: %s %q %v; want the merge-base %s", sha, why, err, good)
	}
}
