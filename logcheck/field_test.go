package logcheck

import (
	"strings"
	"testing"
	"time"

	"locksim/model/invariant"
)

// premature-loss from a log: web-2's grant inside the validity web-1's
// last renewal promised is certain within ±50ms per host; one that falls
// inside only if web-2's clock ran 20 to 100ms ahead is possible, with
// those offsets; with no skew the second is no loss at all.
func TestPrematureLossCertainAndPossible(t *testing.T) {
	opt := Options{Skew: 50 * time.Millisecond}
	r := checkFiles(t, opt, "testdata/premature-certain.jsonl")
	v := verdict(r, invariant.PrematureLoss)
	if v.Verdict != "broken" || v.Certain != 1 || v.Possible != 0 {
		t.Fatalf("premature-certain.jsonl: %+v", v)
	}
	pl := find(r, invariant.PrematureLoss)
	if pl.Where[0] != "testdata/premature-certain.jsonl:4" || pl.Where[1] != "testdata/premature-certain.jsonl:6" || !strings.Contains(pl.Explanation, "by its renewal") {
		t.Errorf("the loss cites %v: %s", pl.Where, pl.Explanation)
	}
	r = checkFiles(t, opt, "testdata/premature-possible.jsonl")
	v = verdict(r, invariant.PrematureLoss)
	if v.Verdict != "possibly broken" || v.Certain != 0 || v.Possible != 1 {
		t.Fatalf("premature-possible.jsonl: %+v", v)
	}
	pl = find(r, invariant.PrematureLoss)
	if pl.OffsetMin != -100*time.Millisecond || pl.OffsetMax != -20*time.Millisecond || pl.Hosts[0] != "web-1" {
		t.Errorf("offsets %v..%v hosts %v", pl.OffsetMin, pl.OffsetMax, pl.Hosts)
	}
	r = checkFiles(t, Options{}, "testdata/premature-possible.jsonl")
	if v := verdict(r, invariant.PrematureLoss); v.Verdict != "held" {
		t.Errorf("with no skew: %+v", v)
	}
}

// A grant after the holder released, or to a holder that trusts its lock
// until release (no validity), is no premature loss.
func TestPrematureLossNeedsAPromiseInForce(t *testing.T) {
	log := `{"time":"2026-12-07T10:00:00Z","host":"h1","client":"a","key":"k","kind":"granted","value":"v1","validity":"5s"}
{"time":"2026-12-07T10:00:01Z","host":"h1","client":"a","key":"k","kind":"released","value":"v1"}
{"time":"2026-12-07T10:00:01.001Z","host":"h2","client":"b","key":"k","kind":"granted","value":"v2","validity":"5s"}
`
	r, err := checkText(t, Options{}, log)
	if err != nil {
		t.Fatal(err)
	}
	if v := verdict(r, invariant.PrematureLoss); v.Verdict != "held" {
		t.Errorf("a grant after the release: %+v", v)
	}
	noValidity := `{"time":"2026-12-07T10:00:00Z","host":"h1","client":"a","key":"k","kind":"granted","value":"v1"}
{"time":"2026-12-07T10:00:01.001Z","host":"h2","client":"b","key":"k","kind":"granted","value":"v2"}
{"time":"2026-12-07T10:00:02Z","host":"h1","client":"a","key":"k","kind":"released","value":"v1"}
`
	r, err = checkText(t, Options{}, noValidity)
	if err != nil {
		t.Fatal(err)
	}
	if v := verdict(r, invariant.PrematureLoss); v.Verdict != "not judged" {
		t.Errorf("no validity anywhere: %+v", v)
	}
	if v := verdict(r, invariant.MutualExclusion); v.Verdict != "broken" {
		t.Errorf("the overlap itself: %+v", v)
	}
}

