package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMedianAndSpread(t *testing.T) {
	for _, tc := range []struct {
		xs             []float64
		median, lo, hi float64
	}{
		{nil, 0, 0, 0},
		{[]float64{3}, 3, 3, 3},
		{[]float64{3, 1, 2}, 2, 1, 3},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4}, // even: the mean of the middle two
		{[]float64{1.1, 0.9, 1.0, 5, 1.05}, 1.05, 0.9, 5},
	} {
		in := append([]float64(nil), tc.xs...)
		lo, hi := spread(tc.xs)
		if m := median(tc.xs); !near(m, tc.median) || !near(lo, tc.lo) || !near(hi, tc.hi) {
			t.Errorf("%v: median %v spread %v-%v, want %v %v-%v", tc.xs, m, lo, hi, tc.median, tc.lo, tc.hi)
		}
		for i := range in {
			if in[i] != tc.xs[i] {
				t.Errorf("median reordered its input: %v", tc.xs)
			}
		}
	}
}

// A round's ratio is head over base of that round; a round where either
// side has no figure is left out, never divided by.
func TestRatios(t *testing.T) {
	got := ratios([]float64{2, 3, 0, 4, 9}, []float64{4, 3, 5, 0})
	want := []float64{0.5, 1}
	if len(got) != len(want) {
		t.Fatalf("ratios = %v, want %v", got, want)
	}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Errorf("ratios = %v, want %v", got, want)
		}
	}
}

func TestSignTestAndReading(t *testing.T) {
	for _, tc := range []struct {
		k, n int
		p    float64
	}{
		{0, 0, 1}, {6, 6, 2.0 / 64}, {0, 6, 2.0 / 64}, {4, 4, 2.0 / 16}, {7, 8, 2 * 9.0 / 256}, {4, 8, 1}, {8, 8, 2.0 / 256},
	} {
		if p := signP(tc.k, tc.n); !near(p, tc.p) {
			t.Errorf("signP(%d, %d) = %v, want %v", tc.k, tc.n, p, tc.p)
		}
	}
	for _, tc := range []struct {
		rs   []float64
		want string
	}{
		{[]float64{0.9, 0.8, 0.95, 0.9, 0.85, 0.99}, "faster (6/6)"},
		{[]float64{1.1, 1.2, 1.05, 1.1, 1.01, 1.3}, "slower (0/6)"},
		{[]float64{0.5, 0.5, 0.5, 0.5}, "no clear change (4/4)"}, // 4 rounds cannot be told from chance
		{[]float64{0.9, 0.9, 0.9, 0.9, 0.9, 1.1}, "no clear change (5/6)"},
		{[]float64{0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 1.1}, "no clear change (7/8)"},   // p = 0.07
		{[]float64{0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 1.1}, "faster (9/10)"}, // p = 0.02
	} {
		if got := reading(tc.rs); got != tc.want {
			t.Errorf("reading(%v) = %q, want %q", tc.rs, got, tc.want)
		}
	}
}

// A row gives the median ratio and the spread, or says why there is
// none: no base, the head failed.
func TestRows(t *testing.T) {
	r := result{name: "locksim.BenchmarkX", head: []float64{1, 2, 3}, base: []float64{2, 2, 2},
		headLine: benchLine{allocs: 50, units: map[string]float64{"allocs/op": 50}}, baseLine: benchLine{allocs: 100, units: map[string]float64{"allocs/op": 100}}}
	row := r.row()
	for _, want := range []string{"locksim.BenchmarkX", "1.00", "0.50-1.50", "no clear change (1/3)", "0.50"} {
		if !strings.Contains(row, want) {
			t.Errorf("row %q lacks %q", row, want)
		}
	}
	r.noBase = "new, no base"
	if row := r.row(); !strings.HasSuffix(row, "new, no base") || strings.Contains(row, "0.50") {
		t.Errorf("a benchmark the base lacks: %q", row)
	}
	if abs := r.absolute(); !strings.HasSuffix(abs, "   -") {
		t.Errorf("a benchmark the base lacks has base figures: %q", abs)
	}
	r.headFailed = "exit status 1"
	if row := r.row(); !strings.Contains(row, "HEAD FAILED: exit status 1") {
		t.Errorf("a failed head: %q", row)
	}
}

