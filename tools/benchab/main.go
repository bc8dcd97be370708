// Command benchab compares the working tree's benchmarks against a base
// commit's in one run: `make bench` runs it, and a refactor is measured
// with it (docs/speed.md, "Comparing against a base commit").
//
//	benchab [-base REV] [-rounds N] [-quick] [-bench REGEXP] [-target D] [-procs N] [packages]
//
// It extracts REV with git archive into a temporary directory, builds each
// package's test binary there and in the working tree (go test -c
// -trimpath), and runs every benchmark of both in interleaved rounds
// (base then head, then head then base, ...), each benchmark in its own
// process with the same fixed iteration count (-test.benchtime Nx). Its
// figure is the CPU time of that process (user + system, from
// os.ProcessState) divided by N: contention from other work on the
// machine inflates CPU time far less than wall time, and a pair measured
// back to back compares like moments. Per benchmark it prints the median
// of the rounds' head/base ratios and their least and greatest, and the
// machine's load average at the start and the end; absolute figures follow,
// labelled as load-dependent.
//
// A process's start and the benchmark's first one-op run are cancelled
// by subtracting the CPU of the same benchmark run once (-test.benchtime
// 1x) in the same round; -target sets how long the N ops take, from a
// first run of 50ms per benchmark.
//
// Exit status: 0 when every head benchmark ran, 1 when the working tree
// does not build or a head benchmark failed, 2 for a bad flag, a base that
// git cannot resolve or that does not build.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// exitError is an error with the exit status it calls for.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func fail(code int, format string, a ...any) error {
	return &exitError{code, fmt.Errorf(format, a...)}
}

// config is what the flags set.
type config struct {
	base   string
	rounds int
	target time.Duration
	bench  string
	procs  int
	pkgs   []string
	dir    string // the working tree's module directory
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.base, "base", "", "the base commit (any git revision); default: where HEAD left main (git merge-base HEAD main), or HEAD~1 when that is HEAD and nothing is uncommitted")
	fs.IntVar(&c.rounds, "rounds", 8, "rounds: each runs every benchmark once at base and once at head, the order swapped each round")
	fs.DurationVar(&c.target, "target", 300*time.Millisecond, "about how long one process's N ops take (sets N from a first run)")
	quick := fs.Bool("quick", false, "a developer's quick look: 6 rounds of 100ms (-rounds 6 -target 100ms)")
	fs.StringVar(&c.bench, "bench", ".", "which benchmarks (go test's -bench pattern)")
	fs.IntVar(&c.procs, "procs", 1, "GOMAXPROCS of the benchmark processes (1: one-core figures, the collector sharing the core)")
	fs.StringVar(&c.dir, "C", ".", "the module directory of the working tree")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *quick { // what -rounds and -target set stays
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["rounds"] {
			c.rounds = 6
		}
		if !set["target"] {
			c.target = 100 * time.Millisecond
		}
	}
	c.pkgs = fs.Args()
	if len(c.pkgs) == 0 {
		c.pkgs = []string{"./..."}
	}
	if err := compare(c, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "benchab: %v\n", err)
		var e *exitError
		if errors.As(err, &e) {
			return e.code
		}
		return 1
	}
	return 0
}

// validate checks the flags' values.
func (c config) validate() error {
	switch {
	case c.rounds < 1:
		return fail(2, "-rounds %d: want at least 1", c.rounds)
	case c.target <= 0:
		return fail(2, "-target %v: want a positive duration", c.target)
	case c.procs < 1:
		return fail(2, "-procs %d: want at least 1", c.procs)
	}
	if _, err := regexp.Compile(strings.Split(c.bench, "/")[0]); err != nil {
		return fail(2, "-bench %q: %v", c.bench, err)
	}
	return nil
}

// side is one of the two builds: the base commit's or the working tree's.
type side struct {
	label  string
	srcDir string // its module directory
	binDir string
}

// pkg is one package with benchmarks, and its test binary on each side
// ("" where that side has none).
type pkg struct {
	importPath, rel  string // rel: the directory relative to the module
	headBin, baseBin string
	baseMissing      string // why base has no binary
}

