package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a wall clock that moves by step each time it is read; safe
// for the engine's feeder goroutine.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func newFakeClock(step time.Duration) *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), step: step}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// useClock makes the CLI read c as its wall clock for the test.
func useClock(t *testing.T, c *fakeClock) {
	old := wallClock
	wallClock = c.Now
	t.Cleanup(func() { wallClock = old })
}

// The bar's output for a 20,000-run check is bounded by the time the check
// takes, not by its runs: the engine calls it once per run (as here), and
// at 2,500 runs/s (measured for set-px-lua on two cores, 8 s in all) it
// draws 33 times on a terminal and twice in a log. The bar it replaced
// wrote a line per run: 1,088,895 bytes for the same check.
func TestProgressBytesFor20000Runs(t *testing.T) {
	const runs = 20000
	for _, tc := range []struct {
		name      string
		tty       bool
		perRun    time.Duration
		draws     int
		separator string
	}{
		{"terminal", true, 400 * time.Microsecond, 32, "\r"},
		{"log", false, 400 * time.Microsecond, 2, "\n"},
		// A fast machine: no time passes, only the final line is drawn.
		{"terminal, instant", true, 0, 1, "\r"},
		// A slow design (10 ms a run, 200 s in all): still four a second.
		{"terminal, slow", true, 10 * time.Millisecond, 800, "\r"},
		{"log, slow", false, 10 * time.Millisecond, 40, "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock(0)
			var buf bytes.Buffer
			p := newProgressBar(&buf, clk.Now, tc.tty, "runs", 0)
			clk.step = tc.perRun // the engine reads the clock once per run, through the bar
			for i := 1; i <= runs; i++ {
				p.update(i, runs)
			}
			p.done()
			out := buf.String()
			if n := strings.Count(out, tc.separator); n != tc.draws {
				t.Errorf("%d drawings, want %d", n, tc.draws)
			}
			// A line is at most 80 bytes (72 for the counts, rate and time
			// left of a 20,000-run check, with its \r and padding).
			if max := tc.draws*80 + 1; len(out) > max {
				t.Errorf("%d bytes of progress for %d runs, want at most %d", len(out), runs, max)
			}
			last := out[strings.LastIndex(strings.TrimRight(out, "\n"), tc.separator)+1:]
			if !strings.Contains(last, "20000/20000 runs") {
				t.Errorf("the last drawing is %q, want the final count", last)
			}
			t.Logf("%d bytes, %d drawings", len(out), strings.Count(out, tc.separator))
		})
	}
}

// The time left is the runs left at the rate so far, or what is left of a
// time budget, whichever comes first.
func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		name          string
		budget        time.Duration
		done, planned int
		elapsed       time.Duration
		want          string
	}{
		{"runs", 0, 10000, 20000, 4 * time.Second, "[###############               ] 10000/20000 runs, 2500 runs/s, 4s left"},
		{"runs, long", 0, 1000, 1000000, 10 * time.Second, "[                              ] 1000/1000000 runs, 100 runs/s, 2h46m30s left"},
		{"finished", 0, 20000, 20000, 8 * time.Second, "[##############################] 20000/20000 runs, 2500 runs/s"},
		{"budget", 10 * time.Minute, 150000, 0, time.Minute, "[###                           ] 150000 runs, 2500 runs/s, 9m0s left"},
		{"budget before runs", time.Minute, 10, 1000, 30 * time.Second, "[###############               ] 10/1000 runs, 0 runs/s, 30s left"},
		{"runs before budget", time.Hour, 500, 1000, 5 * time.Second, "[###############               ] 500/1000 runs, 100 runs/s, 5s left"},
		{"cells", 0, 12, 24, 3 * time.Second, "[###############               ] 12/24 cells, 4 cells/s, 3s left"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unit := "runs"
			if tc.name == "cells" {
				unit = "cells"
			}
			p := newProgressBar(&bytes.Buffer{}, newFakeClock(0).Now, true, unit, tc.budget)
			if got := p.line(tc.done, tc.planned, tc.elapsed); got != tc.want {
				t.Errorf("line = %q\n   want %q", got, tc.want)
			}
		})
	}
}

// check --progress through the command: one line at the end for a short
// check, never a line per run, and nothing on stdout.
func TestCheckProgressThroughTheCLI(t *testing.T) {
	useClock(t, newFakeClock(time.Millisecond)) // 300 runs: 0.3 s of fake time
	code, out, errs := runCLI("check", "--design", "set-px-lua", "--runs", "300", "--progress", "--save", t.TempDir()+"/c.json")
	if code != exitViolation {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "runs/s") {
		t.Errorf("progress went to stdout:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	var bar []string
	for _, l := range lines {
		if strings.Contains(l, "runs/s") {
			bar = append(bar, l)
		}
	}
	if len(bar) != 1 || !strings.Contains(bar[0], "300/300 runs") {
		t.Errorf("progress lines %q, want one final line", bar)
	}
}

// The whole path, on a terminal: check --runs 20000 --progress writes a
// few kilobytes (the fake clock moves 400us per reading, as the bar reads
// it once per run: 8 s in all, as measured for set-px-lua on two cores),
// where the bar it replaced wrote 1,088,895 bytes, a redraw per run.
func TestCheckProgressBytesFor20000Runs(t *testing.T) {
	useClock(t, newFakeClock(400*time.Microsecond))
	old := terminal
	terminal = func(io.Writer) bool { return true }
	t.Cleanup(func() { terminal = old })
	// The cheapest runs there are (two clients, one cycle, one fault kind).
	code, _, errs := runCLI("check", "--design", "setnx-expire", "--runs", "20000", "--clients", "2", "--cycles", "1",
		"--swarm=false", "--faults", "evict", "--progress", "--save", t.TempDir()+"/c.json")
	if code != exitViolation {
		t.Fatalf("exit %d: %s", code, errs)
	}
	bar, rest, _ := strings.Cut(errs, "\n")
	if n := strings.Count(bar, "\r"); n != 32 || len(bar) > 32*80 {
		t.Errorf("%d bytes in %d drawings for 20000 runs, want 32 drawings of at most 80 bytes", len(bar), n)
	}
	if !strings.HasSuffix(strings.TrimRight(bar, " "), "20000/20000 runs, 2500 runs/s") || strings.Contains(rest, "runs/s") {
		t.Errorf("the bar does not end on the final count in one line:\n%q", errs)
	}
	t.Logf("%d bytes of progress", len(bar)+1)
}

// sweep --progress draws the same bar over the grid's cells.
func TestSweepProgress(t *testing.T) {
	useClock(t, newFakeClock(time.Millisecond))
	code, _, errs := runCLI("sweep", "--param", "pause", "--seeds", "1", "--progress")
	if code != exitSafe {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "400/400 cells") {
		t.Errorf("sweep progress %q, want one final line over the 400 cells of the default 20x20 grid", errs)
	}
	if code, _, errs := runCLI("sweep", "--param", "pause", "--seeds", "1", "--progress=false"); code != exitSafe || errs != "" {
		t.Errorf("sweep --progress=false wrote %q", errs)
	}
}
