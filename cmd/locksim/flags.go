package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/internal/atomicfile"
	"locksim/internal/bounded"
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

// parse parses args, flags before or after the positional arguments (both
// `run gc-pause --seed 2` and `run --seed 2 gc-pause`); done reports that the
// command should return code, err.
func (fs *flags) parse(args []string) (done bool, code int, err error) {
	args, err = fs.reorder(args)
	if err != nil {
		return true, exitUsage, err
	}
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

// reorder moves flags (with their values) in front of the positional
// arguments. Whether a flag takes a value is asked of the flag itself, so
// new boolean flags need no list. A value-taking flag that comes last is
// an error here, or it would swallow a positional argument.
func (fs *flags) reorder(args []string) ([]string, error) {
	var front, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		front = append(front, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") || fs.isBool(name) {
			continue
		}
		if i+1 >= len(args) {
			return nil, usagef("flag %s needs a value", a)
		}
		front = append(front, args[i+1])
		i++
	}
	return append(front, pos...), nil
}

// isBool reports whether the flag is a boolean (or unknown, or -h: Parse
// reports those).
func (fs *flags) isBool(name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return true
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// output opens -o FILE or returns stdout.
func output(path string, stdout io.Writer) (io.Writer, func(error) error, error) {
	if path == "" || path == "-" {
		return stdout, func(err error) error { return err }, nil
	}
	// Like --save, -o creates the directories it names. The file appears
	// whole or not at all: written to a temporary file next to it, renamed
	// over it once complete (an error or an interrupt keeps the old one).
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, nil, usagef("cannot write %s: %s", bounded.Clip(path), bounded.Clip(err.Error()))
	}
	return f, func(err error) error {
		if err != nil {
			f.Abort()
			return err
		}
		if err := f.Commit(); err != nil {
			return usagef("cannot write %s: %s", bounded.Clip(path), bounded.Clip(err.Error()))
		}
		return nil
	}, nil
}

// sameFile reports whether paths a and b name one file: the same path
// once made absolute, or, when both exist, the same file (a link).
func sameFile(a, b string) bool {
	if a == "" || a == "-" || b == "" || b == "-" {
		return false
	}
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == ab {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// namedPath is a file a command reads or writes, with the flag or
// argument that names it.
type namedPath struct{ what, path string }

// distinctOutputs refuses outputs that would overwrite an input or each
// other (the summary over the case it names, a merge over a shard): exit
// 2 before anything runs.
func distinctOutputs(outs []namedPath, ins ...namedPath) error {
	for i, o := range outs {
		for _, other := range append(append([]namedPath{}, outs[:i]...), ins...) {
			if sameFile(o.path, other.path) {
				return usagef("%s %s is also %s: an output never overwrites an input or another output; give another file", o.what, o.path, other.what)
			}
		}
	}
	return nil
}

// render writes one result in the chosen format.
func render(w io.Writer, format string, r *model.Result, meta report.Meta) error {
	return renderOpts(w, format, r, meta, false)
}

// renderOpts is render; details lists every verdict with its reason in
// the text report.
func renderOpts(w io.Writer, format string, r *model.Result, meta report.Meta, details bool) error {
	if format == "" {
		format = "text"
	}
	if err := checkFormat("run", format); err != nil {
		return err
	}
	switch format {
	case "json":
		return report.JSON(w, r, meta)
	case "html":
		return report.HTML(w, r, meta)
	case "markdown":
		return report.Markdown(w, r, meta)
	}
	return report.Text(w, r, report.TextOptions{Meta: meta, Wrap: wrapWidth(w), Details: details})
}

// writeReport renders one result to -o FILE or stdout.
func writeReport(path, format string, r *model.Result, meta report.Meta, stdout io.Writer) error {
	return writeReportOpts(path, format, r, meta, stdout, false)
}

// writeReportOpts is writeReport; details as renderOpts.
func writeReportOpts(path, format string, r *model.Result, meta report.Meta, stdout io.Writer, details bool) error {
	w, done, err := output(path, stdout)
	if err != nil {
		return err
	}
	return done(renderOpts(w, format, r, meta, details))
}

// exitFor maps a result to the exit code.
//
// A vacuous run (no client acquired, nothing broke) exits 2: it is no
// verdict, neither held nor broken.
func exitFor(r *model.Result) int {
	switch {
	case len(r.Failures()) > 0:
		return exitViolation
	case r.Vacuous():
		return exitUsage
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
		return 0, 0, usagef("--shard %s: want i/n with 0 <= i < n, e.g. 0/2", bounded.Q(s))
	}
	return i, n, nil
}

// checkWritable refuses, before anything runs, an output that cannot be
// written: a directory given as a file, a parent that is a file, or a
// directory (the nearest one that exists: the output creates the rest)
// this process cannot create a file in. The campaign's work is never
// lost to an output found unwritable at its end.
func checkWritable(outs ...namedPath) error {
	for _, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		if st, err := os.Stat(o.path); err == nil && st.IsDir() {
			return usagef("%s %s is a directory; give a file", o.what, o.path)
		}
		if err := writableDir(filepath.Dir(o.path)); err != nil {
			return usagef("%s %s cannot be written: %v; give a path this process can write (checked before anything runs)", o.what, o.path, err)
		}
	}
	return nil
}

// writableDir checks that files can be created in dir, or in the nearest
// directory above it that exists (where the output would create dir), by
// creating and removing a probe file of this process's own.
func writableDir(dir string) error {
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return errors.Errorf("%s is not a directory", dir)
			}
			break
		}
		if !os.IsNotExist(err) {
			return err
		}
		up := filepath.Dir(dir)
		if up == dir {
			return err
		}
		dir = up
	}
	f, err := os.CreateTemp(dir, ".locksim-probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// plural is n with word, pluralised.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