func compare(c config, stdout, stderr io.Writer) error {
	if err := c.validate(); err != nil {
		return err
	}
	mod, err := filepath.Abs(c.dir)
	if err != nil {
		return fail(2, "%v", err)
	}
	top, err := git(mod, "rev-parse", "--show-toplevel")
	if err != nil {
		return fail(2, "%s is not in a git work tree: %v", mod, err)
	}
	headSHA, _ := git(mod, "rev-parse", "--short", "HEAD")
	dirty := isDirty(mod)
	base, why, err := chooseBase(mod, c.base, dirty)
	if err != nil {
		return err
	}
	baseShort, _ := git(mod, "rev-parse", "--short", base)
	start := time.Now() // wall-clock ok: a report of how long the comparison took
	fmt.Fprintf(stdout, "A/B benchmarks: head = the working tree at %s%s, base = %s (%s)\n", headSHA, map[bool]string{true: " with uncommitted changes", false: ""}[dirty], baseShort, why)
	fmt.Fprintf(stdout, "load average at the start: %s\n", loadAverage(os.ReadFile))

	pkgs, err := benchPackages(mod, c.pkgs)
	if err != nil {
		return fail(1, "%v", err)
	}
	if len(pkgs) == 0 {
		return fail(2, "no package of %s declares a benchmark", strings.Join(c.pkgs, " "))
	}
	tmp, err := os.MkdirTemp("", "benchab-")
	if err != nil {
		return fail(1, "%v", err)
	}
	defer os.RemoveAll(tmp)
	relMod, err := filepath.Rel(top, mod)
	if err != nil {
		return fail(1, "%v", err)
	}
	baseSrc := filepath.Join(tmp, "src")
	if err := extract(mod, base, baseSrc); err != nil {
		return fail(2, "base %s: git archive: %v", baseShort, err)
	}
	head := side{"head", mod, filepath.Join(tmp, "head")}
	bside := side{"base " + baseShort, filepath.Join(baseSrc, relMod), filepath.Join(tmp, "base")}
	if err := buildAll(pkgs, head, bside); err != nil {
		return err
	}

	results, failed := measureAll(c, pkgs, head, bside, stderr)
	if len(results) == 0 {
		return fail(2, "no benchmark matches -bench %q in %s", c.bench, strings.Join(c.pkgs, " "))
	}
	fmt.Fprintf(stdout, "\nhead/base CPU per op (user+sys of each benchmark's own process, GOMAXPROCS=%d, the same iteration count\n", c.procs)
	fmt.Fprintf(stdout, "on both sides), median of %d rounds run base-head then head-base; below 1.00 head is cheaper; spread:\n", c.rounds)
	fmt.Fprintf(stdout, "the least and greatest round. faster/slower: head was cheaper/dearer in too many rounds to be chance\n")
	fmt.Fprintf(stdout, "(sign test, p < %.2f: about 1 in %.0f unchanged benchmarks is called anyway); (k/n): head cheaper in k of n rounds.\n", callP, 1/callP)
	fmt.Fprintf(stdout, "allocs: head/base allocs per op (load-independent).\n\n")
	fmt.Fprintf(stdout, "%-52s %6s   %-11s  %-22s %6s\n", "benchmark", "ratio", "spread", "reading", "allocs")
	for _, r := range results {
		fmt.Fprintln(stdout, r.row())
	}
	fmt.Fprintf(stdout, "\nabsolute (load-dependent): head's median CPU per op, then the benchmark's own wall time per op, B/op,\n")
	fmt.Fprintf(stdout, "allocs/op of its last round; base's CPU/op, B/op, allocs/op beside them. Compare ratios, not these, across runs.\n\n")
	fmt.Fprintf(stdout, "%-52s %10s %10s %10s %10s %10s   %s\n", "benchmark", "N", "cpu/op", "wall/op", "B/op", "allocs/op", "base: cpu/op B/op allocs/op")
	for _, r := range results {
		fmt.Fprintln(stdout, r.absolute())
	}
	fmt.Fprintf(stdout, "\nload average at the end: %s (the comparison took %v)\n", loadAverage(os.ReadFile), time.Since(start).Round(time.Second))
	if failed > 0 {
		return fail(1, "%d head benchmark(s) failed", failed)
	}
	return nil
}

