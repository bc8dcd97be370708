package main

import (
	"io"
	"runtime"

	"locksim/engine"
	"locksim/model"
	"locksim/report"
)

func cmdMatrix(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("matrix", "matrix [--seeds N] [--format text|markdown|html] [-o FILE]", stdout)
	seeds := fs.Int("seeds", 3, "seeds per cell")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers (the output does not depend on it)")
	format := fs.String("format", "text", "text, markdown or html")
	details := fs.Bool("details", false, "text: list each broken cell's first violation after the table")
	out := fs.String("o", "", "write to this file instead of stdout")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	if *seeds < 1 || *workers < 1 {
		return exitUsage, usagef("--seeds and --workers must be at least 1")
	}
	m, err := engine.Matrix(engine.MatrixConfig{Seeds: *seeds, Workers: *workers})
	if m != nil {
		m.Brief = !*details
	}
	if err != nil {
		return exitUsage, err
	}
	w, done, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	switch *format {
	case "text":
		err = report.MatrixText(w, m)
	case "markdown", "md":
		err = report.MatrixMarkdown(w, m)
	case "html":
		err = report.MatrixHTML(w, m)
	default:
		return exitUsage, usagef("unknown --format %q (want text, markdown or html)", *format)
	}
	if err != nil {
		return exitUsage, err
	}
	return exitSafe, done()
}

func cmdSweep(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("sweep", "sweep [--param pause|delay|drift] [--design ID] [--seeds N] [--format text|svg] [-o FILE]", stdout)
	param := fs.String("param", "pause", "what to sweep: pause, delay or drift")
	design := fs.String("design", "", "design (default set-px-lua; redlock for drift)")
	seeds := fs.Int("seeds", 2, "seeds per cell")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers (the output does not depend on it)")
	format := fs.String("format", "text", "text or svg")
	out := fs.String("o", "", "write to this file instead of stdout")
	progress := fs.Bool("progress", isTerminal(stderr), "show progress on stderr (default on a terminal)")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if _, ok := engine.SweepParams[*param]; !ok {
		return exitUsage, usagef("unknown --param %q (want pause, delay or drift)", *param)
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	if *seeds < 1 || *workers < 1 {
		return exitUsage, usagef("--seeds and --workers must be at least 1")
	}
	if *param == "drift" && *design != "" && *design != model.Redlock {
		return exitUsage, usagef("--param drift varies redlock's drift factor; --design must be redlock")
	}
	d := *design
	if d == "" {
		d = model.SetPxLua
		if *param == "drift" {
			d = model.Redlock
		}
	}
	if _, err := model.LookupDesign(d); err != nil {
		return exitUsage, usagef("%v", err)
	}
	onCell, endProgress := startProgress(*progress, stderr, "cells", 0)
	sw := engine.Sweep(engine.SweepConfig{Param: *param, Design: model.Spec{Design: d}, Seeds: *seeds, Workers: *workers, Progress: onCell})
	endProgress()
	w, done, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	switch *format {
	case "text":
		err = report.SweepText(w, sw)
	case "svg":
		err = report.SweepSVG(w, sw)
	default:
		return exitUsage, usagef("unknown --format %q (want text or svg)", *format)
	}
	if err != nil {
		return exitUsage, err
	}
	return exitSafe, done()
}
