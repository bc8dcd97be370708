package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// lineForm is what Line keeps of an event, so that ParseLine(e.Line())
// must give back exactly lineForm(e): times cut to the microsecond (toward
// zero, as FormatTime does), no task "main", arguments cut as quoteArgs
// cuts them, Seq 0.
func lineForm(e Event) Event {
	us := func(d time.Duration) time.Duration { return d / time.Microsecond * time.Microsecond }
	e.Seq, e.At, e.Local, e.Dur = 0, us(e.At), us(e.Local), us(e.Dur)
	if e.Task == "main" {
		e.Task = ""
	}
	if e.Args != nil {
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			if len(a) > 64 {
				a = a[:61] + "..."
			}
			args[i] = a
		}
		e.Args = args
	}
	return e
}

// checkRoundTrip fails unless every event of h parses back from its line
// to its lineForm, and Text -> ParseHistory -> Text is the identity.
func checkRoundTrip(t *testing.T, h History) {
	t.Helper()
	for _, e := range h {
		got, err := ParseLine(e.Line())
		if err != nil {
			t.Fatalf("ParseLine(%q): %v", e.Line(), err)
		}
		if diff := cmp.Diff(lineForm(e), got); diff != "" {
			t.Fatalf("ParseLine(%q) (-want +got):\n%s", e.Line(), diff)
		}
	}
	back, err := ParseHistory(h.Text())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h.Text(), back.Text()); diff != "" {
		t.Fatalf("Text -> ParseHistory -> Text (-want +got):\n%s", diff)
	}
	for i, e := range back {
		if e.Seq != i {
			t.Fatalf("event %d has Seq %d", i, e.Seq)
		}
	}
}

// Real runs of the simulator's own tests: contention, a pause, a crash
// and restart of a node, a partition. package sim_test runs the catalogue
// scenarios (history_parse_scenarios_test.go).
func TestParseLineRoundTripsRuns(t *testing.T) {
	contend := oneNode(
		ClientConfig{Name: "A", Main: lockLoop(3, time.Second, 20*ms)},
		ClientConfig{Name: "B", Main: lockLoop(3, time.Second, 20*ms)},
	)
	faulty := oneNode(
		ClientConfig{Name: "A", Main: lockLoop(4, 200*ms, 50*ms)},
		ClientConfig{Name: "B", Main: lockLoop(4, 200*ms, 50*ms)},
	)
	faulty.Faults = []Fault{
		{At: 30 * ms, Kind: FaultPause, Target: "A", Dur: 300 * ms},
		{At: 100 * ms, Kind: FaultNodeCrash, Target: "r1", Dur: 50 * ms},
		{At: 400 * ms, Kind: FaultPartition, A: []string{"B"}, B: []string{"r1"}, Dur: 100 * ms},
	}
	for name, cfg := range map[string]Config{"contend": contend, "faulty": faulty} {
		t.Run(name, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				h, _ := Run(cfg, seed) // a run that stops with an error still has a history
				if len(h) == 0 {
					t.Fatal("empty history")
				}
				checkRoundTrip(t, h)
			}
		})
	}
}