func TestParseBench(t *testing.T) {
	out := `goos: linux
pkg: locksim/sim/script
BenchmarkEval/fast   	    4383	     17976 ns/op	     331 B/op	      12 allocs/op
BenchmarkEval/miniredis         	     100	    665551 ns/op	  195510 B/op	     736 allocs/op
BenchmarkDispatchGET-2            	   49880	      1444 ns/op	     101 B/op	       5 allocs/op
BenchmarkOdd     some log line the benchmark printed
BenchmarkBadCount	x	1 ns/op
BenchmarkCustom 10 5.5 ns/op 3 widgets/op
PASS
`
	lines := parseBench(out, 2)
	if len(lines) != 4 {
		t.Fatalf("parsed %d lines, want 4: %+v", len(lines), lines)
	}
	if l := lines[0]; l.name != "BenchmarkEval/fast" || l.n != 4383 || l.nsPerOp != 17976 || l.bytes != 331 || l.allocs != 12 {
		t.Errorf("first line: %+v", l)
	}
	if l := lines[2]; l.name != "BenchmarkDispatchGET" || l.n != 49880 {
		t.Errorf("the -2 suffix of GOMAXPROCS=2 stays: %+v", l)
	}
	if l := lines[3]; l.name != "BenchmarkCustom" || l.units["widgets/op"] != 3 || l.has("B/op") {
		t.Errorf("custom metric: %+v", l)
	}
	if l := parseBench("BenchmarkSize-10 \t 5 \t 1 ns/op\n", 1); len(l) != 1 || l[0].name != "BenchmarkSize-10" {
		t.Errorf("at GOMAXPROCS=1 a name's own -10 was cut: %+v", l)
	}
	if p := exactPattern("BenchmarkCheckRun/set-px-lua"); p != "^BenchmarkCheckRun$/^set-px-lua$" {
		t.Errorf("exactPattern = %q", p)
	}
	if p := exactPattern("BenchmarkX/a.b+c"); p != `^BenchmarkX$/^a\.b\+c$` {
		t.Errorf("exactPattern = %q", p)
	}
}

func TestPerOpAndIterations(t *testing.T) {
	if got := perOp(1.010, 0.010, 100); !near(got, 0.01) {
		t.Errorf("perOp = %v, want the 1-op process's CPU taken off: 0.01", got)
	}
	if got := perOp(0.010, 0.012, 10); !near(got, 0.001) {
		t.Errorf("perOp with a negative difference = %v, want cpuN/n", got)
	}
	if got := perOp(0.5, 0.5, 1); !near(got, 0.5) {
		t.Errorf("perOp of one op = %v", got)
	}
	for _, tc := range []struct {
		cpu  float64
		wall time.Duration
		want float64
	}{{1, 2 * time.Second, 0.5}, {1, time.Second / 2, 1}, {0.001, time.Second, 0.05}, {0, time.Second, 1}, {1, 0, 1}} {
		if got := cpuShare(tc.cpu, tc.wall); !near(got, tc.want) {
			t.Errorf("cpuShare(%v, %v) = %v, want %v", tc.cpu, tc.wall, got, tc.want)
		}
	}
	for _, tc := range []struct {
		ns   float64
		want int
	}{{1e6, 300}, {3e5, 1000}, {26e6, 12}, {100e6, 10}, {500e6, 2}, {1e9, 1}, {0, 1}, {0.001, 1e9}} {
		if got := iterationsFor(tc.ns, 300*time.Millisecond); got != tc.want {
			t.Errorf("iterationsFor(%v) = %d, want %d", tc.ns, got, tc.want)
		}
	}
}

func TestLoadAverage(t *testing.T) {
	read := func(string) ([]byte, error) { return []byte("6.28 4.56 2.01 6/166 21055\n"), nil }
	if got := loadAverage(read); got != "6.28 4.56 2.01" {
		t.Errorf("loadAverage = %q", got)
	}
	none := func(string) ([]byte, error) { return nil, errors.New("no such file") }
	if got := loadAverage(none); !strings.HasPrefix(got, "unknown") {
		t.Errorf("loadAverage without /proc = %q", got)
	}
}

// An archive entry that would land outside the directory is refused.
func TestUntarRefusesEscape(t *testing.T) {
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	w.WriteHeader(&tar.Header{Name: "../evil.go", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
	w.Write([]byte("x"))
	w.Close()
	if err := untar(&buf, t.TempDir()); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("untar of ../evil.go: %v", err)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-rounds", "0"}, {"-target", "-1s"}, {"-procs", "0"}, {"-bench", "("}, {"-nosuch"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
}
