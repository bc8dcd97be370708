package logcheck

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"locksim/model/invariant"
)

// ev renders one line of the format at t milliseconds.
func ev(ms float64, host, client, kind string, extra string) string {
	t := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC).Add(time.Duration(ms * float64(time.Millisecond)))
	s := fmt.Sprintf(`{"time":%q,"host":%q,"client":%q,"key":"k","kind":%q`, t.Format(time.RFC3339Nano), host, client, kind)
	if extra != "" {
		s += "," + extra
	}
	return s + "}\n"
}

// Every kind of bad line is an error naming file:line, with the line
// quoted and the quote bounded.
func TestBadLines(t *testing.T) {
	long := `{"time":1,"host":"h","client":"c","key":"k","kind":"granted","value":"` + strings.Repeat("x", 500) + `","bogus":1}`
	for _, c := range []struct{ line, want string }{
		{`{"time":1,"host":"h","client":"c","key":"k","kind":"grnted"}`, `unknown kind "grnted"`},
		{`{"time":1,"host":"h","client":"c","key":"k"}`, "no kind"},
		{`{"host":"h","client":"c","key":"k","kind":"granted"}`, "no time"},
		{`{"time":"yesterday","host":"h","client":"c","key":"k","kind":"granted"}`, "not RFC 3339"},
		{`{"time":1,"client":"c","key":"k","kind":"granted"}`, "no host"},
		{`{"time":1,"host":"h","key":"k","kind":"granted"}`, "no client"},
		{`{"time":1,"host":"h","client":"c","kind":"granted"}`, "no key"},
		{`{"time":1,"host":"h","client":"c","key":"k","kind":"granted","validity":"ten"}`, "validity"},
		{`{"time":1,"host":"h","client":"c","key":"k","kind":"granted","validity":-5}`, "negative"},
		{`{"time":1,"host":"h","client":"c","key":"k","kind":"granted","token":-1}`, "negative"},
		{`{"time":1,"host":"h","client":"c","key":"k","kind":"granted","sent":1}`, "sent is for write"},
		{`{"time":1,"host":"h","client":"c","key":"k","kind":"write","sent":2}`, "sent is after time"},
		{`{"time":1,"host":"h","client":"c","key":"k","kind":"granted"} {}`, "more than one JSON value"},
		{`not json`, "not a JSON object"},
		{long, "unknown field"},
	} {
		_, err := checkText(t, Options{}, ev(0, "h", "c", "acquire-attempt", "")+"\n"+c.line+"\n")
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 3 || !strings.HasPrefix(err.Error(), "log.jsonl:3: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60s: error %v, want log.jsonl:3 and %q", c.line, err, c.want)
			continue
		}
		if q := err.Error()[strings.LastIndex(err.Error(), ": ")+2:]; len(q) > 2*MaxQuote+8 {
			t.Errorf("%.60s: the quote is %d bytes", c.line, len(q))
		}
	}
	if _, err := checkText(t, Options{}, `{"time":1,"host":"h","client":"c","key":"`+strings.Repeat("k", MaxLine)+`","kind":"granted"}`); err == nil || !strings.Contains(err.Error(), "log.jsonl:1: a line longer than") {
		t.Errorf("a line past MaxLine: %v", err)
	}
	if _, err := checkText(t, Options{}, ev(0, "h1", "c", "granted", "")+ev(1, "h2", "c", "released", "")); err == nil || !strings.Contains(err.Error(), "log.jsonl:2: client \"c\" logs from host \"h2\"") {
		t.Errorf("a client on two hosts: %v", err)
	}
}

// Events out of order within the reorder window are sorted; further back
// they are an error naming the line.
func TestReorderWindow(t *testing.T) {
	log := ev(0, "h", "a", "granted", `"validity":"10s"`) + ev(100, "h", "a", "released", "") +
		ev(50, "h", "b", "granted", `"validity":"10s"`) + ev(200, "h", "b", "released", "")
	_, err := checkText(t, Options{}, log)
	if err == nil || !strings.Contains(err.Error(), "log.jsonl:3: event at") || !strings.Contains(err.Error(), "50ms older than the event at line 2") {
		t.Fatalf("no window: %v", err)
	}
	r, err := checkText(t, Options{Reorder: 60 * time.Millisecond}, log)
	if err != nil {
		t.Fatal(err)
	}
	// Sorted, b's grant at 50ms falls inside a's hold: one clock, certain.
	if v := verdict(r, invariant.MutualExclusion); v.Certain != 1 {
		t.Errorf("sorted within 60ms: %+v", v)
	}
	if _, err := checkText(t, Options{Reorder: 40 * time.Millisecond}, log); err == nil || !strings.Contains(err.Error(), "(40ms)") {
		t.Errorf("window 40ms: %v", err)
	}
}

