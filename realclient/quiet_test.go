package realclient

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// logTB is a rapid.TB that records what is logged and never stops.
type logTB struct {
	rapid.TB
	logs   []string
	failed bool
}

func (l *logTB) Helper()      {}
func (l *logTB) Name() string { return "TestQuietDraws" }
func (l *logTB) Logf(format string, args ...any) {
	l.logs = append(l.logs, fmt.Sprintf(format, args...))
}
func (l *logTB) Log(args ...any)                   { l.logs = append(l.logs, fmt.Sprint(args...)) }
func (l *logTB) Errorf(format string, args ...any) { l.failed = true; l.Logf(format, args...) }
func (l *logTB) Error(args ...any)                 { l.failed = true; l.Log(args...) }
func (l *logTB) Fatalf(format string, args ...any) { l.Errorf(format, args...) }
func (l *logTB) Fatal(args ...any)                 { l.Error(args...) }
func (l *logTB) FailNow()                          { l.failed = true }
func (l *logTB) Fail()                             { l.failed = true }
func (l *logTB) Failed() bool                      { return l.failed }

// TestQuietDraws: a failing rapid check run through quietTB logs the
// failure and the property's own lines, but not rapid's draws, which the
// same check logs without it.
func TestQuietDraws(t *testing.T) {
	old := flag.Lookup("rapid.nofailfile").Value.String()
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("rapid.nofailfile", old)
	prop := func(rt *rapid.T) {
		n := rapid.IntRange(0, 100).Draw(rt, "n")
		if n > 10 {
			rt.Logf("the failure report: n=%d", n)
			rt.Fatalf("n is too large")
		}
	}
	loud, quiet := &logTB{}, &logTB{}
	rapid.Check(loud, prop)
	rapid.Check(quietTB{quiet}, prop)
	count := func(logs []string, s string) int {
		n := 0
		for _, l := range logs {
			if strings.Contains(l, s) {
				n++
			}
		}
		return n
	}
	if !loud.failed || !quiet.failed {
		t.Fatal("the property did not fail")
	}
	if count(loud.logs, "[rapid] draw n") == 0 {
		t.Fatalf("rapid no longer logs its draws through Logf (the filter has nothing to do):\n%s", strings.Join(loud.logs, "\n"))
	}
	if n := count(quiet.logs, "[rapid] draw"); n != 0 {
		t.Errorf("%d draw lines in the quiet log:\n%s", n, strings.Join(quiet.logs, "\n"))
	}
	if count(quiet.logs, "the failure report: n=11") == 0 || count(quiet.logs, "[rapid] failed after") == 0 {
		t.Errorf("the quiet log lost the failure:\n%s", strings.Join(quiet.logs, "\n"))
	}
}