// git runs git in dir and returns its trimmed output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// isDirty reports whether tracked files differ from HEAD.
func isDirty(dir string) bool {
	out, err := git(dir, "status", "--porcelain", "--untracked-files=no")
	return err == nil && out != ""
}

// chooseBase resolves the base revision to a commit and says why it was
// chosen. The default is where HEAD left main: a branch's whole change
// against what it started from. When that is HEAD itself (on main, or
// nothing committed yet), uncommitted changes are compared with HEAD, and
// a clean tree with HEAD~1, the last commit's change.
func chooseBase(dir, rev string, dirty bool) (sha, why string, err error) {
	if rev != "" {
		sha, err := git(dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
		if err != nil || sha == "" {
			return "", "", fail(2, "base %q: git cannot resolve it to a commit", rev)
		}
		return sha, "BASE=" + rev, nil
	}
	head, err := git(dir, "rev-parse", "HEAD")
	if err != nil {
		return "", "", fail(2, "no HEAD commit: %v", err)
	}
	for _, main := range []string{"main", "origin/main"} {
		mb, err := git(dir, "merge-base", "HEAD", main)
		if err != nil || mb == "" {
			continue
		}
		if mb != head {
			return mb, "the default: where HEAD left " + main + " (git merge-base HEAD " + main + ")", nil
		}
		break
	}
	if dirty {
		return head, "the default: HEAD, as the working tree has uncommitted changes", nil
	}
	prev, err := git(dir, "rev-parse", "--verify", "--quiet", "HEAD~1^{commit}")
	if err != nil || prev == "" {
		return "", "", fail(2, "no base: HEAD has no parent and nothing is uncommitted; give BASE=<rev>")
	}
	return prev, "the default: HEAD~1, as HEAD is on main and nothing is uncommitted", nil
}

// benchPackages lists the packages matching patterns (in module dir mod)
// whose test files declare a benchmark.
func benchPackages(mod string, patterns []string) ([]*pkg, error) {
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .TestGoFiles \" \"}} {{join .XTestGoFiles \" \"}}"}, patterns...)...)
	cmd.Dir = mod
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v: %s", strings.Join(patterns, " "), err, strings.TrimSpace(errb.String()))
	}
	var pkgs []*pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 {
			continue
		}
		if !declaresBenchmark(f[1], strings.Fields(f[2])) {
			continue
		}
		rel, err := filepath.Rel(mod, f[1])
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, &pkg{importPath: f[0], rel: rel})
	}
	return pkgs, nil
}

// declaresBenchmark reports whether one of the files declares a func
// BenchmarkXxx(b *testing.B) at top level.
func declaresBenchmark(dir string, files []string) bool {
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Benchmark") && fn.Type.Params.NumFields() == 1 {
				return true
			}
		}
	}
	return false
}

// extract writes the tree of commit rev (of the repository at dir) into
// dst, with git archive.
func extract(dir, rev, dst string) error {
	cmd := exec.Command("git", "archive", "--format=tar", rev)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	r, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	xerr := untar(r, dst)
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	return xerr
}

// untar writes a tar stream's directories, files and symbolic links
// under dst; a name that would land outside dst is refused.
func untar(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dst, filepath.FromSlash(h.Name))
		if rel, err := filepath.Rel(dst, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("archive entry %q lands outside %s", h.Name, dst)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777|0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, p); err != nil {
				return err
			}
		}
	}
}