// A belief ends at its validity: a later grant to another client does not
// overlap it; without a validity it lasts until release or the end of its
// host's log; a renewal before it ran out extends it.
func TestBeliefEnds(t *testing.T) {
	for _, c := range []struct {
		name, log string
		certain   int
	}{
		{"validity ran out", ev(0, "h1", "a", "granted", `"validity":"1s"`) + ev(2000, "h2", "b", "granted", `"validity":"1s"`) + ev(2500, "h1", "a", "released", ""), 0},
		{"no validity", ev(0, "h1", "a", "granted", "") + ev(2000, "h2", "b", "granted", `"validity":"1s"`) + ev(2500, "h1", "a", "released", ""), 1},
		{"no validity, never released: until its host's log ends", ev(0, "h1", "a", "granted", "") + ev(1000, "h1", "a", "acquire-attempt", "") + ev(2000, "h2", "b", "granted", `"validity":"1s"`), 0},
		{"no validity, never released, host logs on", ev(0, "h1", "a", "granted", "") + ev(2000, "h2", "b", "granted", `"validity":"1s"`) + ev(2100, "h1", "x", "acquire-attempt", ""), 1},
		{"renewed in time", ev(0, "h1", "a", "granted", `"validity":"1s"`) + ev(900, "h1", "a", "renewed", `"validity":"2s"`) + ev(2000, "h2", "b", "granted", `"validity":"1s"`), 1},
		{"renewed without validity", ev(0, "h1", "a", "granted", `"validity":"1s"`) + ev(900, "h1", "a", "renewed", "") + ev(2000, "h2", "b", "granted", `"validity":"1s"`), 0},
		{"lost", ev(0, "h1", "a", "granted", "") + ev(1000, "h1", "a", "lost", "") + ev(2000, "h2", "b", "granted", `"validity":"1s"`) + ev(2500, "h1", "a", "released", ""), 0},
		{"revived", ev(0, "h1", "a", "granted", `"validity":"1s"`) + ev(1500, "h1", "a", "renewed", `"validity":"1s"`) + ev(2000, "h2", "b", "granted", `"validity":"1s"`), 1},
		{"handed over at the instant", ev(0, "h1", "a", "granted", "") + ev(1000, "h1", "a", "released", "") + ev(1000, "h1", "b", "granted", ""), 0},
		{"same client again", ev(0, "h1", "a", "granted", "") + ev(1000, "h1", "a", "granted", ""), 0},
	} {
		r, err := checkText(t, Options{}, c.log+ev(9000, "h3", "z", "acquire-attempt", ""))
		if err != nil {
			t.Fatal(err)
		}
		if v := verdict(r, invariant.MutualExclusion); v.Certain != c.certain || v.Possible != 0 {
			t.Errorf("%s: %+v, want %d certain", c.name, v, c.certain)
		}
	}
}

// Token order: a token granted twice is certain whatever the clocks; a
// smaller token granted to an acquisition that started after a larger
// grant is certain when the start follows it at every offset, possible
// when only some offsets put it after.
func TestTokens(t *testing.T) {
	opt := Options{Skew: 50 * time.Millisecond}
	dup := ev(0, "h1", "a", "granted", `"token":7,"value":"x","validity":"100ms"`) + ev(5000, "h2", "b", "granted", `"token":7,"value":"y","validity":"100ms"`)
	r, _ := checkText(t, opt, dup)
	if v := verdict(r, invariant.TokenUnique); v.Certain != 1 || !strings.Contains(r.Violations[0].Explanation, "token 7 was granted twice") {
		t.Errorf("duplicate: %+v %v", v, r.Violations)
	}
	// The same acquisition recorded twice is one grant.
	r, _ = checkText(t, opt, ev(0, "h1", "a", "granted", `"token":7,"value":"x"`)+ev(10, "h1", "a", "granted", `"token":7,"value":"x"`))
	if v := verdict(r, invariant.TokenUnique); v.Verdict != "held" {
		t.Errorf("one acquisition twice: %+v", v)
	}
	back := func(startMS float64) string {
		return ev(0, "h1", "a", "granted", `"token":9,"value":"x","validity":"10ms"`) +
			ev(startMS, "h2", "b", "acquire-attempt", `"value":"y"`) + ev(startMS+300, "h2", "b", "granted", `"token":8,"value":"y","validity":"10ms"`)
	}
	for _, c := range []struct {
		start             float64
		certain, possible int
	}{{200, 1, 0}, {60, 0, 1}, {-200, 0, 0}} {
		r, err := checkText(t, Options{Skew: 50 * time.Millisecond, Reorder: time.Second}, back(c.start))
		if err != nil {
			t.Fatal(err)
		}
		if v := verdict(r, invariant.TokenUnique); v.Certain != c.certain || v.Possible != c.possible {
			t.Errorf("attempt at %vms: %+v", c.start, v)
		}
	}
	r, _ = checkText(t, opt, ev(0, "h1", "a", "granted", `"validity":"10ms"`))
	if v := verdict(r, invariant.TokenUnique); v.Verdict != "not judged" {
		t.Errorf("no tokens: %+v", v)
	}
}

