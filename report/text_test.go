package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"

	"locksim/model"
	"locksim/model/invariant"
)

func TestTextGolden(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			r, meta := f.fn()
			var b bytes.Buffer
			if err := Text(&b, r, TextOptions{Meta: meta}); err != nil {
				t.Fatal(err)
			}
			golden(t, f.name+".txt", b.Bytes())
		})
	}
}

func TestTextColorGolden(t *testing.T) {
	r, meta := gcPause()
	var b bytes.Buffer
	if err := Text(&b, r, TextOptions{Meta: meta, Color: true, Width: 48}); err != nil {
		t.Fatal(err)
	}
	golden(t, "gc-pause-color-48.txt", b.Bytes())
}

// TestTextPlain checks that without Color the report is plain ASCII.
func TestTextPlain(t *testing.T) {
	for _, f := range fixtures {
		r, meta := f.fn()
		var b bytes.Buffer
		if err := Text(&b, r, TextOptions{Meta: meta}); err != nil {
			t.Fatal(err)
		}
		for i, c := range b.Bytes() {
			if c == 0x1b || c >= 0x80 {
				t.Fatalf("%s: byte %d is %#x: want plain ASCII without Color", f.name, i, c)
			}
		}
	}
}

// TestTextDeterministic renders each fixture twice.
func TestTextDeterministic(t *testing.T) {
	for _, f := range fixtures {
		var a, b bytes.Buffer
		r1, m1 := f.fn()
		r2, m2 := f.fn()
		if err := Text(&a, r1, TextOptions{Meta: m1, Color: true}); err != nil {
			t.Fatal(err)
		}
		if err := Text(&b, r2, TextOptions{Meta: m2, Color: true}); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("%s: two renderings differ", f.name)
		}
	}
}

