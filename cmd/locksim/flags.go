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

// flags is a command's flag set: --help prints the usage on stdout and
// exits 0; a bad flag is one error line on stderr (printed by run) with a
// hint to --help, not the whole usage.
type flags struct {
	*flag.FlagSet
	usage  string
	stdout io.Writer
}

func newFlags(name, usage string, stdout io.Writer) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flags{FlagSet: fs, usage: usage, stdout: stdout}
}

// parse parses args; done reports that the command should return code, err.
func (fs *flags) parse(args []string) (done bool, code int, err error) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprintf(fs.stdout, "Usage: locksim %s\n\nFlags:\n", fs.usage)
			fs.SetOutput(fs.stdout)
			fs.PrintDefaults()
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

// writeReport renders one result to -o FILE or stdout.
func writeReport(path, format string, r *model.Result, meta report.Meta, stdout io.Writer) error {
	w, done, err := output(path, stdout)
	if err != nil {
		return err
	}
	if err := render(w, format, r, meta); err != nil {
		done()
		return err
	}
	return done()
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
