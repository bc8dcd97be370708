package logcheck

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// twoHosts is an OTLP JSON document: web-1's A holds k from 1.000s for
// 1000ms, web-2's B is granted k at 1.200s: an overlap whatever clocks
// within 50ms say; B then writes token 2, and A's write of token 1 is
// rejected.
const twoHosts = `{"resourceSpans": [
 {"resource": {"attributes": [{"key": "host.name", "value": {"stringValue": "web-1"}}, {"key": "service.instance.id", "value": {"stringValue": "A"}}]},
  "scopeSpans": [{"spans": [
   {"name": "lock.acquire", "startTimeUnixNano": "1000000000", "endTimeUnixNano": "1001000000",
    "attributes": [{"key": "lock.key", "value": {"stringValue": "k"}}, {"key": "lock.outcome", "value": {"stringValue": "granted"}},
                   {"key": "lock.validity_ms", "value": {"intValue": "1000"}}, {"key": "lock.token", "value": {"intValue": "1"}}]},
   {"name": "http.request", "startTimeUnixNano": "1002000000", "endTimeUnixNano": "1003000000"},
   {"name": "lock.write", "startTimeUnixNano": "1500000000", "endTimeUnixNano": "1600000000", "status": {"code": 2},
    "attributes": [{"key": "lock.key", "value": {"stringValue": "k"}}, {"key": "lock.token", "value": {"intValue": "1"}}]},
   {"name": "lock.release", "startTimeUnixNano": "1700000000", "endTimeUnixNano": "1701000000",
    "attributes": [{"key": "lock.key", "value": {"stringValue": "k"}}]}]}]},
 {"resource": {"attributes": [{"key": "host.name", "value": {"stringValue": "web-2"}}]},
  "scopeSpans": [{"spans": [
   {"name": "lock.acquire", "startTimeUnixNano": "1100000000", "endTimeUnixNano": "1200000000",
    "attributes": [{"key": "lock.key", "value": {"stringValue": "k"}}, {"key": "lock.client", "value": {"stringValue": "B"}},
                   {"key": "lock.validity_ms", "value": {"intValue": 1000}}, {"key": "lock.token", "value": {"intValue": "2"}}]},
   {"name": "lock.write", "startTimeUnixNano": "1300000000", "endTimeUnixNano": "1310000000", "status": {"code": "STATUS_CODE_OK"},
    "attributes": [{"key": "lock.key", "value": {"stringValue": "k"}}, {"key": "lock.client", "value": {"stringValue": "B"}}, {"key": "lock.token", "value": {"intValue": "2"}}]}]}]}]}`

func TestOTLPSpansAreJudgedAsLogLines(t *testing.T) {
	if !IsOTLP([]byte(twoHosts)) || IsOTLP([]byte(`{"time": 1, "host": "h"}`)) {
		t.Fatal("IsOTLP does not tell an OTLP document from a log line")
	}
	in, spans, err := ReadOTLP("trace.json", strings.NewReader(twoHosts))
	if err != nil {
		t.Fatal(err)
	}
	if spans != 5 {
		t.Errorf("%d lock spans, want 5 (the http.request span is not one)", spans)
	}
	res, err := Check([]Input{in}, Options{Skew: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var certain bool
	for _, v := range res.Violations {
		if v.Invariant == "mutual-exclusion" && v.Certainty == Certain {
			certain = true
		}
	}
	if !certain {
		t.Errorf("A (web-1, 1.001s for 1s) and B (web-2, from 1.2s) overlap at any offset within 50ms: violations %+v", res.Violations)
	}
}

func TestOTLPRefusesWhatItCannotPlace(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{strings.Replace(twoHosts, `{"key": "lock.key", "value": {"stringValue": "k"}}, {"key": "lock.outcome"`, `{"key": "lock.outcome"`, 1), "no lock.key"},
		{strings.Replace(twoHosts, `"endTimeUnixNano": "1001000000"`, `"endTimeUnixNano": "999"`, 1), "the end not before the start"},
		{strings.Replace(twoHosts, `"intValue": "1"}}]},`, `"intValue": "one"}}]},`, 1), "not an integer"},
		{`{"resourceSpans": [`, "not an OTLP JSON trace document"},
	} {
		_, _, err := ReadOTLP("trace.json", strings.NewReader(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
	}
}

// The lock spans become these lines, in time order: the span's outcome
// (an attribute, else its status) picks the kind; validity and token go
// with the grant, sent with a write.
func TestOTLPMapping(t *testing.T) {
	in, _, err := ReadOTLP("trace.json", strings.NewReader(twoHosts))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	buf := new(strings.Builder)
	if _, err := io.Copy(buf, in.R); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		e, err := ParseLine([]byte(l), "x", i+1)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %s %s tok=%d val=%v sent=%d", e.Time/1e6, e.Host, e.Client, e.Kind, e.Token, e.Validity, e.Sent/1e6))
	}
	want := []string{
		"1000 web-1 A acquire-attempt tok=0 val=0s sent=0",
		"1001 web-1 A granted tok=1 val=1s sent=0",
		"1100 web-2 B acquire-attempt tok=0 val=0s sent=0",
		"1200 web-2 B granted tok=2 val=1s sent=0",
		"1310 web-2 B write tok=2 val=0s sent=1300",
		"1600 web-1 A write-rejected tok=1 val=0s sent=1500",
		"1700 web-1 A released tok=0 val=0s sent=0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A lock.acquire span with lock.deadline_ms carries the call's deadline:
// one that ended 150ms after a 50ms deadline is a late acquisition; a bad
// deadline is refused naming the span.
func TestOTLPAcquireDeadline(t *testing.T) {
	doc := func(deadline string) string {
		return `{"resourceSpans": [{"resource": {"attributes": [{"key": "host.name", "value": {"stringValue": "web-1"}}, {"key": "service.instance.id", "value": {"stringValue": "A"}}]},
  "scopeSpans": [{"spans": [{"name": "lock.acquire", "startTimeUnixNano": "1000000000", "endTimeUnixNano": "1200000000",
    "attributes": [{"key": "lock.key", "value": {"stringValue": "k"}}, {"key": "lock.deadline_ms", "value": {"intValue": "` + deadline + `"}}]}]}]}]}`
	}
	in, _, err := ReadOTLP("trace.json", strings.NewReader(doc("50")))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Check([]Input{in}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := verdict(r, "acquire-deadline"); v.Verdict != "broken" || !strings.Contains(find(r, "acquire-deadline").Explanation, "150ms late") {
		t.Errorf("%+v %v", v, r.Violations)
	}
	if _, _, err := ReadOTLP("trace.json", strings.NewReader(doc("-1"))); err == nil || !strings.Contains(err.Error(), "lock.deadline_ms") {
		t.Errorf("a negative deadline: %v", err)
	}
}
