package sim

import (
	"testing"
)

// TestEventLog: events come back in order and complete whether they fit
// the caller's buffer, spill into chunks, or fill a chunk exactly.
func TestEventLog(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bufCap int
		n      int
	}{
		{"empty", 0, 0},
		{"no buffer, one partial chunk", 0, 7},
		{"no buffer, exact chunks", 0, 2 * chunkLen},
		{"no buffer, many chunks", 0, 3*chunkLen + 5},
		{"fits the buffer", 100, 100},
		{"spills past the buffer", 100, 100 + chunkLen + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf History
			if tc.bufCap > 0 {
				buf = make(History, 0, tc.bufCap)
			}
			l := newEventLog(buf)
			for i := range tc.n {
				l.add(&Event{Seq: i, Actor: "A"})
			}
			h := l.history()
			if len(h) != tc.n {
				t.Fatalf("got %d events, want %d", len(h), tc.n)
			}
			for i, e := range h {
				if e.Seq != i || e.Actor != "A" {
					t.Fatalf("event %d is %+v", i, e)
				}
			}
			if tc.bufCap > 0 && tc.n > tc.bufCap && cap(h) <= len(h) {
				t.Errorf("a reused buffer that spilled came back with no room to grow: cap %d", cap(h))
			}
		})
	}
}
