package main

import (
	"fmt"
	"io"
	"os"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/report"
	"locksim/verdict"
)

// summaryOut is where a check's result goes: -o FILE or stdout, in
// --format, with the minimal case saved to --save. check and merge share
// it, so a merge prints exactly what the unsharded check prints.
type summaryOut struct {
	cmd, format, path, save string
	config                  engine.CheckConfig // for the HTML page's "what ran"
	w                       io.Writer
	close                   func(error) error
	jw                      *engine.JSONWriter
}

// openSummary opens the output; for JSON it starts the document with the
// campaign c (its runs then stream through each).
func openSummary(cmd, format, path, save string, stdout io.Writer, c engine.CheckConfig) (*summaryOut, error) {
	w, closeOut, err := output(path, stdout)
	if err != nil {
		return nil, err
	}
	s := &summaryOut{cmd: cmd, format: format, path: path, save: save, config: c, w: w, close: closeOut}
	if format == "json" {
		s.jw = engine.NewJSONWriter(w, c)
	}
	return s, nil
}

// each is the CheckConfig.Each that streams runs into JSON; nil otherwise.
func (s *summaryOut) each() func(engine.RunOutcome) {
	if s.jw == nil {
		return nil
	}
	return s.jw.Run
}

// abort drops the output after a failure to produce a result: a file
// given with -o keeps its previous contents.
func (s *summaryOut) abort() { s.close(errAborted) }

var errAborted = errors.New("aborted")

// finish saves the minimal case, writes the summary and returns the exit
// code: 2 for a run that stopped with an error or a check with no verdict
// (no run made, or no client acquired in any run), 1 for a violation,
// else 0.
func (s *summaryOut) finish(res *engine.CheckResult, stdout, stderr io.Writer) (int, error) {
	saved := ""
	var saveErr error
	if res.Minimal != nil {
		if _, err := os.Stat(s.save); err == nil {
			fmt.Fprintf(stderr, "locksim %s: overwriting %s with the new minimal case\n", s.cmd, s.save)
		}
		// A case that cannot be saved (checked up front, but a disk can
		// fill) loses no work: the summary is still written, then the
		// error is reported (exit 2).
		if saveErr = engine.NewCase(res.Minimal).Save(s.save); saveErr == nil {
			saved = s.save
		}
	}
	var err error
	switch {
	case s.jw != nil:
		err = s.jw.Finish(res, saved)
	case s.format == "html":
		err = report.SummaryHTML(s.w, s.config, res, saved)
	case s.format == "markdown" || s.format == "md":
		err = report.SummaryMarkdown(s.w, res, saved)
	default:
		err = report.SummaryText(s.w, res, saved)
	}
	if err = s.close(err); err != nil {
		return exitUsage, err
	}
	if s.path != "" && s.path != "-" {
		fmt.Fprintf(stdout, "design %s: %d runs, %d broke a counted invariant; summary in %s\n", res.Design, res.Runs, res.BrokenRuns, s.path)
	}
	if saveErr != nil {
		return exitUsage, errors.Wrapf(saveErr, "the summary is written, but the minimal case could not be saved to %s", s.save)
	}
	return verdictExit(res.Verdict())
}

// verdictExit is a campaign's exit code and, for a verdict that is no
// evidence (a run that stopped, which makes the counts meaningless;
// nothing judged; interrupted), the error that says why.
func verdictExit(v verdict.Verdict) (int, error) {
	if v.Judged() {
		return v.ExitCode(), nil
	}
	return v.ExitCode(), errors.New(v.String())
}
