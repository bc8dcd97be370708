// Command locksim-node checks a Node.js lock module (docs/node.md): the
// same check as realclient/node's TestNodeUserCheck, which it runs with
// go test, from flags instead of environment variables.
//
//	cd realclient && go run ./cmd/locksim-node --lock ~/mylock/mylock.cjs
//
// It runs from the realclient module, or from a module that requires
// locksim/realclient: realclient.Check is a Go test helper (it needs a
// *testing.T to shrink with rapid and to report), so the check runs as
// `go test -run '^TestNodeUserCheck$' locksim/realclient/node` with the
// settings in NODE_* variables, and this command reads its outcome.
//
// Exit codes, as locksim's: 0 nothing broke, 1 a violation was found (the
// case is saved and replays first on the next run), 2 a usage or input
// error, or no verdict (a run the harness refused, a missing Node.js, a
// build failure).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"locksim"
	"locksim/realclient/node"
	"locksim/report"
	"locksim/sim"

	"github.com/pkg/errors"
)

const (
	exitHeld      = 0
	exitBroken    = 1
	exitNoVerdict = 2
)

// testName is the test the command runs.
const testName = "TestNodeUserCheck"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// settings are the parsed flags.
type settings struct {
	lock, faults, format, out, caseDir, reportDir string
	masters, runs, exhaustive, valueArg           int
	seed                                          uint64
}

// summary is --format json's output (schema locksim.node-check/v1).
type summary struct {
	Schema     string   `json:"schema"`
	Lock       string   `json:"lock"`
	Verdict    string   `json:"verdict"` // held, broken, no-verdict
	Exit       int      `json:"exit"`
	Faults     []string `json:"faults"`
	Masters    int      `json:"masters"`
	Runs       int      `json:"runs,omitempty"`
	Seed       uint64   `json:"seed,omitempty"`
	Exhaustive int      `json:"exhaustive,omitempty"`
	Case       string   `json:"case,omitempty"`
	Broken     []string `json:"broken,omitempty"`
	Schedule   []string `json:"schedule,omitempty"`
	CaseSeed   uint64   `json:"caseSeed,omitempty"`
	Message    string   `json:"message,omitempty"`
	Report     string   `json:"report"`
}

// parseArgs parses and checks the flags; a flag error comes with the
// flag set (for the usage), an input error without.
func parseArgs(args []string) (settings, *flag.FlagSet, error) {
	fs := flag.NewFlagSet("locksim-node", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var s settings
	fs.StringVar(&s.lock, "lock", "", "the lock module: a .cjs, .js or .mjs file exporting setup(env) (required)")
	fs.StringVar(&s.faults, "faults", "pause", "fault kinds, comma-separated (pause, crash, partition, delay, drop, node-crash, clock-jump, clock-drift, ...)")
	fs.IntVar(&s.masters, "masters", 1, "independent masters (env.hosts: m1..mN)")
	fs.IntVar(&s.runs, "runs", 100, "generated runs (seeds --seed, --seed+1, ...)")
	fs.Uint64Var(&s.seed, "seed", 1, "the first run's seed")
	fs.IntVar(&s.exhaustive, "exhaustive", 0, "1 or 2: every placement of one (two) faults instead of generated runs, with the danger map")
	fs.IntVar(&s.valueArg, "value-arg", 0, "which ARGV of the lock's scripts carries its value (default 1)")
	fs.StringVar(&s.caseDir, "case-dir", "", "where the failing case is saved, and replayed from first (default: testdata/locksim/NAME next to the module)")
	fs.StringVar(&s.reportDir, "report-dir", "", "write HTML reports here (the failing case's; exhaustive mode's danger map)")
	fs.StringVar(&s.format, "format", "text", "output format: text (the check's report) or json (locksim.node-check/v1)")
	fs.StringVar(&s.out, "o", "", "write the output to this file instead of stdout")
	if err := fs.Parse(args); err != nil {
		return s, fs, err
	}
	runsGiven := false
	fs.Visit(func(f *flag.Flag) { runsGiven = runsGiven || f.Name == "runs" })
	if runsGiven && s.exhaustive != 0 {
		// Exhaustive mode runs every placement, a count of its own: a
		// --runs it ignored would read as a campaign of that size.
		return s, nil, errors.Errorf("--runs %d with --exhaustive %d: exhaustive mode runs every placement of its faults, not generated runs; drop --runs", s.runs, s.exhaustive)
	}
	return s, nil, s.validate(fs.Args())
}

func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "usage: go run ./cmd/locksim-node --lock FILE [--faults K,...] [--masters N] [--runs N] [--seed S] [--exhaustive 1|2] [--value-arg N] [--case-dir DIR] [--report-dir DIR] [--format text|json] [-o FILE]\n\n")
	fmt.Fprintf(w, "Checks a Node.js lock module (a .cjs, .js or .mjs file exporting setup(env); docs/node.md) under simulated faults.\nExit codes: 0 nothing broke, 1 a violation was found, 2 usage or input error, or no verdict.\n\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func run(args []string, stdout, stderr io.Writer) int {
	s, fs, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		usage(fs, stdout)
		return exitHeld
	}
	if err != nil {
		fmt.Fprintf(stderr, "locksim-node: %v\n", err)
		if fs != nil {
			usage(fs, stderr)
		}
		return exitNoVerdict
	}
	if err := node.CheckVersion(); err != nil {
		fmt.Fprintf(stderr, "locksim-node: %v\n", err)
		return exitNoVerdict
	}
	pkg, err := goList()
	if err != nil {
		fmt.Fprintf(stderr, "locksim-node: %v\n", err)
		return exitNoVerdict
	}
	sum := s.check(pkg)
	var out bytes.Buffer
	if s.format == "json" {
		b, _ := json.MarshalIndent(sum, "", "  ")
		out.Write(append(b, '\n'))
	} else {
		out.WriteString(sum.Report)
		if !strings.HasSuffix(sum.Report, "\n") && sum.Report != "" {
			out.WriteString("\n")
		}
		fmt.Fprintf(&out, "locksim-node: %s: %s (exit %d)\n", filepath.Base(sum.Lock), sum.line(), sum.Exit)
	}
	if s.out != "" {
		if err := os.WriteFile(s.out, out.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "locksim-node: %v\n", err)
			return exitNoVerdict
		}
	} else {
		stdout.Write(out.Bytes())
	}
	if sum.Exit == exitNoVerdict && s.out != "" {
		fmt.Fprintf(stderr, "locksim-node: no verdict: %s\n", sum.Message)
	}
	return sum.Exit
}