func TestTextWidth(t *testing.T) {
	r, meta := gcPause()
	for _, w := range []int{20, 40, 72, 150} {
		var b bytes.Buffer
		if err := Text(&b, r, TextOptions{Meta: meta, Width: w}); err != nil {
			t.Fatal(err)
		}
		// The lanes sit between two identical tick rows, as wide as the
		// label column plus w; no lane row is wider.
		lines := strings.Split(b.String(), "\n")
		first, last := -1, -1
		for i, l := range lines {
			if strings.Contains(l, "|-") {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first < 0 || last <= first+1 {
			t.Fatalf("width %d: no lanes between tick rows in\n%s", w, b.String())
		}
		tick := lines[first]
		if got := len(tick) - strings.Index(tick, "|"); got != w {
			t.Errorf("width %d: the tick row is %d columns wide", w, got)
		}
		for _, l := range lines[first+1 : last] {
			if len(l) > len(tick) {
				t.Errorf("width %d: row %q is wider than the axis", w, l)
			}
		}
	}
	var b bytes.Buffer
	if err := Text(&b, r, TextOptions{Width: 10}); err == nil || !strings.Contains(err.Error(), "report: text width 10") {
		t.Errorf("Text with width 10: got error %v, want a width error", err)
	}
	if err := Text(&b, nil, TextOptions{}); err == nil {
		t.Error("Text(nil) returned no error")
	}
}

func TestCanvasCol(t *testing.T) {
	cv := canvas{width: 10, end: time.Second}
	for _, tc := range []struct {
		at   time.Duration
		want int
	}{
		{-1, 0}, {0, 0}, {99 * time.Millisecond, 0}, {100 * time.Millisecond, 1},
		{999 * time.Millisecond, 9}, {time.Second, 9}, {2 * time.Second, 9},
	} {
		if got := cv.col(tc.at); got != tc.want {
			t.Errorf("col(%v) = %d, want %d", tc.at, got, tc.want)
		}
	}
}

// TestPlaceMarks: marks sharing a column keep their time order; at the
// row's right edge the occupant steps left so a later mark still shows.
func TestPlaceMarks(t *testing.T) {
	cv := canvas{width: 6, end: 600 * time.Millisecond}
	ms := time.Millisecond
	for _, tc := range []struct {
		name  string
		marks []mark
		want  string
	}{
		{"apart", []mark{{Kind: markAcquired, At: 0}, {Kind: markRelease, At: 300 * ms}}, "a..r.."},
		{"same column, room right", []mark{{Kind: markWriteOK, At: 200 * ms}, {Kind: markRelease, At: 250 * ms}}, "..Wr.."},
		{"same column at the right edge", []mark{{Kind: markWriteOK, At: 590 * ms}, {Kind: markRelease, At: 599 * ms}}, "....Wr"},
		{"three in one column", []mark{{Kind: markAcquired, At: 300 * ms}, {Kind: markWriteOK, At: 310 * ms}, {Kind: markRelease, At: 320 * ms}}, "..aWr."},
	} {
		cells := make([]cell, cv.width)
		for i := range cells {
			cells[i] = cell{ch: '.'}
		}
		placeMarks(cells, cv, tc.marks)
		got := make([]byte, len(cells))
		for i, c := range cells {
			got[i] = c.ch
		}
		if string(got) != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestTickLabel(t *testing.T) {
	for _, tc := range []struct {
		d, step time.Duration
		want    string
	}{
		{0, time.Second, "0"},
		{200 * time.Millisecond, 200 * time.Millisecond, "0.2s"},
		{1500 * time.Millisecond, 500 * time.Millisecond, "1.5s"},
		{20 * time.Millisecond, 10 * time.Millisecond, "20ms"},
		{2500 * time.Microsecond, 500 * time.Microsecond, "2500us"},
		{3 * time.Second, time.Second, "3s"},
	} {
		if got := tickLabel(tc.d, tc.step); got != tc.want {
			t.Errorf("tickLabel(%v, %v) = %q, want %q", tc.d, tc.step, got, tc.want)
		}
	}
}

func TestOwnerOf(t *testing.T) {
	values := map[string]string{"A:x1": "A", "c2:y": "c2"}
	for _, tc := range []struct{ v, want string }{
		{"A:x1", "A"}, {"c2:y", "c2"}, {"B:zz", "B"}, {"A:x1=2", "A"}, {"A:x1=1,B:q=1", "A"},
		{"plain", ""}, {"", ""},
	} {
		if got := ownerOf(values, tc.v); got != tc.want {
			t.Errorf("ownerOf(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestVerdicts(t *testing.T) {
	r := &model.Result{Spec: model.Spec{Design: "set-px-lua", Options: model.Options{TTL: time.Second}},
		Violations: []invariant.Violation{{Invariant: invariant.MutualExclusion}, {Invariant: invariant.MutualExclusion}, {Invariant: "custom"}}}
	list := func(r *model.Result) []string {
		var got []string
		for _, v := range verdicts(r) {
			got = append(got, fmt.Sprintf("%s %s %d %v %s", v.Invariant, v.Verdict, v.Violations, v.Counted, v.Why))
		}
		return got
	}
	want := []string{
		"mutual-exclusion broken 2 true ",
		"stale-write held 0 true ",
		"lost-update held 0 true ",
		"token-unique held 0 true ",
		"fencing not-checked 0 true the resource is not fenced",
		"liveness held 0 true ",
		"reentrancy not-checked 0 true the design is not reentrant",
		"custom broken 1 true ",
	}
	if diff := cmp.Diff(want, list(r)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	// Asked only about the data: mutual exclusion is still shown broken,
	// but not counted.
	r.Count([]invariant.ID{invariant.LostUpdate})
	if got := list(r)[:3]; !cmp.Equal(got, []string{"mutual-exclusion broken 2 false ", "stale-write held 0 false ", "lost-update held 0 true "}) {
		t.Errorf("counted verdicts: %q", got)
	}
	// A run that stopped with an error has no verdicts.
	r.Err = errors.New("stopped")
	for _, v := range verdicts(r) {
		if v.Verdict != verdictNone {
			t.Errorf("errored run: %s is %s, want %s", v.Invariant, v.Verdict, verdictNone)
		}
	}
}

// A run that stopped with an error prints no verdicts: not "No violations
// found", not "held".
func TestTextErroredRunHasNoVerdicts(t *testing.T) {
	r := &model.Result{Spec: model.Spec{Design: "set-px-lua", Clients: []string{"A"}}, Err: errors.New("sim: run stopped at the event limit")}
	var b strings.Builder
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "No violations found") || strings.Contains(out, " held") || !strings.Contains(out, "No verdicts") {
		t.Errorf("errored run reads as judged:\n%s", out)
	}
}