// acquire-deadline from a log: web-3's call, due 500ms after it began,
// returned 1.7s late; web-2's refusal came in time. Both ends are on one
// host's clock, so it is certain and no skew changes it; a tolerance
// above the lateness holds it; a log with no deadline does not judge it.
func TestAcquireDeadlineFromALog(t *testing.T) {
	for _, skew := range []time.Duration{0, time.Second} {
		r := checkFiles(t, Options{Skew: skew, AcquireTolerance: 10 * time.Millisecond}, "testdata/deadline.jsonl")
		v := verdict(r, invariant.AcquireDeadline)
		if v.Verdict != "broken" || v.Certain != 1 || v.Possible != 0 {
			t.Fatalf("skew %v: %+v", skew, v)
		}
		ad := find(r, invariant.AcquireDeadline)
		if ad.Clients[0] != "web-3/worker" || !strings.Contains(ad.Explanation, "1.7s late") {
			t.Errorf("skew %v: %+v", skew, ad)
		}
	}
	r := checkFiles(t, Options{AcquireTolerance: 2 * time.Second}, "testdata/deadline.jsonl")
	if v := verdict(r, invariant.AcquireDeadline); v.Verdict != "held" {
		t.Errorf("within a 2s tolerance: %+v", v)
	}
	r = checkFiles(t, Options{}, "testdata/certain.jsonl")
	if v := verdict(r, invariant.AcquireDeadline); v.Verdict != "not judged" {
		t.Errorf("no deadline logged: %+v", v)
	}
	// A call that never returned is judged at its host's log end.
	open := `{"time":"2026-12-07T10:00:00Z","host":"h1","client":"a","key":"k","kind":"granted","value":"v1"}
{"time":"2026-12-07T10:00:00Z","host":"h2","client":"b","key":"k","kind":"acquire-attempt","value":"v2","deadline":"1s"}
{"time":"2026-12-07T10:00:05Z","host":"h2","client":"b","key":"other","kind":"granted","value":"v3"}
`
	r, err := checkText(t, Options{}, open)
	if err != nil {
		t.Fatal(err)
	}
	if ad := find(r, invariant.AcquireDeadline); !strings.Contains(ad.Explanation, "had not returned") {
		t.Errorf("an unreturned call: %+v", r.Verdicts)
	}
}

// available from a log is judged only when the user gives its bound (a
// log shows no faults), on the same free stretches as liveness.
func TestAvailableFromALog(t *testing.T) {
	r := checkFiles(t, Options{}, "testdata/deadline.jsonl")
	if v := verdict(r, invariant.Available); v.Verdict != "not judged" || !strings.Contains(v.Why, "--available") {
		t.Errorf("without a bound: %+v", v)
	}
	r = checkFiles(t, Options{Available: time.Second}, "testdata/deadline.jsonl")
	if v := verdict(r, invariant.Available); v.Verdict != "held" {
		t.Errorf("web-3 waited while web-1 held the key: %+v", v)
	}
	free := `{"time":"2026-12-07T10:00:00Z","host":"h2","client":"b","key":"k","kind":"acquire-attempt","value":"v2"}
{"time":"2026-12-07T10:00:05Z","host":"h2","client":"b","key":"k","kind":"granted","value":"v2"}
`
	r, err := checkText(t, Options{Available: time.Second}, free)
	if err != nil {
		t.Fatal(err)
	}
	if v := verdict(r, invariant.Available); v.Verdict != "broken" || v.Certain != 1 {
		t.Errorf("a 5s wait on a free key: %+v", v)
	}
	if v := verdict(r, invariant.Liveness); v.Verdict != "not judged" {
		t.Errorf("liveness has its own bound: %+v", v)
	}
}

