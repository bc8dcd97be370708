package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// median returns the median of xs (the mean of the middle two for an
// even count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// spread returns the least and the greatest of xs; 0, 0 for none.
func spread(xs []float64) (lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	return slices.Min(xs), slices.Max(xs)
}

// ratios returns head[i]/base[i] for each round where both were measured
// (a zero or missing base is skipped, never divided by).
func ratios(head, base []float64) []float64 {
	var out []float64
	for i := 0; i < len(head) && i < len(base); i++ {
		if base[i] > 0 && head[i] > 0 {
			out = append(out, head[i]/base[i])
		}
	}
	return out
}

// signP is the two-sided sign test's p-value of k rounds of n going one
// way when either way is as likely: 2 * P(X >= max(k, n-k)) for X
// binomial(n, 1/2), at most 1.
func signP(k, n int) float64 {
	if n == 0 {
		return 1
	}
	m := max(k, n-k)
	tailP := 0.0
	for i := m; i <= n; i++ {
		tailP += binom(n, i)
	}
	return min(1, 2*tailP/math.Pow(2, float64(n)))
}

// binom is n choose k.
func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// callP is the sign test's p-value below which a reading calls a change:
// of twenty benchmarks that did not change, about one is called.
const callP = 0.05

// reading says what the per-round head/base ratios show: "faster" or
// "slower" only when the rounds that went one way are too many to be
// chance (a sign test, p < callP: all 6 of 6, 7 of 8, ...), otherwise
// "no clear change"; with how many rounds head was cheaper.
func reading(rs []float64) string {
	cheaper, dearer := 0, 0
	for _, r := range rs {
		switch {
		case r < 1:
			cheaper++
		case r > 1:
			dearer++
		}
	}
	n := cheaper + dearer
	verdict := "no clear change"
	if signP(cheaper, n) < callP {
		verdict = map[bool]string{true: "faster", false: "slower"}[cheaper > dearer]
	}
	return fmt.Sprintf("%s (%d/%d)", verdict, cheaper, len(rs))
}

// result is one benchmark: its CPU time per op in each round, for head
// and base (0 where that side was not measured), and the last figures its
// own output line gave.
type result struct {
	name       string // package-qualified: importpath.BenchmarkX/sub
	bench      string // BenchmarkX/sub
	iterations int    // -benchtime Nx, the same for both sides
	head, base []float64
	headLine   benchLine
	baseLine   benchLine
	noBase     string // why there is no base figure ("new, no base", "base failed: ..."); "" when there is
	headFailed string // why head did not run; "" when it did
}

// row renders r's comparison: the median head/base CPU ratio, its spread
// and its reading, or why there is none.
func (r result) row() string {
	switch {
	case r.headFailed != "":
		return fmt.Sprintf("%-52s HEAD FAILED: %s", r.name, r.headFailed)
	case r.noBase != "":
		return fmt.Sprintf("%-52s %s", r.name, r.noBase)
	}
	rs := ratios(r.head, r.base)
	if len(rs) == 0 {
		return fmt.Sprintf("%-52s no round measured both sides", r.name)
	}
	lo, hi := spread(rs)
	allocs := "-"
	if r.baseLine.allocs > 0 {
		allocs = fmt.Sprintf("%.2f", r.headLine.allocs/r.baseLine.allocs)
	} else if r.headLine.allocs == 0 && r.baseLine.has("allocs/op") {
		allocs = "1.00"
	}
	return fmt.Sprintf("%-52s %6.2f   %5.2f-%-5.2f  %-22s %6s", r.name, median(rs), lo, hi, reading(rs), allocs)
}

// absolute renders r's absolute figures: head's median CPU per op, the
// benchmark's own wall ns/op, B/op and allocs/op, and base's beside them.
func (r result) absolute() string {
	if r.headFailed != "" {
		return fmt.Sprintf("%-52s (head failed)", r.name)
	}
	base := "-"
	if r.noBase == "" {
		base = fmt.Sprintf("%s %s %s", dur(median(r.base)), count(r.baseLine.bytes), count(r.baseLine.allocs))
	}
	return fmt.Sprintf("%-52s %10d %10s %10s %10s %10s   %s", r.name, r.iterations, dur(median(r.head)),
		dur(r.headLine.nsPerOp*1e-9), count(r.headLine.bytes), count(r.headLine.allocs), base)
}

// dur renders seconds as a duration of about four digits.
func dur(sec float64) string {
	d := time.Duration(sec * 1e9)
	switch {
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond).String()
	case d >= 10*time.Nanosecond:
		return d.String()
	}
	return strconv.FormatFloat(sec*1e9, 'f', 2, 64) + "ns"
}

// count renders a per-op count (bytes or allocations) without decimals.
func count(x float64) string {
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// loadAverage reads the machine's 1, 5 and 15 minute load averages, or
// says why it cannot.
func loadAverage(read func(string) ([]byte, error)) string {
	b, err := read("/proc/loadavg")
	if err != nil {
		return "unknown (no /proc/loadavg)"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown (/proc/loadavg unreadable)"
	}
	return strings.Join(f[:3], " ")
}
