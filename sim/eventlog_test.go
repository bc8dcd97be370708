package sim

import (
	"runtime"
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

// TestChunksOutliveCollections: the chunks a run's log handed back are
// the next run's, however many collections ran in between (a sync.Pool
// dropped them at the second), and the free list keeps at most
// maxFreeChunks of them, zeroed.
func TestChunksOutliveCollections(t *testing.T) {
	l := newEventLog(nil)
	for i := range 3 * chunkLen {
		l.add(&Event{Seq: i, Actor: "A", Note: "kept?"})
	}
	used := map[*chunk]bool{}
	for _, c := range l.chunks {
		used[c] = true
	}
	l.history()
	runtime.GC()
	runtime.GC()
	for range 3 {
		c := getChunk()
		if !used[c] {
			t.Fatalf("a chunk of the last run was not reused after two collections")
		}
		for i := range c {
			if c[i].Actor != "" || c[i].Note != "" {
				t.Fatalf("a reused chunk still holds event %d: %+v", i, c[i])
			}
		}
	}
	many := make([]*chunk, maxFreeChunks+5)
	for i := range many {
		many[i] = new(chunk)
	}
	putChunks(many)
	if n := len(chunks.free); n > maxFreeChunks {
		t.Errorf("the free list holds %d chunks, more than %d", n, maxFreeChunks)
	}
}
