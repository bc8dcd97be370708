package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"locksim/logcheck"
)

// cmdCheckLog judges lock logs recorded in production (docs/check-log.md).
func cmdCheckLog(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("check-log", "check-log FILE... [--skew D] [--host-skew HOST=D,...] [--reorder D] [--fenced] [--possible-exits N] [--format text|markdown|json] [-o FILE]", stdout)
	skew := fs.Duration("skew", 0, "bound on every host's clock offset from true time (each host within ±D); the verdicts hold for every offset within it")
	hostSkew := fs.String("host-skew", "", "per-host bounds overriding --skew, comma-separated: web-1=200ms,web-2=5ms")
	reorder := fs.Duration("reorder", 0, "how far out of time order events may come within one file: they are sorted within this window; an event further back is an error naming its line")
	fenced := fs.Bool("fenced", false, "judge fencing on every key with accepted writes, even where the log shows no rejected write")
	possible := fs.Int("possible-exits", exitSafe, "the exit code when only possible violations were found (default 0: a possible violation is not a finding; 1 makes it fail a build)")
	format := fs.String("format", "text", "output format: text, markdown or json")
	out := fs.String("o", "", "write the report to this file instead of stdout")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() == 0 {
		return exitUsage, usagef("check-log needs at least one log file (docs/check-log.md has the format)")
	}
	if *format != "text" && *format != "markdown" && *format != "json" {
		return exitUsage, usagef("--format %q: give text, markdown or json", *format)
	}
	if *possible != exitSafe && *possible != exitViolation {
		return exitUsage, usagef("--possible-exits %d: give 0 or 1", *possible)
	}
	opt := logcheck.Options{Skew: *skew, Reorder: *reorder, Fenced: *fenced}
	if *skew < 0 || *reorder < 0 {
		return exitUsage, usagef("--skew and --reorder must not be negative")
	}
	if *hostSkew != "" {
		opt.HostSkew = map[string]time.Duration{}
		for _, part := range strings.FieldsFunc(*hostSkew, func(r rune) bool { return r == ',' || r == ' ' }) {
			h, d, ok := strings.Cut(part, "=")
			dur, err := time.ParseDuration(d)
			if !ok || h == "" || err != nil || dur < 0 {
				return exitUsage, usagef("--host-skew %q: give HOST=DURATION pairs, comma-separated (web-1=200ms)", part)
			}
			opt.HostSkew[h] = dur
		}
	}
	var named []namedPath
	var ins []logcheck.Input
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return exitUsage, fmt.Errorf("cannot read %s: %v", name, errors.Unwrap(err))
		}
		defer f.Close()
		ins = append(ins, logcheck.Input{Name: name, R: f})
		named = append(named, namedPath{"a log", name})
	}
	if err := distinctOutputs([]namedPath{{"-o", *out}}, named...); err != nil {
		return exitUsage, err
	}
	res, err := logcheck.Check(ins, opt)
	if err != nil {
		return exitUsage, err
	}
	w, done, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	switch *format {
	case "json":
		err = res.JSON(w)
	case "markdown":
		err = res.Markdown(w)
	default:
		err = res.Text(w)
	}
	if err := done(err); err != nil {
		return exitUsage, err
	}
	switch {
	case res.NothingJudged != "":
		fmt.Fprintf(stderr, "locksim check-log: no verdict: %s\n", res.NothingJudged)
		return exitUsage, nil
	case res.Broken():
		return exitViolation, nil
	case res.PossiblyBroken():
		return *possible, nil
	}
	return exitSafe, nil
}