// buildAll builds every package's test binary on both sides. A package
// the base lacks (no directory, or no Go files) gets no base binary; a
// base that fails to build is an error with exit status 2, the working
// tree's with 1.
func buildAll(pkgs []*pkg, head, base side) error {
	for i, p := range pkgs {
		bin := filepath.Join(head.binDir, fmt.Sprintf("p%d.test", i))
		if out, err := buildTest(head.srcDir, p.rel, bin); err != nil {
			return fail(1, "the working tree does not build %s:\n%s", p.importPath, out)
		}
		p.headBin = bin
		if !hasGoFiles(filepath.Join(base.srcDir, p.rel)) {
			p.baseMissing = "new, no base (the package is not at base)"
			continue
		}
		bin = filepath.Join(base.binDir, fmt.Sprintf("p%d.test", i))
		if out, err := buildTest(base.srcDir, p.rel, bin); err != nil {
			return fail(2, "%s does not build %s (exit 2: the base cannot be measured; pick another with BASE=<rev>):\n%s", base.label, p.importPath, out)
		}
		if _, err := os.Stat(bin); err != nil {
			p.baseMissing = "new, no base (no test files at base)"
			continue
		}
		p.baseBin = bin
	}
	return nil
}

// buildTest compiles the test binary of package ./rel of the module at
// dir into bin. -trimpath makes the build cache's keys independent of
// where the source is, so the base's packages are compiled once.
func buildTest(dir, rel, bin string) (string, error) {
	cmd := exec.Command("go", "test", "-c", "-trimpath", "-o", bin, "./"+filepath.ToSlash(rel))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return tail(string(out), 30), err
}

// tail keeps the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func hasGoFiles(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	return len(m) > 0
}

