package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// module writes a module m with three packages: spin, whose test burns
// 300ms of its own CPU time (read from getrusage, not the clock), fails,
// whose test fails, and quiet, which passes at once.
func module(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":               "module m\n\ngo 1.21\n",
		"spin/spin.go":         "package spin\n",
		"spin/spin_test.go":    "package spin\n\nimport (\n\t\"syscall\"\n\t\"testing\"\n)\n\nfunc cpu() int64 {\n\tvar ru syscall.Rusage\n\tsyscall.Getrusage(syscall.RUSAGE_SELF, &ru)\n\treturn ru.Utime.Nano() + ru.Stime.Nano()\n}\n\nfunc TestSpin(t *testing.T) {\n\tx := 0\n\tfor c0 := cpu(); cpu()-c0 < 300e6; {\n\t\tfor i := 0; i < 1e5; i++ {\n\t\t\tx += i\n\t\t}\n\t}\n\t_ = x\n}\n",
		"fails/fails.go":       "package fails\n",
		"fails/fails_test.go":  "package fails\n\nimport \"testing\"\n\nfunc TestFails(t *testing.T) { t.Fatal(\"broken on purpose\") }\n",
		"quiet/quiet.go":       "package quiet\n",
		"quiet/quiet_test.go":  "package quiet\n\nimport \"testing\"\n\nfunc TestQuiet(t *testing.T) {}\n",
		"notest/notest.go":     "package notest\n",
		"spin/testdata/README": "not a package\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testcpu builds the command once per test.
func testcpu(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "testcpu")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// testcpu go test runs the packages as go test does: its ok and FAIL
// lines pass through, its exit status is go test's; after them comes each
// package's CPU time, most first, with the failing package marked, and
// the spinning package's CPU is at least the 300ms it burned; the GOGC
// the binaries ran with (make test sets it) is named under the table.
func TestCPUPerPackage(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the spinning test reads getrusage")
	}
	bin, dir := testcpu(t), module(t)
	cmd := exec.Command(bin, "go", "test", "-timeout", "5m", "./...")
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for i, e := range cmd.Env {
		if strings.HasPrefix(e, logEnv+"=") { // under make test this test's own binary runs wrapped
			cmd.Env[i] = logEnv + "="
		}
	}
	cmd.Env = append(cmd.Env, "GOGC=400") // as make test sets it: the table says so
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	t.Log(out)
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("exit %v, want go test's 1 for a failing package (%v)", cmd.ProcessState, err)
	}
	for _, re := range []string{`(?m)^ok  \tm/spin\t`, `(?m)^ok  \tm/quiet\t`, `(?m)^FAIL\tm/fails\t`, `(?m)^\?   \tm/notest\t\[no test files\]`, `(?m)^FAIL$`,
		`(?m)^CPU per package`, `(?m)^ +[0-9.]+s  m/fails .*\(exit 1\)$`, `(?m)^ +[0-9.]+s  total of 3 test binaries; with compiling and vet, go test used [0-9.]+s of CPU`,
		`(?m)^ +the test binaries' collector: GOGC=400$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("the output lacks %s", re)
		}
	}
	if strings.Contains(out, "(cached)") {
		t.Errorf("a package came from the test cache, with no CPU to show")
	}
	// go test's own closing lines come before the table.
	if i, j := strings.Index(out, "FAIL\tm/fails"), strings.Index(out, "CPU per package"); i < 0 || j < i {
		t.Errorf("the table is not after go test's lines")
	}
	m := regexp.MustCompile(`(?m)^ +([0-9.]+)s  m/spin `).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("no row for m/spin")
	}
	if cpu, _ := strconv.ParseFloat(m[1], 64); cpu < 0.3 {
		t.Errorf("m/spin used %vs of CPU, want at least the 0.3s it burned", cpu)
	}
	if first := regexp.MustCompile(`(?m)^ +[0-9.]+s  (\S+) `).FindStringSubmatch(out); first == nil || first[1] != "m/spin" {
		t.Errorf("the costliest package is not first: %v", first)
	}
}

func TestWithExec(t *testing.T) {
	got, err := withExec([]string{"go", "test", "-timeout", "5m", "./...", "-args", "-exec"}, "/x/testcpu")
	if err != nil || strings.Join(got, " ") != "go test -exec /x/testcpu -timeout 5m ./... -args -exec" {
		t.Errorf("withExec = %q, %v", got, err)
	}
	for _, bad := range [][]string{{"go", "vet"}, {"go"}, {}, {"go", "test", "-exec=x", "./..."}} {
		if _, err := withExec(bad, "/x/testcpu"); err == nil {
			t.Errorf("withExec(%q) took it", bad)
		}
	}
	var out, errb strings.Builder
	if code := drive([]string{"go", "vet", "./..."}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: testcpu go test") {
		t.Errorf("drive of go vet: exit %d, %q", code, errb.String())
	}
}

func TestLogAndTable(t *testing.T) {
	recs, err := parseLog("m/a\t1500000000\t2000000000\t0\nbad line\nm/b\t2500000000\t3000000000\t1\n\n")
	if err == nil || !strings.Contains(err.Error(), "1 malformed") || len(recs) != 2 {
		t.Fatalf("parseLog = %v, %v", recs, err)
	}
	tab := table(recs, 10*time.Second, 90*time.Second)
	want := `
CPU per package (user+sys of each test binary and what it started; compiling not counted), most first:
     2.50s  m/b                                          wall    3.00s  (exit 1)
     1.50s  m/a                                          wall    2.00s
     4.00s  total of 2 test binaries; with compiling and vet, go test used 10.00s of CPU in 1m30s of wall time
`
	if tab != want {
		t.Errorf("table:\n%s\nwant:\n%s", tab, want)
	}
}

func TestImportPath(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("// c\nmodule \"example.com/m\" // x\n"), 0o644)
	if got := importPath(filepath.Join(dir, "a", "b")); got != "example.com/m/a/b" {
		t.Errorf("importPath = %q", got)
	}
	if got := importPath(dir); got != "example.com/m" {
		t.Errorf("importPath of the module root = %q", got)
	}
}
