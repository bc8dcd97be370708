package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// wallClock is the wall clock the CLI hands the engine (CheckConfig.Now,
// for --for) and the progress bar; no run ever sees it. Tests replace it
// with a fake clock.
var wallClock = time.Now

// terminal reports whether progress goes to a terminal (isTerminal); tests
// replace it to draw the terminal bar into a buffer.
var terminal = isTerminal

// progressBar shows a campaign's progress on stderr: on a terminal one line
// redrawn at most four times a second, elsewhere (--progress into a file or
// a CI log) a line every five seconds, each with the work done, the rate
// and the time left. It is driven by the engine's Progress hook, once per
// run, but draws by the clock, never once per run: its output is bounded by
// the time a campaign takes, not by its run count.
type progressBar struct {
	w   io.Writer
	now func() time.Time
	// tty redraws one line in place; otherwise each update is a new line.
	tty bool
	// unit names what is counted ("runs", "cells").
	unit string
	// budget is the campaign's time budget (--for), 0 for none: the bar
	// then fills with the time spent and counts down what is left of it.
	budget      time.Duration
	start, last time.Time
	drawn       bool
	// width is the length of the line drawn last on a terminal, so a
	// shorter line covers it.
	width int
}

func newProgressBar(w io.Writer, now func() time.Time, tty bool, unit string, budget time.Duration) *progressBar {
	t := now()
	return &progressBar{w: w, now: now, tty: tty, unit: unit, budget: budget, start: t, last: t}
}

// startProgress returns a Progress hook for the engine and the function
// that ends the bar; both are nil when on is false.
func startProgress(on bool, stderr io.Writer, unit string, budget time.Duration) (func(done, planned int), func()) {
	if !on {
		return nil, func() {}
	}
	p := newProgressBar(stderr, wallClock, terminal(stderr), unit, budget)
	return p.update, p.done
}

// interval is how often the bar may be redrawn.
func (p *progressBar) interval() time.Duration {
	if p.tty {
		return 250 * time.Millisecond
	}
	return 5 * time.Second
}

// update records that done of planned are finished (planned 0: only the
// time budget bounds them). It draws when the interval has passed since
// the last drawing, and once more when the last one is done.
func (p *progressBar) update(done, planned int) {
	t := p.now()
	if t.Sub(p.last) < p.interval() && (planned == 0 || done < planned) {
		return
	}
	p.last = t
	line := p.line(done, planned, t.Sub(p.start))
	if p.tty {
		pad := max(p.width-len(line), 0)
		fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
		p.width = len(line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.drawn = true
}

// line is what the bar shows after el of wall time.
func (p *progressBar) line(done, planned int, el time.Duration) string {
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	// How full the bar is, and how long is left: by the runs planned, by
	// the budget spent, whichever says more.
	frac, left, known := 0.0, time.Duration(0), false
	if planned > 0 {
		frac = float64(done) / float64(planned)
		if rate > 0 {
			left, known = time.Duration(float64(planned-done)/rate*float64(time.Second)), true
		}
	}
	if p.budget > 0 {
		frac = max(frac, min(float64(el)/float64(p.budget), 1))
		if b := max(p.budget-el, 0); !known || b < left {
			left, known = b, true
		}
	}
	count := fmt.Sprintf("%d %s", done, p.unit)
	if planned > 0 {
		count = fmt.Sprintf("%d/%d %s", done, planned, p.unit)
	}
	s := fmt.Sprintf("%s, %.0f %s/s", count, rate, p.unit)
	if planned > 0 || p.budget > 0 {
		const width = 30
		n := min(int(frac*width), width)
		s = "[" + strings.Repeat("#", n) + strings.Repeat(" ", width-n) + "] " + s
	}
	if known && (planned == 0 || done < planned) {
		s += ", " + left.Round(time.Second).String() + " left"
	}
	return s
}

// done ends the bar's line on a terminal.
func (p *progressBar) done() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
}