// Fencing: judged where a write-rejected shows the resource fences (or
// with Fenced); an accepted write with a token below one accepted before
// it is certain when the windows cannot swap, possible when they can.
func TestFencing(t *testing.T) {
	base := ev(0, "h1", "a", "write", `"token":5`) + ev(1000, "h2", "b", "write", `"token":4,"sent":"2026-12-07T10:00:00.9Z"`)
	r, _ := checkText(t, Options{}, base)
	if v := verdict(r, invariant.Fencing); v.Verdict != "not judged" || v.Certain != 0 {
		t.Errorf("no rejected write: %+v", v)
	}
	r, _ = checkText(t, Options{}, base+ev(1100, "h2", "b", "write-rejected", `"token":4`))
	if v := verdict(r, invariant.Fencing); v.Verdict != "broken" || v.Certain != 1 {
		t.Errorf("fenced: %+v", v)
	}
	r, _ = checkText(t, Options{Fenced: true}, base)
	if v := verdict(r, invariant.Fencing); v.Certain != 1 {
		t.Errorf("--fenced: %+v", v)
	}
	// b's write was sent at 900ms: with ±500ms a host it may have landed
	// before a's; with ±400ms it may not.
	r, _ = checkText(t, Options{Fenced: true, Skew: 400 * time.Millisecond}, base)
	if v := verdict(r, invariant.Fencing); v.Certain != 1 {
		t.Errorf("±400ms: %+v", v)
	}
	r, _ = checkText(t, Options{Fenced: true, Skew: 500 * time.Millisecond}, base)
	if v := verdict(r, invariant.Fencing); v.Certain != 0 || v.Possible != 1 {
		t.Errorf("skewed: %+v", v)
	}
	// In token order, nothing.
	r, _ = checkText(t, Options{Fenced: true}, ev(0, "h1", "a", "write", `"token":4`)+ev(1000, "h2", "b", "write", `"token":5`))
	if v := verdict(r, invariant.Fencing); v.Verdict != "held" {
		t.Errorf("in order: %+v", v)
	}
}

// A log with no grant judges nothing.
func TestNothingJudged(t *testing.T) {
	r, err := checkText(t, Options{}, ev(0, "h", "a", "acquire-attempt", "")+ev(10, "h", "a", "refused", ""))
	if err != nil || r.NothingJudged == "" {
		t.Fatalf("%v %q", err, r.NothingJudged)
	}
	var b bytes.Buffer
	r.Text(&b)
	if !strings.Contains(b.String(), "nothing judged") {
		t.Errorf("text:\n%s", b.String())
	}
}

// Liveness by timing: an acquisition that waited longer than the bound
// while no other client believed it held the key, at every offset, is a
// certain violation; the skew bound widens the others' beliefs, and
// without --liveness it is not judged.
func TestLivenessByTiming(t *testing.T) {
	log := ev(0, "h1", "a", "acquire-attempt", "") + ev(0, "h2", "b", "granted", "") + ev(2500, "h2", "b", "released", "") +
		ev(5000, "h1", "a", "granted", "")
	for _, c := range []struct {
		opt     Options
		verdict string
	}{
		{Options{Liveness: 2 * time.Second}, "broken"},
		{Options{Liveness: 3 * time.Second}, "held"},
		{Options{Liveness: 2 * time.Second, Skew: 500 * time.Millisecond}, "held"},
		{Options{}, "not judged"},
	} {
		r, err := checkText(t, c.opt, log)
		if err != nil {
			t.Fatal(err)
		}
		if v := verdict(r, invariant.Liveness); v.Verdict != c.verdict || v.Possible != 0 {
			t.Errorf("%+v: %+v, want %s", c.opt, v, c.verdict)
		}
	}
	// Still waiting when the log ends counts too.
	r, _ := checkText(t, Options{Liveness: time.Second}, ev(0, "h1", "a", "acquire-attempt", "")+ev(0, "h2", "b", "granted", `"validity":"1s"`)+ev(3000, "h1", "x", "refused", ""))
	if v := verdict(r, invariant.Liveness); v.Certain != 1 || !strings.Contains(r.Violations[0].Explanation, "still waiting") {
		t.Errorf("waiting at the end: %+v %v", v, r.Violations)
	}
}