func (s summary) line() string {
	switch s.Verdict {
	case "held":
		return "nothing broke"
	case "broken":
		return "broke " + strings.Join(s.Broken, ", ") + "; the case: " + s.Case
	}
	return "no verdict: " + s.Message
}

func (s *settings) validate(rest []string) error {
	if len(rest) > 0 {
		return errors.Errorf("unexpected arguments %q: the module is given with --lock FILE", rest)
	}
	if s.lock == "" {
		return errors.New("--lock FILE is required: the lock module to check (docs/node.md)")
	}
	abs, err := filepath.Abs(s.lock)
	if err != nil {
		return err
	}
	s.lock = abs
	st, err := os.Stat(abs)
	if err != nil {
		return errors.Errorf("--lock: %v", err)
	}
	if st.IsDir() {
		return errors.Errorf("--lock %s is a directory: give the module file", abs)
	}
	switch filepath.Ext(abs) {
	case ".cjs", ".js", ".mjs":
	default:
		return errors.Errorf("--lock %s: want a .cjs, .js or .mjs module exporting setup(env)", abs)
	}
	for _, k := range strings.Split(s.faults, ",") {
		k = strings.TrimSpace(k)
		if _, ok := sim.FaultKindOf(sim.FaultKind(k)); !ok {
			return errors.Errorf("--faults: unknown fault kind %q (locksim faults lists them)", k)
		}
	}
	switch {
	case s.masters < 1 || s.masters > 9:
		return errors.Errorf("--masters %d: want 1 to 9", s.masters)
	case s.runs < 1 || s.runs > 1_000_000:
		return errors.Errorf("--runs %d: want 1 to 1000000", s.runs)
	case s.seed < 1 || s.seed > 1<<62:
		return errors.Errorf("--seed %d: want 1 to 2^62", s.seed)
	case s.exhaustive < 0 || s.exhaustive > 2:
		return errors.Errorf("--exhaustive %d: want 1 or 2 (0: generated runs)", s.exhaustive)
	case s.valueArg < 0 || s.valueArg > 16:
		return errors.Errorf("--value-arg %d: want 1 to 16", s.valueArg)
	case s.format != "text" && s.format != "json":
		return errors.Errorf("--format %q: want text or json", s.format)
	}
	name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	if s.caseDir == "" {
		s.caseDir = filepath.Join(filepath.Dir(abs), "testdata", "locksim", name)
	}
	for _, d := range []*string{&s.caseDir, &s.reportDir} {
		if *d != "" {
			if *d, err = filepath.Abs(*d); err != nil {
				return err
			}
		}
	}
	if s.out != "" {
		if s.out, err = filepath.Abs(s.out); err != nil {
			return err
		}
	}
	return nil
}

