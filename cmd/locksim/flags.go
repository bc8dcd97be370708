package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"locksim/model"
	"locksim/report"
)

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: locksim %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags; --help returns done with exit code 0.
func parse(fs *flag.FlagSet, args []string) (done bool, code int, err error) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return true, exitSafe, nil
		}
		return true, exitUsage, usagef("%v", err)
	}
	return false, 0, nil
}

// output opens -o FILE or returns stdout.
func output(path string, stdout io.Writer) (io.Writer, func() error, error) {
	if path == "" || path == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, usagef("cannot write %s: %v", path, err)
	}
	return f, f.Close, nil
}

// render writes one result in the chosen format.
func render(w io.Writer, format string, r *model.Result, meta report.Meta) error {
	switch format {
	case "text", "":
		return report.Text(w, r, report.TextOptions{Meta: meta})
	case "json":
		return report.JSON(w, r, meta)
	case "html":
		return report.HTML(w, r, meta)
	default:
		return usagef("unknown --format %q (want text, json or html)", format)
	}
}

// exitFor maps a result to the exit code.
func exitFor(r *model.Result) int {
	if len(r.Violations) > 0 {
		return exitViolation
	}
	return exitSafe
}

// parseShard parses "i/n" (0 <= i < n).
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usagef("--shard %q: want i/n with 0 <= i < n, e.g. 0/2", s)
	}
	return i, n, nil
}
