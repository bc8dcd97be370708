package risk

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/pkg/errors"
)

// MaxLogBytes bounds a GC log read by the importers.
const MaxLogBytes = 1 << 30

// MaxLogLine bounds one line of a GC log.
const MaxLogLine = 64 << 10

// Pauses is what an importer found in a log: each pause's length, and the
// span of time the log covers.
type Pauses struct {
	Sizes []time.Duration
	Span  time.Duration
	Lines int
}

// gctraceLine matches a Go GODEBUG=gctrace=1 line: "gc 12 @3.456s 2%:
// 0.015+1.2+0.021 ms clock, ...": the first and third clock times are the
// stop-the-world phases (sweep termination, mark termination).
var gctraceLine = regexp.MustCompile(`^gc \d+ @([0-9.]+)s \d+%: ([0-9.]+)\+([0-9.]+)\+([0-9.]+) ms clock`)

// ReadGCTrace reads Go gctrace output (other lines are skipped).
func ReadGCTrace(r io.Reader) (Pauses, error) {
	var ps Pauses
	var last float64
	err := scanLines(r, func(line string) error {
		m := gctraceLine.FindStringSubmatch(line)
		if m == nil {
			return nil
		}
		at, _ := strconv.ParseFloat(m[1], 64)
		last = math.Max(last, at)
		for _, g := range []string{m[2], m[4]} {
			ms, err := strconv.ParseFloat(g, 64)
			if err != nil {
				return errors.Errorf("%q: %v", line, err)
			}
			ps.Sizes = append(ps.Sizes, time.Duration(ms*float64(time.Millisecond)))
		}
		ps.Lines++
		return nil
	})
	ps.Span = time.Duration(last * float64(time.Second))
	return ps, err
}

// jvmPause matches a JVM unified logging (-Xlog:gc) pause line:
// "[12.345s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause)
// 24M->4M(256M) 3.456ms": the uptime decoration and the pause's length.
var jvmPause = regexp.MustCompile(`^\[([0-9.]+)s\].*\bPause\b.* ([0-9.]+)ms\s*$`)

// ReadJVMGC reads a JVM unified GC log (with the uptime decoration).
func ReadJVMGC(r io.Reader) (Pauses, error) {
	var ps Pauses
	var first, last float64 = -1, 0
	err := scanLines(r, func(line string) error {
		m := jvmPause.FindStringSubmatch(line)
		if m == nil {
			return nil
		}
		at, _ := strconv.ParseFloat(m[1], 64)
		ms, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return errors.Errorf("%q: %v", line, err)
		}
		if first < 0 {
			first = at
		}
		last = math.Max(last, at)
		ps.Sizes = append(ps.Sizes, time.Duration(ms*float64(time.Millisecond)))
		ps.Lines++
		return nil
	})
	ps.Span = time.Duration(last * float64(time.Second))
	return ps, err
}

func scanLines(r io.Reader, each func(string) error) error {
	sc := bufio.NewScanner(io.LimitReader(r, MaxLogBytes+1))
	sc.Buffer(make([]byte, 0, 64<<10), MaxLogLine)
	n := 0
	var read int64
	for sc.Scan() {
		n++
		read += int64(len(sc.Bytes())) + 1
		if read > MaxLogBytes {
			return errors.Errorf("the log is larger than the limit of %d bytes", MaxLogBytes)
		}
		if err := each(sc.Text()); err != nil {
			return errors.Wrapf(err, "line %d", n)
		}
	}
	if err := sc.Err(); err != nil {
		return errors.Wrapf(err, "line %d (lines are limited to %d bytes)", n+1, MaxLogLine)
	}
	return nil
}

// Arrivals turns the pauses found into a profile's pauses: the rate per
// process-hour over the log's span, sizes as the empirical quantiles 0,
// 0.5, 0.9, 0.99, 0.999 and 1 (those the sample count supports).
func (ps Pauses) Arrivals() (Arrivals, string, error) {
	if len(ps.Sizes) < 2 {
		return Arrivals{}, "", errors.Errorf("found %d pauses: a profile needs at least 2", len(ps.Sizes))
	}
	if ps.Span <= 0 {
		return Arrivals{}, "", errors.New("the log covers no time (every pause at 0s)")
	}
	s := slices.Clone(ps.Sizes)
	slices.Sort(s)
	pts := []Quantile{{0, s[0]}}
	for _, p := range []float64{0.5, 0.9, 0.99, 0.999} {
		// A quantile needs samples beyond it to mean anything.
		if float64(len(s))*(1-p) < 1 {
			break
		}
		v := s[int(math.Ceil(p*float64(len(s))))-1]
		pts = append(pts, Quantile{p, max(v, pts[len(pts)-1].V)})
	}
	pts = append(pts, Quantile{1, s[len(s)-1]})
	d := Dist{Points: pts}
	if err := d.Validate(); err != nil {
		return Arrivals{}, "", err
	}
	rate := float64(len(s)) / ps.Span.Hours()
	if rate > MaxPerHour {
		return Arrivals{}, "", errors.Errorf("%.0f pauses an hour, more than the limit of %d", rate, MaxPerHour)
	}
	src := fmt.Sprintf("%d pauses over %v (%.0f an hour), largest %v", len(s), ps.Span.Round(time.Millisecond), rate, s[len(s)-1])
	return Arrivals{PerHour: rate, Size: d}, src, nil
}
