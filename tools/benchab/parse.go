package main

import (
	"regexp"
	"strconv"
	"strings"
)

// benchLine is one result line of a Go benchmark:
//
//	BenchmarkCheckRun/set-px-lua   200   150000 ns/op   59000 B/op   500 allocs/op
type benchLine struct {
	name    string // without the -GOMAXPROCS suffix
	n       int    // iterations
	nsPerOp float64
	bytes   float64 // B/op
	allocs  float64 // allocs/op
	units   map[string]float64
}

func (l benchLine) has(unit string) bool { _, ok := l.units[unit]; return ok }

// parseBench returns the result lines of a test binary's output, in
// order. procs is the GOMAXPROCS the binary ran with: above 1, testing
// appends "-procs" to every name, which is removed.
func parseBench(out string, procs int) []benchLine {
	var lines []benchLine
	suffix := ""
	if procs > 1 {
		suffix = "-" + strconv.Itoa(procs)
	}
	for _, text := range strings.Split(out, "\n") {
		f := strings.Fields(text)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n <= 0 {
			continue
		}
		l := benchLine{name: strings.TrimSuffix(f[0], suffix), n: n, units: map[string]float64{}}
		ok := true
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				ok = false
				break
			}
			l.units[f[i+1]] = v
		}
		if !ok || !l.has("ns/op") {
			continue
		}
		l.nsPerOp, l.bytes, l.allocs = l.units["ns/op"], l.units["B/op"], l.units["allocs/op"]
		lines = append(lines, l)
	}
	return lines
}

// exactPattern returns the -test.bench pattern that selects the one
// benchmark name (each slash-separated level anchored and quoted).
func exactPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