// runBench runs a test binary's benchmarks matching pattern in dir, for
// benchtime each (a duration, or "Nx" for N iterations), and returns its
// output and the CPU time (user + system) the process used.
func runBench(bin, dir, pattern, benchtime string, procs int) (string, float64, error) {
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime, "-test.benchmem", "-test.count", "1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	cpu := 0.0
	if cmd.ProcessState != nil {
		cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	if err != nil {
		return out.String(), cpu, fmt.Errorf("%v:\n%s", err, tail(out.String(), 20))
	}
	return out.String(), cpu, nil
}

// cpuShare is the share of a core a process got: its CPU time over its
// wall time, kept within [0.05, 1]. A benchmark's ns/op is wall time; on a
// loaded machine it is several times its CPU time per op, and N set from
// it alone would give a few ms of CPU where -target asked for 300.
func cpuShare(cpu float64, wall time.Duration) float64 {
	if wall <= 0 || cpu <= 0 {
		return 1
	}
	return min(1, max(0.05, cpu/wall.Seconds()))
}

// iterationsFor returns N for a benchmark one op of which took nsPerOp of
// CPU in a first run: about target's worth, and at least 10 ops where 10
// take at most 4 targets (with fewer, the one-op run subtracted from each
// figure is too large a part of it); at least 1.
func iterationsFor(nsPerOp float64, target time.Duration) int {
	if nsPerOp <= 0 {
		return 1
	}
	n := math.Ceil(float64(target) / nsPerOp)
	if n < 10 {
		n = min(10, math.Floor(4*float64(target)/nsPerOp))
	}
	return int(max(1, min(n, 1e9)))
}

// measureAll finds each package's benchmarks on both sides (one op each),
// then runs them in rounds, base and head alternated, and returns their
// results and how many head benchmarks failed.
func measureAll(c config, pkgs []*pkg, head, base side, progress io.Writer) ([]*result, int) {
	type job struct {
		r        *result
		p        *pkg
		pattern  string
		haveBase bool
	}
	var jobs []*job
	var results []*result
	failed := 0
	for _, p := range pkgs {
		headDir, baseDir := filepath.Join(head.srcDir, p.rel), filepath.Join(base.srcDir, p.rel)
		t0 := time.Now() // wall-clock ok: the calibration's share of a core, below
		out, cpu, err := runBench(p.headBin, headDir, c.bench, "50ms", c.procs)
		share := cpuShare(cpu, time.Since(t0))
		headLines := parseBench(out, c.procs)
		if err != nil {
			results = append(results, &result{name: p.importPath, headFailed: err.Error()})
			failed++
			continue
		}
		onBase := map[string]bool{}
		baseErr := p.baseMissing
		if p.baseBin != "" {
			out, _, err := runBench(p.baseBin, baseDir, c.bench, "1x", c.procs)
			if err != nil {
				baseErr = "base failed: " + firstLine(err.Error())
			}
			for _, l := range parseBench(out, c.procs) {
				onBase[l.name] = true
			}
		}
		for _, l := range headLines {
			r := &result{name: p.importPath + "." + l.name, bench: l.name, iterations: iterationsFor(l.nsPerOp*share, c.target)}
			switch {
			case baseErr != "":
				r.noBase = baseErr
			case !onBase[l.name]:
				r.noBase = "new, no base"
			}
			results = append(results, r)
			jobs = append(jobs, &job{r: r, p: p, pattern: exactPattern(l.name), haveBase: r.noBase == ""})
		}
	}
	for round := 0; round < c.rounds; round++ {
		fmt.Fprintf(progress, "benchab: round %d of %d\n", round+1, c.rounds)
		for _, j := range jobs {
			if j.r.headFailed != "" {
				continue
			}
			order := []bool{false, true} // base first
			if round%2 == 1 {
				order = []bool{true, false}
			}
			hcpu, bcpu := 0.0, 0.0
			for _, isHead := range order {
				if !isHead && !j.haveBase {
					continue
				}
				bin, dir := j.p.headBin, filepath.Join(head.srcDir, j.p.rel)
				if !isHead {
					bin, dir = j.p.baseBin, filepath.Join(base.srcDir, j.p.rel)
				}
				cpu, line, err := measureOne(bin, dir, j.pattern, j.r, c.procs)
				switch {
				case err != nil && isHead:
					j.r.headFailed = firstLine(err.Error())
					failed++
				case err != nil:
					j.r.noBase, j.haveBase = "base failed: "+firstLine(err.Error()), false
				case isHead:
					hcpu, j.r.headLine = cpu, line
				default:
					bcpu, j.r.baseLine = cpu, line
				}
				if j.r.headFailed != "" {
					break
				}
			}
			j.r.head, j.r.base = append(j.r.head, hcpu), append(j.r.base, bcpu)
		}
	}
	return results, failed
}

// measureOne runs r's benchmark r.iterations (N) times in one process
// and once in another, and returns the CPU time per op: the difference of
// the two processes' CPU over N. The difference cancels the process's
// start and the benchmark's first run of one op (testing runs a b.N
// benchmark once with N=1 before the N it was asked for), which would
// otherwise pull every ratio towards 1.00; what is left is the N ops
// and, for a b.N loop, one run of its setup. It also returns the N-op
// run's line.
func measureOne(bin, dir, pattern string, r *result, procs int) (float64, benchLine, error) {
	out, cpuN, err := runBench(bin, dir, pattern, fmt.Sprintf("%dx", r.iterations), procs)
	if err != nil {
		return 0, benchLine{}, err
	}
	line, err := theLine(out, r, procs)
	if err != nil || r.iterations == 1 {
		return cpuN, line, err
	}
	_, cpu1, err := runBench(bin, dir, pattern, "1x", procs)
	if err != nil {
		return 0, line, err
	}
	return perOp(cpuN, cpu1, r.iterations), line, nil
}

// perOp is the CPU time per op from a process that ran n ops and one that
// ran 1. A difference at or below zero (the clock's granularity on a tiny
// benchmark) falls back to cpuN/n.
func perOp(cpuN, cpu1 float64, n int) float64 {
	if n <= 1 || cpuN-cpu1 <= 0 {
		return cpuN / float64(max(n, 1))
	}
	return (cpuN - cpu1) / float64(n)
}

// theLine returns the one result line of r's benchmark in out, which must
// have run r.iterations times.
func theLine(out string, r *result, procs int) (benchLine, error) {
	name := r.bench
	for _, l := range parseBench(out, procs) {
		if l.name == name {
			if l.n != r.iterations {
				return l, fmt.Errorf("%s ran %d iterations, want %d", name, l.n, r.iterations)
			}
			return l, nil
		}
	}
	return benchLine{}, fmt.Errorf("no result line for %s in:\n%s", name, tail(out, 10))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