// Every field, with the forms Line writes for it.
func TestParseLineFields(t *testing.T) {
	full := Event{
		At: 1050 * time.Millisecond, Actor: "A", Task: "watchdog", Kind: "renew", Peer: "r1,r2",
		Args: []string{"EVAL", "if redis.call('GET',KEYS[1]) then", "1", "lock", ""}, Reply: "(error) ERR no such key",
		Key: "lock", Value: "A:1=2", Token: -3, N: 42, Dur: -1500 * time.Microsecond, Note: "a \"quoted\"\tnote",
		Local: 2*time.Hour + time.Microsecond,
	}
	tests := []struct {
		line string
		want Event
	}{
		{full.Line(), full},
		{"0.000000s r1        expire         key=lock value=A:1 local=0.000000s",
			Event{Actor: "r1", Kind: "expire", Key: "lock", Value: "A:1"}},
		{"-0.500000s fault partition note=\"r1,A | r2,B\" local=-0.500000s",
			Event{At: -500 * time.Millisecond, Actor: "fault", Kind: "partition", Note: "r1,A | r2,B", Local: -500 * time.Millisecond}},
		// Shorter times, an explicit main task, a reply that runs to the
		// last field.
		{"1.5s A/main reply reply=(integer) 1 local=2s",
			Event{At: 1500 * time.Millisecond, Actor: "A", Task: "main", Kind: "reply", Reply: "(integer) 1", Local: 2 * time.Second}},
		{"0.000000001s A x dur=0.000000001s local=0s", Event{At: 1, Actor: "A", Kind: "x", Dur: 1}},
	}
	for _, tt := range tests {
		got, err := ParseLine(tt.line)
		if err != nil {
			t.Errorf("ParseLine(%q): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseLine(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
	// Line cuts a long argument; the cut form parses back.
	long := Event{Actor: "A", Kind: "call", Args: []string{"SET", strings.Repeat("x", 100)}}
	got, err := ParseLine(long.Line())
	if err != nil || got.Args[1] != strings.Repeat("x", 61)+"..." {
		t.Errorf("long argument: %v %q", err, got.Args)
	}
}

func TestParseLineErrors(t *testing.T) {
	tests := []struct{ line, want string }{
		{"", "event line has no time (a line is: time actor[/task] kind [field=value ...] local=time)"},
		{"0s A", "event line has no kind (a line is: time actor[/task] kind [field=value ...] local=time)"},
		{"0s A acquired", "event line has no local= (every line ends with local=time, the actor's clock)"},
		{"0s A local=0s", `"local=0s" is not an event kind (a line is: time actor[/task] kind [field=value ...] local=time)`},
		{"1.05 A acquired local=0s", `event time: "1.05" is not a time in seconds (like 1.050000s)`},
		{"1.0000000001s A x local=0s", `event time: "1.0000000001s" is not a time in seconds (like 1.050000s)`},
		{"99999999999s A x local=0s", `event time: time "99999999999s" is out of range`},
		{"0s A/ x local=0s", `actor "A/": want a name, or name/task`},
		{"0s /t x local=0s", `actor "/t": want a name, or name/task`},
		{"0s A x vaule=A:1 local=0s", `unknown field "vaule=A:1" (the fields, in order: peer args reply key value token n dur note local)`},
		{"0s A x key=lock junk local=0s", `unknown field "junk" (the fields, in order: peer args reply key value token n dur note local)`},
		{"0s A x value=v key=lock local=0s", "field key= out of order or repeated (the fields, in order: peer args reply key value token n dur note local)"},
		{"0s A x key=a key=b local=0s", "field key= out of order or repeated (the fields, in order: peer args reply key value token n dur note local)"},
		{"0s A x key= value=v local=0s", "field key=: empty value (leave the field out instead)"},
		{"0s A x token=1.5 local=0s", `field token=: "1.5" is not an integer in range`},
		{"0s A x n=99999999999999999999 local=0s", `field n=: "99999999999999999999" is not an integer in range`},
		{"0s A x dur=5ms local=0s", `field dur=: "5ms" is not a time in seconds (like 1.050000s)`},
		{"0s A x note=hello local=0s", `field note=: want a Go-quoted string ("...")`},
		{`0s A x note="hello local=0s`, `field note=: unterminated or malformed quoted string "hello local=0s`},
		{`0s A x note="a"local=0s`, "field note= is not followed by a space and local="},
		{"0s A x args=SET local=0s", "field args=: want a list in brackets, [SET lock v]"},
		{"0s A x args=[] local=0s", "field args=: empty list (leave the field out instead)"},
		{"0s A x args=[SET lock local=0s", "field args=: list [SET lock local=0s has no closing ]"},
		{"0s A x args=[SET  lock] local=0s", `field args=: empty argument in [SET  lock] local=0s (an empty one is written "")`},
		{`0s A x args=["a"b] local=0s`, `field args=: want a space or ] after an argument in ["a"b] local=0s`},
		{`0s A x args=["a] local=0s`, `field args=: malformed quoted argument "a] local=0s`},
		{"0s A x reply= key=k local=0s", "field reply=: empty value (leave the field out instead)"},
		{"0s A x reply=ok  key=k local=0s", `field reply=: reply "ok " starts or ends with a space`},
		{"0s A x local=0s trailing", `text after local=: " trailing" (local= ends the line)`},
		{"0s A x local=", "field local=: empty value (leave the field out instead)"},
		{"0s A x\nlocal=0s", "event line holds a line break"},
		{strings.Repeat("x", MaxLineBytes+1), "event line is 65537 bytes, longer than the limit of 65536"},
	}
	for _, tt := range tests {
		_, err := ParseLine(tt.line)
		if err == nil {
			t.Errorf("ParseLine(%q) = nil error, want %q", tt.line, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("ParseLine(%q):\n got: %s\nwant: %s", tt.line, err, tt.want)
		}
	}
}

func TestParseHistory(t *testing.T) {
	h, err := ParseHistory("0s A x local=0s\n\n  \n1s B y key=k local=1s\n")
	if err != nil {
		t.Fatal(err)
	}
	want := History{{Seq: 0, Actor: "A", Kind: "x"}, {Seq: 1, At: time.Second, Actor: "B", Kind: "y", Key: "k", Local: time.Second}}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("ParseHistory (-want +got):\n%s", diff)
	}
	if h, err := ParseHistory(""); err != nil || h != nil {
		t.Errorf("ParseHistory(\"\") = %v, %v; want nil, nil", h, err)
	}
	_, err = ParseHistory("0s A x local=0s\r\n\n0s A x key=k\n")
	if want := "line 3: event line has no local= (every line ends with local=time, the actor's clock)"; err == nil || err.Error() != want {
		t.Errorf("ParseHistory error = %v, want %s", err, want)
	}
	_, err = ParseHistory(strings.Repeat("\n", MaxHistoryLines+1))
	if want := "history has 250001 lines, more than the limit of 250000"; err == nil || err.Error() != want {
		t.Errorf("ParseHistory error = %v, want %s", err, want)
	}
}

// FuzzParseLine: ParseLine never panics, and what it accepts is stable:
// Line of the parsed event parses to an event whose Line is the same.
func FuzzParseLine(f *testing.F) {
	seeds := []string{
		"0.050000s A         acquired       peer=r1 key=lock value=A:1 n=1 local=0.050000s",
		`1.050000s A/watchdog renew         peer=r1,r2 args=[EVAL "a b" "" 1 lock] reply=(error) ERR x key=lock value=A:1 token=-3 n=1 dur=-0.001500s note="a \"q\"" local=7200.000001s`,
		"-0.5s fault partition note=\"r1,A | r2,B\" local=0s",
		"0s A x reply=(integer) 1 local=0s",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseLine(s)
		if err != nil {
			return
		}
		line := e.Line()
		e2, err := ParseLine(line)
		if err != nil {
			t.Fatalf("ParseLine(%q) gave an event whose line %q does not parse: %v", s, line, err)
		}
		if diff := cmp.Diff(lineForm(e), e2); diff != "" {
			t.Fatalf("ParseLine(%q) then Line %q then ParseLine (-want +got):\n%s", s, line, diff)
		}
		if line2 := e2.Line(); line2 != line {
			t.Fatalf("Line is not stable: %q then %q", line, line2)
		}
	})
}
