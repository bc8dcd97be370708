// Command testcpu runs a go test command and then prints the CPU time
// (user + system) each package's test binary used: `make test` runs its
// go test lines through it, so every run shows where the test budget goes
// (docs/speed.md).
//
//	testcpu go test -timeout 20m ./...
//
// It adds -exec with itself to the go test command: go test then starts
// each test binary through testcpu, which runs the binary, forwards the
// signals go test sends it, reads the binary's CPU time from its process
// state (its own and that of every process it waited for) and appends it
// to a log file named by $LOCKSIM_TESTCPU_LOG. go test's output, its ok
// and FAIL lines included, passes through unchanged; the table follows it,
// and testcpu exits with go test's exit status.
//
// A test binary run through -exec is never taken from go test's cache (a
// cached result has no CPU time to show), so every package runs each time.
package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// logEnv names the log file a wrapped test binary's figures go to; set,
// testcpu runs as go test's -exec wrapper.
const logEnv = "LOCKSIM_TESTCPU_LOG"

func main() {
	if log := os.Getenv(logEnv); log != "" {
		os.Exit(wrap(log, os.Args[1:]))
	}
	os.Exit(drive(os.Args[1:], os.Stdout, os.Stderr))
}

// drive runs the go test command args with -exec testcpu and prints the
// CPU per package after it; it returns go test's exit status, 2 for a
// command that is not go test.
func drive(args []string, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "testcpu: %v\n", err)
		return 2
	}
	cmdArgs, err := withExec(args, self)
	if err != nil {
		fmt.Fprintf(stderr, "testcpu: %v\n", err)
		return 2
	}
	f, err := os.CreateTemp("", "testcpu-*.log")
	if err != nil {
		fmt.Fprintf(stderr, "testcpu: %v\n", err)
		return 2
	}
	f.Close()
	defer os.Remove(f.Name())

	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Env = append(os.Environ(), logEnv+"="+f.Name())
	// An interrupt reaches go test (same process group) and ends it; this
	// process waits for it and still prints what ran.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	start := time.Now() // wall-clock ok: the run's wall time, reported
	runErr := cmd.Run()
	wall := time.Since(start)
	code := 0
	if runErr != nil {
		code = 1
		if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() > 0 {
			code = cmd.ProcessState.ExitCode()
		}
		if cmd.ProcessState == nil {
			fmt.Fprintf(stderr, "testcpu: %v\n", runErr)
			return 2
		}
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		fmt.Fprintf(stderr, "testcpu: %v\n", err)
		return max(code, 1)
	}
	recs, err := parseLog(string(b))
	if err != nil {
		fmt.Fprintf(stderr, "testcpu: %v\n", err)
	}
	total := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Fprint(stdout, table(recs, total, wall))
	if g := os.Getenv("GOGC"); g != "" {
		fmt.Fprintf(stdout, "%10s  the test binaries' collector: GOGC=%s\n", "", g)
	}
	return code
}

// withExec returns the go test command with -exec self after "test".
func withExec(args []string, self string) ([]string, error) {
	if len(args) < 2 || args[1] != "test" {
		return nil, fmt.Errorf("usage: testcpu go test [flags] [packages] (got %q)", strings.Join(args, " "))
	}
	for _, a := range args[2:] {
		if a == "-exec" || strings.HasPrefix(a, "-exec=") {
			return nil, fmt.Errorf("the go test command has its own -exec; testcpu is one")
		}
		if a == "-args" {
			break
		}
	}
	return slices.Concat(args[:2], []string{"-exec", self}, args[2:]), nil
}

// record is one test binary's run, as the wrapper logged it.
type record struct {
	pkg       string
	cpu, wall time.Duration
	exit      int
}

// wrap runs the test binary args[0] with its arguments, forwarding
// signals to it, logs its CPU time to log, and returns its exit status.
func wrap(log string, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "testcpu: $"+logEnv+" is set but no test binary was given")
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = dieWithParent()
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT)
	start := time.Now() // wall-clock ok: the binary's wall time, reported
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "testcpu: %v\n", err)
		return 2
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sig:
				cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	cmd.Wait()
	close(done)
	wall := time.Since(start)
	ps := cmd.ProcessState
	code := ps.ExitCode()
	if code < 0 { // killed by a signal
		code = 2
	}
	dir, _ := os.Getwd()
	line := fmt.Sprintf("%s\t%d\t%d\t%d\n", importPath(dir), ps.UserTime()+ps.SystemTime(), wall, code)
	if f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0); err == nil {
		f.WriteString(line) // one short write in append mode: lines from parallel binaries do not mix
		f.Close()
	}
	return code
}

// importPath names the package in dir: its module's path (from the
// nearest go.mod above) and the directory under it; dir itself when no
// go.mod is found.
func importPath(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if mod := modulePath(filepath.Join(d, "go.mod")); mod != "" {
			rel, err := filepath.Rel(d, dir)
			if err != nil || rel == "." {
				return mod
			}
			return mod + "/" + filepath.ToSlash(rel)
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// modulePath reads the module line of a go.mod file; "" when there is none.
func modulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// parseLog reads the wrapper's lines; a malformed line is skipped and
// reported.
func parseLog(s string) ([]record, error) {
	var recs []record
	var bad int
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			bad++
			continue
		}
		cpu, err1 := strconv.ParseInt(f[1], 10, 64)
		wall, err2 := strconv.ParseInt(f[2], 10, 64)
		exit, err3 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || err3 != nil {
			bad++
			continue
		}
		recs = append(recs, record{f[0], time.Duration(cpu), time.Duration(wall), exit})
	}
	if bad > 0 {
		return recs, fmt.Errorf("%d malformed line(s) in the CPU log", bad)
	}
	return recs, nil
}

// table renders the CPU per package, most first, and the totals: the
// test binaries' CPU, and the go command's own with everything it ran
// (compiling, vet, linking, the binaries).
func table(recs []record, goCPU, wall time.Duration) string {
	var b strings.Builder
	slices.SortStableFunc(recs, func(x, y record) int {
		return cmp.Or(cmp.Compare(y.cpu, x.cpu), strings.Compare(x.pkg, y.pkg))
	})
	fmt.Fprintf(&b, "\nCPU per package (user+sys of each test binary and what it started; compiling not counted), most first:\n")
	var sum time.Duration
	for _, r := range recs {
		sum += r.cpu
		status := ""
		if r.exit != 0 {
			status = fmt.Sprintf("  (exit %d)", r.exit)
		}
		fmt.Fprintf(&b, "  %8s  %-44s wall %8s%s\n", secs(r.cpu), r.pkg, secs(r.wall), status)
	}
	fmt.Fprintf(&b, "  %8s  total of %d test %s; with compiling and vet, go test used %s of CPU in %s of wall time\n",
		secs(sum), len(recs), map[bool]string{true: "binary", false: "binaries"}[len(recs) == 1], secs(goCPU), wall.Round(time.Second))
	return b.String()
}

// secs renders a duration in seconds with two decimals.
func secs(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}
