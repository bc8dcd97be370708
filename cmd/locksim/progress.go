package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressBar shows a check's progress on stderr: on a terminal one line
// redrawn at most four times a second, elsewhere a line every five seconds,
// each with the runs done, runs per second and the time left. It never
// writes once per run, so its output stays small however many runs.
type progressBar struct {
	w           io.Writer
	now         func() time.Time
	start, last time.Time
	tty, drawn  bool
}

func newProgressBar(w io.Writer, now func() time.Time) *progressBar {
	t := now()
	return &progressBar{w: w, now: now, start: t, last: t, tty: isTerminal(w)}
}

// interval is how often the bar may be redrawn.
func (p *progressBar) interval() time.Duration {
	if p.tty {
		return 250 * time.Millisecond
	}
	return 5 * time.Second
}

func (p *progressBar) update(done, planned int) {
	t := p.now()
	if t.Sub(p.last) < p.interval() && (planned == 0 || done < planned) {
		return
	}
	p.last = t
	el := t.Sub(p.start)
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	line := fmt.Sprintf("%d runs, %.0f runs/s", done, rate)
	if planned > 0 {
		const width = 30
		n := done * width / planned
		line = fmt.Sprintf("[%s%s] %d/%d, %.0f runs/s", strings.Repeat("#", n), strings.Repeat(" ", width-n), done, planned, rate)
		if rate > 0 && done < planned {
			line += ", " + (time.Duration(float64(planned-done)/rate) * time.Second / time.Second).Round(time.Second).String() + " left"
		}
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r%-70s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.drawn = true
}

// done ends the bar's line on a terminal.
func (p *progressBar) done() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
}