// goList finds locksim/realclient/node from the working directory's
// module.
func goList() (string, error) {
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", "locksim/realclient/node")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return "", errors.Errorf("go list locksim/realclient/node: %v: %s (run from locksim's realclient directory, or a module that requires locksim/realclient)", err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// check runs TestNodeUserCheck and reads its outcome: passed is held; failed with the case saved is broken; anything else
// is no verdict.
func (s settings) check(pkg string) summary {
	sum := summary{Schema: "locksim.node-check/v1", Lock: s.lock, Masters: s.masters, Exhaustive: s.exhaustive}
	for _, k := range strings.Split(s.faults, ",") {
		sum.Faults = append(sum.Faults, strings.TrimSpace(k))
	}
	if s.exhaustive == 0 {
		sum.Runs, sum.Seed = s.runs, s.seed
	}
	casePath := filepath.Join(s.caseDir, locksim.CaseName(testName)+".json")
	cmd := exec.Command("go", "test", "-count=1", "-json", "-timeout", "60m", "-run", "^"+testName+"$", pkg)
	cmd.Dir = pkg
	cmd.Env = append(os.Environ(),
		"NODE_LOCK="+s.lock,
		"NODE_FAULTS="+strings.Join(sum.Faults, ","),
		"NODE_MASTERS="+strconv.Itoa(s.masters),
		"NODE_RUNS="+strconv.Itoa(s.runs),
		"NODE_SEED="+strconv.FormatUint(s.seed, 10),
		"NODE_EXHAUSTIVE="+strconv.Itoa(s.exhaustive),
		"NODE_VALUE_ARG="+strconv.Itoa(s.valueArg),
		"NODE_CASE_DIR="+s.caseDir,
		"LOCKSIM_REPORT_DIR="+s.reportDir,
	)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, runErr := cmd.Output()
	var report, build strings.Builder
	action := ""
	for _, line := range strings.Split(string(stdout), "\n") {
		var ev struct{ Action, Test, Output string }
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		switch {
		case ev.Action == "build-output":
			build.WriteString(ev.Output)
		case ev.Test == testName && ev.Action == "output":
			o := ev.Output
			if strings.HasPrefix(o, "=== ") || strings.HasPrefix(o, "--- ") {
				continue
			}
			// go test's indentation and file:line prefixes go.
			o = logPrefix.ReplaceAllString(strings.TrimPrefix(o, "    "), "")
			report.WriteString(strings.ReplaceAll(o, "replay: go test -run '^TestNodeUserCheck$' (Check replays the saved case first)",
				"replay: the same command (it replays the saved case first)"))
		case ev.Test == testName && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip"):
			action = ev.Action
		}
	}
	sum.Report = report.String()
	switch action {
	case "pass":
		sum.Verdict, sum.Exit = "held", exitHeld
		return sum
	case "fail":
		// The harness's last word on a violation is "realclient: NAME
		// broke INVARIANTS", with the case saved (or the saved case
		// replayed first, still failing); a refusal or an error is not.
		c, err := locksim.LoadCase(casePath)
		if err == nil && len(c.Broken) > 0 && brokeLine.MatchString(sum.Report) {
			sum.Verdict, sum.Exit, sum.Case, sum.CaseSeed = "broken", exitBroken, casePath, c.Seed
			for _, id := range c.Broken {
				sum.Broken = append(sum.Broken, string(id))
			}
			for _, l := range strings.Split(strings.TrimSpace(faultList(c)), "\n") {
				if l = strings.TrimSpace(l); l != "" {
					sum.Schedule = append(sum.Schedule, l)
				}
			}
			return sum
		}
		sum.Message = lastLine(sum.Report)
	case "skip":
		sum.Message = "the check was skipped: " + lastLine(sum.Report)
	default:
		msg := strings.TrimSpace(build.String() + errb.String())
		if msg == "" && runErr != nil {
			msg = runErr.Error()
		}
		sum.Message = "go test did not run the check: " + lastLine(msg)
		if sum.Report == "" {
			sum.Report = msg
		}
	}
	sum.Verdict, sum.Exit = "no-verdict", exitNoVerdict
	return sum
}

var logPrefix = regexp.MustCompile(`^\w+_test\.go:\d+: `)

var brokeLine = regexp.MustCompile(`(?m)realclient: \S+ broke \S`)

func faultList(c locksim.Case) string { return report.FaultList(c.Spec.Faults) }

func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(ls[len(ls)-1])
}
