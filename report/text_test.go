package report

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
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
	if err := Text(&b, r, TextOptions{Width: 10}); err == nil || !strings.Contains(err.Error(), "text width 10") {
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

// drawRow places marks on an empty row of width columns over end and
// returns the row ('.' where no mark is) and the Seqs drawn under each '+'.
func drawRow(width int, end time.Duration, marks []mark) (string, [][]int) {
	cv := canvas{width: width, end: end}
	cells := make([]cell, width)
	for i := range cells {
		cells[i] = cell{ch: '.'}
	}
	crowded := placeMarks(cells, cv, marks)
	got := make([]byte, len(cells))
	for i, c := range cells {
		got[i] = c.ch
	}
	return string(got), crowded
}

// TestPlaceMarks: a row's marks read left to right in time order and none
// is hidden; a later mark moves right of an earlier one in its column, the
// earlier ones move left at the row's edge or when a crowd needs room, and
// only a row that truly lacks room collapses marks into '+'.
func TestPlaceMarks(t *testing.T) {
	ms := time.Millisecond
	seq := func(marks ...mark) []mark {
		for i := range marks {
			marks[i].Seq = i
		}
		return marks
	}
	// The sequence from the issue: acquired, release, write, acquired,
	// write, release within two columns (a=rWaWr once showed a release
	// before its write).
	crowd := func(at ...time.Duration) []mark {
		kinds := []string{markAcquired, markRelease, markWriteOK, markAcquired, markWriteOK, markRelease}
		var out []mark
		for i, k := range kinds {
			out = append(out, mark{Kind: k, At: at[i]})
		}
		return seq(out...)
	}
	for _, tc := range []struct {
		name    string
		width   int
		end     time.Duration
		marks   []mark
		want    string
		crowded [][]int
	}{
		{"apart", 6, 600 * ms, seq(mark{Kind: markAcquired, At: 0}, mark{Kind: markRelease, At: 300 * ms}), "a..r..", nil},
		{"same column, room right", 6, 600 * ms, seq(mark{Kind: markWriteOK, At: 200 * ms}, mark{Kind: markRelease, At: 250 * ms}), "..Wr..", nil},
		{"same column at the right edge", 6, 600 * ms, seq(mark{Kind: markWriteOK, At: 590 * ms}, mark{Kind: markRelease, At: 599 * ms}), "....Wr", nil},
		{"three in one column", 6, 600 * ms, seq(mark{Kind: markAcquired, At: 300 * ms}, mark{Kind: markWriteOK, At: 310 * ms}, mark{Kind: markRelease, At: 320 * ms}), "...aWr", nil},
		{"given out of order", 6, 600 * ms, []mark{{Kind: markRelease, At: 320 * ms, Seq: 3}, {Kind: markAcquired, At: 300 * ms, Seq: 1}, {Kind: markWriteOK, At: 300 * ms, Seq: 2}}, "...aWr", nil},
		{"crowd in the middle", 12, 1200 * ms, crowd(300*ms, 305*ms, 310*ms, 320*ms, 400*ms, 410*ms), "..arWaWr....", nil},
		{"crowd at the right edge", 8, 800 * ms, crowd(500*ms, 510*ms, 600*ms, 610*ms, 700*ms, 799*ms), "..arWaWr", nil},
		{"crowd at the left edge", 8, 800 * ms, crowd(0, 1*ms, 2*ms, 100*ms, 101*ms, 200*ms), "arWaWr..", nil},
		// Marks stay within maxShift columns of their time: six marks in
		// the last column have four columns, the last three share a '+'.
		{"crowd in the last column", 8, 800 * ms, crowd(750*ms, 760*ms, 770*ms, 780*ms, 790*ms, 799*ms), "....arW+", [][]int{{3, 4, 5}}},
		{"not drawn in text", 6, 600 * ms, seq(mark{Kind: markRelease, At: 300 * ms}, mark{Kind: markReleased, At: 300 * ms}), "...r..", nil},
		{"no room: '+' stands for the rest", 6, 600 * ms, seq(
			mark{Kind: markAcquired, At: 200 * ms}, mark{Kind: markRelease, At: 200 * ms}, mark{Kind: markWriteOK, At: 200 * ms},
			mark{Kind: markRenew, At: 200 * ms}, mark{Kind: markLeaseLost, At: 200 * ms}, mark{Kind: markCrash, At: 200 * ms},
			mark{Kind: markRestart, At: 200 * ms}, mark{Kind: markError, At: 200 * ms}), "arWRL+", [][]int{{5, 6, 7}}},
	} {
		got, crowded := drawRow(tc.width, tc.end, tc.marks)
		if got != tc.want || !cmp.Equal(crowded, tc.crowded) {
			t.Errorf("%s: %s with %v under '+', want %s with %v", tc.name, got, crowded, tc.want, tc.crowded)
		}
	}
}

// TestPlaceMarksNeverHides draws crowded random rows and checks that
// reading a row left to right gives every mark in time order: each drawn
// glyph is the next mark (within maxShift columns of its own), and each
// '+' stands for two or more consecutive marks, exactly those reported.
func TestPlaceMarksNeverHides(t *testing.T) {
	var kinds []string
	for k := range markGlyph {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 2000 {
		width := 20 + rng.IntN(30)
		end := time.Second
		n := 1 + rng.IntN(2*width)
		var marks []mark
		for range n {
			// Clusters: most marks near one of a few instants.
			at := time.Duration(rng.IntN(4)) * end / 4
			at += time.Duration(rng.Int64N(int64(end / 20)))
			if rng.IntN(4) == 0 {
				at = time.Duration(rng.Int64N(int64(end)))
			}
			marks = append(marks, mark{Kind: kinds[rng.IntN(len(kinds))], At: min(at, end)})
		}
		sortMarks(marks)
		for i := range marks {
			marks[i].Seq = i
		}
		given := slices.Clone(marks)
		rng.Shuffle(len(given), func(i, j int) { given[i], given[j] = given[j], given[i] })
		row, crowds := drawRow(width, end, given)
		cv := canvas{width: width, end: end}
		i, plus := 0, 0
		for col := 0; col < width; col++ {
			switch ch := row[col]; {
			case ch == '.':
			case ch == '+':
				if plus >= len(crowds) {
					t.Fatalf("round %d: more '+' than crowds in %s", round, row)
				}
				crowd := crowds[plus]
				plus++
				if len(crowd) < 2 {
					t.Fatalf("round %d: '+' at column %d stands for %v in %s", round, col, crowd, row)
				}
				for _, s := range crowd {
					if i >= len(marks) || marks[i].Seq != s {
						t.Fatalf("round %d: '+' at column %d stands for %v out of time order in %s", round, col, crowd, row)
					}
					i++
				}
			default:
				if i >= len(marks) || markGlyph[marks[i].Kind] != ch {
					t.Fatalf("round %d: column %d shows %c out of time order in %s", round, col, ch, row)
				}
				if d := col - cv.col(marks[i].At); d > maxShift || d < -maxShift {
					t.Fatalf("round %d: %c drawn %d columns from its time in %s", round, ch, d, row)
				}
				i++
			}
		}
		if i != len(marks) || plus != len(crowds) {
			t.Fatalf("round %d: %d of %d marks shown in %s", round, i, len(marks), row)
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
	// A client acquired: the run is no vacuous one whatever counts.
	r := &model.Result{Spec: model.Spec{Design: "set-px-lua", Options: model.Options{TTL: time.Second}},
		History:    sim.History{{Actor: "A", Kind: history.KindAcquired, Key: "lock", Value: "A:1", N: 1}},
		Violations: []invariant.Violation{{Invariant: invariant.MutualExclusion}, {Invariant: invariant.MutualExclusion}, {Invariant: "custom"}}}
	list := func(r *model.Result) []string {
		var got []string
		for _, v := range verdicts(r, history.New(r.History)) {
			got = append(got, fmt.Sprintf("%s %s %d %v %s", v.Invariant, v.Verdict, v.Violations, v.Counted, v.Why))
		}
		return got
	}
	want := []string{
		"mutual-exclusion broken 2 true ",
		"stale-write held 0 true ",
		"lost-update held 0 true ",
		"token-unique not-checked 0 true the design grants no fencing tokens",
		"fencing not-checked 0 true the resource is not fenced",
		"liveness held 0 true ",
		"reentrancy not-checked 0 true the design is not reentrant",
		"fifo not-checked 0 true the design promises no grant order",
		"rw-exclusion not-checked 0 true the design takes no shared holds",
		"premature-loss not-checked 0 true the design promises its holder no validity: it trusts the lease until release",
		"acquire-deadline not-checked 0 true the design declares no tolerance for its acquire deadline",
		"available not-checked 0 true the design claims to tolerate no fault",
		"custom broken 1 true ",
	}
	if diff := cmp.Diff(want, list(r)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	// Asked only about the data: mutual exclusion is still shown broken,
	// but not counted.
	r.CountOnly([]invariant.ID{invariant.LostUpdate})
	if got := list(r)[:3]; !cmp.Equal(got, []string{"mutual-exclusion broken 2 false ", "stale-write held 0 false ", "lost-update held 0 true "}) {
		t.Errorf("counted verdicts: %q", got)
	}
	// A run that stopped with an error has no verdicts.
	r.Err = errors.New("stopped")
	for _, v := range verdicts(r, history.New(r.History)) {
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

// TestTextCrowdedRowListsItsEvents: where a row has no room, '+' stands
// for several events; the legend says so and the key events list each of
// them, even those (successful renewals) not listed otherwise.
func TestTextCrowdedRowListsItsEvents(t *testing.T) {
	const va = "A:aaaa"
	h := sim.History{
		{At: 0, Actor: "A", Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: va, Dur: time.Second},
		{At: us(1000), Actor: "A", Task: "main", Kind: history.KindAcquired, Peer: "r1", Key: "lock", Value: va, N: 1},
	}
	for i := range 8 {
		h = append(h, sim.Event{At: us(int64(2000 + 1000*i)), Actor: "A", Task: "watchdog", Kind: history.KindRenew, Key: "lock", Value: va, N: 1})
	}
	h = append(h,
		sim.Event{At: us(11000), Actor: "A", Task: "main", Kind: history.KindRelease, Key: "lock", Value: va},
		sim.Event{At: time.Second, Actor: "A", Task: "main", Kind: sim.KindTaskEnd})
	r := &model.Result{Spec: model.Spec{Design: "watchdog", Clients: []string{"A"}}, History: finish(h)}
	var b strings.Builder
	if err := TimelineText(&b, r, 20); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	row := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "A ") {
			row = l
		}
	}
	if !strings.Contains(row, "aRR+") {
		t.Errorf("A's row is %q, want the acquired mark, two renewals, then '+'", row)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "+ several events in one column (each listed in the key events)") {
		t.Errorf("the legend does not explain '+':\n%s", out)
	}
	// The '+' stands for six renewals and the release; renewals that
	// worked are no key events on their own, but these must be listed.
	if got := strings.Count(out, "A's watchdog renewed lock"); got != 6 {
		t.Errorf("the key events list %d renewals, want the 6 under '+':\n%s", got, out)
	}
}
