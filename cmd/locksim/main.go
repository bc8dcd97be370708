// Command locksim runs lock designs against simulated Redis under injected
// faults and shows where leases break. See `locksim help`.
package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/verdict"
)

// Exit codes.
const (
	exitSafe      = verdict.ExitHeld      // nothing broke
	exitViolation = verdict.ExitBroken    // a violation was found
	exitUsage     = verdict.ExitNoVerdict // usage or input error, or no verdict
	// exitInterrupted: SIGINT, SIGTERM or SIGHUP stopped the command
	// (128 + SIGINT, as a shell reports it): no verdict; a campaign prints
	// a partial summary marked PARTIAL (interrupt.go).
	exitInterrupted = verdict.ExitInterrupted
)

// usageError is bad input: printed with a hint, exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

const overview = `locksim: where does this Redis lease break, and does fencing save the data?

Usage:
  locksim list                         designs, scenarios, faults, invariants, fencing rules, one line each
  locksim run SCENARIO [flags]         tell one named scenario as a timeline
  locksim check --design ID [flags]    a design under thousands of random fault schedules,
                                       or --exhaustive: every fault at every point
  locksim matrix [flags]               every design against every scenario
  locksim sweep [flags]                where leases break, over two parameters
  locksim replay FILE [flags]          run a saved case again, byte for byte
  locksim merge SHARD.json...          one summary from a sharded check's JSON files
  locksim risk --design ID [flags]     how likely a violation is per acquisition under a fault
                                       profile, with 95% intervals (docs/risk.md)
  locksim advise --design ID --target P  the settings (TTL, renewal, masters) that keep it under P
  locksim check-log FILE...            judge lock logs recorded in production (docs/check-log.md)
  locksim help scenarios               the scenario file format and the event kinds
  locksim lab (-o DIR | --serve)       the simulator in the browser (WebAssembly), with lessons
  locksim serve --client NAME=CMD...   a real RESP endpoint in real time for clients in any language;
                                       NOT deterministic: k of n runs broke (docs/serve.md)
  locksim version                      the version and the file formats it reads

Run 'locksim COMMAND --help' for a command's flags.
Exit codes: 0 nothing broke, 1 a violation was found, 2 usage or input error, a run
that stopped with an error, or no verdict (nothing was judged); 130 interrupted
(SIGINT, SIGTERM or SIGHUP: a campaign prints a partial summary marked PARTIAL).
`

func main() {
	paceGC()
	checkPacing = true // a check on two workers or more paces its own way (gc.go)
	if stdoutWasClosed() {
		fmt.Fprintln(os.Stderr, "locksim: stdout is closed, so the output would be lost; give it a file, or >/dev/null to discard it")
		os.Exit(exitUsage)
	}
	exitOnSignal(os.Stderr)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command runs one subcommand with its arguments.
type command func(args []string, stdout, stderr io.Writer) (int, error)

// commands are the subcommands by name.
func commands() map[string]command {
	return map[string]command{
		"list": cmdList, "run": cmdRun, "check": cmdCheck,
		"matrix": cmdMatrix, "sweep": cmdSweep, "replay": cmdReplay,
		"merge": cmdMerge, "help": cmdHelp, "version": cmdVersion, "risk": cmdRisk, "advise": cmdAdvise,
		"check-log": cmdCheckLog, "lab": cmdLab, "serve": cmdServe,
	}
}

// commandNames lists the subcommands, sorted.
func commandNames() []string {
	return slices.Sorted(maps.Keys(commands()))
}

// run is main without the process: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, overview)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help":
		fmt.Fprint(stdout, overview)
		return exitSafe
	case "--version", "-version", "-v":
		args = append([]string{"version"}, args[1:]...)
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "locksim: unknown command %s\n\n%s", bounded.Q(args[0]), overview)
		return exitUsage
	}
	out := &checkedWriter{w: stdout}
	code, err := cmd(args[1:], out, stderr)
	if out.err != nil {
		// Output that did not arrive is no result (stdout closed, a full
		// disk): say so, exit 2, whatever the command found.
		if err != nil {
			fmt.Fprintf(stderr, "locksim %s: %s\n", args[0], err)
		}
		fmt.Fprintf(stderr, "locksim %s: writing to stdout: %v\n", args[0], out.err)
		return exitUsage
	}
	if err != nil {
		var ue *usageError
		msg := clipArgs(err.Error(), args[1:])
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "locksim %s: %s\nRun 'locksim %s --help' for usage.\n", args[0], msg, args[0])
		} else {
			fmt.Fprintf(stderr, "locksim %s: %s\n", args[0], msg)
		}
		return exitUsage
	}
	return code
}

// clipArgs bounds what an error message quotes of the command line: an
// argument (or a flag's value after "=") longer than twice bounded.MaxQuote
// that the message holds whole, as an os error holds a path, is cut to
// its first bytes and how many more (issue 38: a message quotes a bounded
// prefix of any value). The commands quote values through bounded.Q
// themselves; this keeps any message they build from an argument bounded.
func clipArgs(msg string, args []string) string {
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		if len(a) > 2*bounded.MaxQuote && strings.Contains(msg, a) {
			msg = strings.ReplaceAll(msg, a, bounded.Clip(a))
		}
	}
	return msg
}

// checkedWriter is stdout, remembering the first error writing to it.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}