// A deadline on any event but acquire-attempt, or not positive, is a
// format error.
func TestDeadlineFieldErrors(t *testing.T) {
	for _, l := range []string{
		`{"time":0,"host":"h","client":"c","key":"k","kind":"granted","deadline":"1s"}`,
		`{"time":0,"host":"h","client":"c","key":"k","kind":"acquire-attempt","deadline":"0s"}`,
		`{"time":0,"host":"h","client":"c","key":"k","kind":"acquire-attempt","deadline":"soon"}`,
	} {
		if _, err := ParseLine([]byte(l), "f", 1); err == nil || !strings.Contains(err.Error(), "deadline") {
			t.Errorf("%s: %v", l, err)
		}
	}
	e, err := ParseLine([]byte(`{"time":0,"host":"h","client":"c","key":"k","kind":"acquire-attempt","deadline":"1.5s"}`), "f", 1)
	if err != nil || e.Deadline != 1500*time.Millisecond {
		t.Fatal(e, err)
	}
	back, err := ParseLine(AppendJSON(nil, e), "f", 1)
	if err != nil || back.Deadline != e.Deadline {
		t.Errorf("AppendJSON round trip: %+v %v", back, err)
	}
}

func find(r *Result, id invariant.ID) Violation {
	for _, v := range r.Violations {
		if v.Invariant == id {
			return v
		}
	}
	return Violation{}
}

// A lost event whose cause is the store's word (refused), logged before
// the validity the holder's last renewal promised, is a certain
// premature loss on the holder's own clock, whatever the skew; the same
// event with another cause, or after the validity, is not.
func TestPrematureLossByRefusedRenewal(t *testing.T) {
	log := func(lostAt, cause string) string {
		return `{"time":"2026-12-07T10:00:00Z","host":"h1","client":"a","key":"k","kind":"granted","value":"v1","validity":"3s"}
{"time":"2026-12-07T10:00:01Z","host":"h1","client":"a","key":"k","kind":"renewed","value":"v1","validity":"3s"}
{"time":"` + lostAt + `","host":"h1","client":"a","key":"k","kind":"lost","value":"v1"` + cause + `}
`
	}
	r, err := checkText(t, Options{Skew: time.Second}, log("2026-12-07T10:00:02Z", `,"cause":"refused"`))
	if err != nil {
		t.Fatal(err)
	}
	v := verdict(r, invariant.PrematureLoss)
	pl := find(r, invariant.PrematureLoss)
	if v.Verdict != "broken" || v.Certain != 1 || !strings.Contains(pl.Explanation, "2s before that") || pl.Where[0] != "log.jsonl:2" {
		t.Fatalf("%+v %+v", v, pl)
	}
	for _, l := range []string{
		log("2026-12-07T10:00:02Z", `,"cause":"unknown"`),
		log("2026-12-07T10:00:02Z", ``),
		log("2026-12-07T10:00:04Z", `,"cause":"refused"`),
	} {
		r, err := checkText(t, Options{}, l)
		if err != nil {
			t.Fatal(err)
		}
		if v := verdict(r, invariant.PrematureLoss); v.Verdict != "held" {
			t.Errorf("%s: %+v", l, v)
		}
	}
	if _, err := ParseLine([]byte(`{"time":0,"host":"h","client":"c","key":"k","kind":"lost","cause":"gone"}`), "f", 1); err == nil || !strings.Contains(err.Error(), "unknown cause") {
		t.Errorf("an unknown cause: %v", err)
	}
	if _, err := ParseLine([]byte(`{"time":0,"host":"h","client":"c","key":"k","kind":"released","cause":"refused"}`), "f", 1); err == nil {
		t.Error("a cause on a released event was taken")
	}
}

// The HTML timeline marks a late acquisition and a premature loss on the
// lane of the client it concerns (dashed orange), and its legend says so.
func TestHTMLMarksFieldJudgements(t *testing.T) {
	for _, tc := range []struct {
		file string
		opt  Options
	}{{"testdata/deadline.jsonl", Options{AcquireTolerance: 10 * time.Millisecond}}, {"testdata/premature-certain.jsonl", Options{Skew: 50 * time.Millisecond}}} {
		r := checkFiles(t, tc.opt, tc.file)
		var b strings.Builder
		if err := r.HTML(&b); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if !strings.Contains(page, `stroke="#e80"`) || !strings.Contains(page, "Dashed orange") {
			t.Errorf("%s: no field judgement drawn", tc.file)
		}
	}
}
