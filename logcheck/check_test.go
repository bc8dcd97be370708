package logcheck

import (
	"os"
	"strings"
	"testing"
	"time"

	"locksim/model/invariant"
)

func checkFiles(t *testing.T, opt Options, files ...string) *Result {
	t.Helper()
	var ins []Input
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		ins = append(ins, Input{Name: f, R: fh})
	}
	r, err := Check(ins, opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func checkText(t *testing.T, opt Options, text string) (*Result, error) {
	t.Helper()
	return Check([]Input{{Name: "log.jsonl", R: strings.NewReader(text)}}, opt)
}

func verdict(r *Result, id invariant.ID) Verdict {
	for _, v := range r.Verdicts {
		if v.Invariant == id {
			return v
		}
	}
	return Verdict{}
}

// A hand-written log whose overlap holds for every offset within ±50ms
// is certain; one whose overlap needs web-2's clock ahead of web-1's by
// 30 to 100ms is possible, with those offsets; with no skew it is no
// overlap at all.
func TestOverlapCertainAndPossible(t *testing.T) {
	opt := Options{Skew: 50 * time.Millisecond}
	r := checkFiles(t, opt, "testdata/certain.jsonl")
	if v := verdict(r, invariant.MutualExclusion); v.Verdict != "broken" || v.Certain != 1 || v.Possible != 0 {
		t.Fatalf("certain.jsonl: %+v", v)
	}
	r = checkFiles(t, opt, "testdata/possible.jsonl")
	v := verdict(r, invariant.MutualExclusion)
	if v.Verdict != "possibly broken" || v.Certain != 0 || v.Possible != 1 {
		t.Fatalf("possible.jsonl: %+v", v)
	}
	got := r.Violations[0]
	if got.OffsetMin != -100*time.Millisecond || got.OffsetMax != -30*time.Millisecond || got.Hosts[0] != "web-1" {
		t.Errorf("offsets %v..%v of %v, want web-1 -100ms..-30ms", got.OffsetMin, got.OffsetMax, got.Hosts)
	}
	if !r.PossiblyBroken() || r.Broken() {
		t.Errorf("possible.jsonl: Broken %v PossiblyBroken %v", r.Broken(), r.PossiblyBroken())
	}
	r = checkFiles(t, Options{}, "testdata/possible.jsonl")
	if v := verdict(r, invariant.MutualExclusion); v.Verdict != "held" {
		t.Errorf("possible.jsonl with no skew: %+v", v)
	}
	// A per-host bound small enough rules the overlap out.
	r = checkFiles(t, Options{Skew: 50 * time.Millisecond, HostSkew: map[string]time.Duration{"web-1": 5 * time.Millisecond, "web-2": 5 * time.Millisecond}}, "testdata/possible.jsonl")
	if v := verdict(r, invariant.MutualExclusion); v.Verdict != "held" {
		t.Errorf("possible.jsonl with ±5ms per host: %+v", v)
	}
}

// The log the locklog wrapper writes in its own test (two hosts, a lease
// that ran out, a fenced write rejected) parses line by line and judges
// clean, with fencing judged (a write-rejected is logged).
func TestLocklogExampleJudges(t *testing.T) {
	r := checkFiles(t, Options{Liveness: time.Second}, "../locklog/testdata/example.jsonl")
	if r.Stats.Events != 12 || r.Broken() || r.PossiblyBroken() || r.NothingJudged != "" {
		t.Fatalf("events %d, broken %v, possibly %v, %q", r.Stats.Events, r.Broken(), r.PossiblyBroken(), r.NothingJudged)
	}
	for _, id := range Judged {
		v := verdict(r, id)
		switch {
		case id == invariant.AcquireDeadline && v.Verdict == "not judged": // its calls had no deadline
		case id == invariant.Available && v.Verdict == "not judged": // no --available bound
		case v.Verdict != "held":
			t.Errorf("%s: %+v", id, v)
		}
	}
}

// The HTML timeline draws one lane per client, each belief as a bar with
// its host's clock uncertainty at both ends (none under a zero bound), and
// the violation's window on both lanes.
func TestHTMLTimeline(t *testing.T) {
	for _, c := range []struct {
		skew  time.Duration
		bands int
	}{{50 * time.Millisecond, 4}, {0, 0}} {
		r := checkFiles(t, Options{Skew: c.skew}, "testdata/certain.jsonl")
		var b strings.Builder
		if err := r.HTML(&b); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if n := strings.Count(page, `opacity="0.35"`); n != c.bands {
			t.Errorf("skew %v: %d uncertainty bands, want %d", c.skew, n, c.bands)
		}
		if strings.Count(page, `fill="#37a"`) != 2 || strings.Count(page, `stroke="#d00"`) != 2 ||
			!strings.Contains(page, ">web-1/worker (web-1)</text>") || !strings.Contains(page, ">web-2/worker (web-2)</text>") {
			t.Errorf("skew %v: lanes, bars or the violation missing:\n%s", c.skew, page)
		}
	}
}

// The latency figures: exact quantiles up to sketchExact values, within
// 1% beyond; the max is always exact.
func TestDistQuantiles(t *testing.T) {
	for _, n := range []int{100, 200_000} {
		k := newSketch()
		for i := n; i >= 1; i-- {
			k.add(time.Duration(i) * time.Microsecond)
		}
		d := k.dist()
		want := func(p float64) time.Duration { return time.Duration(min(n-1, int(p*float64(n)))+1) * time.Microsecond }
		for _, c := range []struct {
			got, want time.Duration
		}{{d.P50, want(0.5)}, {d.P90, want(0.9)}, {d.P99, want(0.99)}} {
			if diff := float64(c.got-c.want) / float64(c.want); diff > 0.01 || diff < -0.01 || n <= sketchExact && c.got != c.want {
				t.Errorf("n=%d: %v, want %v", n, c.got, c.want)
			}
		}
		if d.N != n || d.Max != time.Duration(n)*time.Microsecond {
			t.Errorf("n=%d: %+v", n, d)
		}
	}
}
