package logcheck

import (
	"bufio"
	"container/heap"
	"io"
	"math"
	"time"

	"github.com/pkg/errors"
)

// MaxLine bounds one line of input; a longer line is bad input.
const MaxLine = 64 << 10

// fileReader streams one file's events in time order: it holds back up to
// a reorder window of events (by time) and sorts them, so events that
// arrive out of order by less than the window come out in order. An event
// older than one already let out is an error naming its line.
type fileReader struct {
	name    string
	sc      *bufio.Scanner
	n       int
	window  time.Duration
	buf     eventHeap
	maxSeen int64
	maxLine int
	out     int64 // time of the last event let out
	outLine int
	started bool
	done    bool
	seq     int
	// Lines counts lines read (blank ones too), Events events parsed.
	Events int
}

func newFileReader(name string, r io.Reader, window time.Duration) *fileReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLine)
	return &fileReader{name: name, sc: sc, window: window, maxSeen: math.MinInt64}
}

// next returns the next event in time order; ok false at the end.
func (f *fileReader) next() (Event, bool, error) {
	for !f.done && (len(f.buf) == 0 || f.maxSeen-f.buf[0].e.Time < int64(f.window)) {
		if !f.sc.Scan() {
			if err := f.sc.Err(); err != nil {
				if err == bufio.ErrTooLong {
					return Event{}, false, errors.Errorf("%s:%d: a line longer than %d bytes", f.name, f.n+1, MaxLine)
				}
				return Event{}, false, errors.Errorf("%s: %v", f.name, err)
			}
			f.done = true
			break
		}
		f.n++
		b := f.sc.Bytes()
		if len(trimSpace(b)) == 0 {
			continue
		}
		e, err := ParseLine(b, f.name, f.n)
		if err != nil {
			return Event{}, false, err
		}
		f.Events++
		if f.started && e.Time < f.out || f.maxLine > 0 && e.Time < f.maxSeen-int64(f.window) {
			prev, line := f.out, f.outLine
			if f.maxLine > 0 && e.Time < f.maxSeen-int64(f.window) {
				prev, line = f.maxSeen, f.maxLine
			}
			return Event{}, false, errors.Errorf("%s:%d: event at %s is %v older than the event at line %d: "+
				"out of order by more than the reorder window (%v); raise --reorder or sort the file",
				f.name, f.n, fmtTime(e.Time), time.Duration(prev-e.Time), line, f.window)
		}
		if e.Time > f.maxSeen {
			f.maxSeen, f.maxLine = e.Time, f.n
		}
		f.seq++
		heap.Push(&f.buf, item{e, f.seq})
	}
	if len(f.buf) == 0 {
		return Event{}, false, nil
	}
	it := heap.Pop(&f.buf).(item)
	f.started, f.out, f.outLine = true, it.e.Time, it.e.Line
	return it.e, true, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

type item struct {
	e   Event
	seq int
}

// eventHeap orders by time, then by arrival (a stable sort).
type eventHeap []item

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].e.Time != h[j].e.Time {
		return h[i].e.Time < h[j].e.Time
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(item)) }
func (h *eventHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// Input is one named log.
type Input struct {
	Name string
	R    io.Reader
}

// merger merges the files' ordered streams by logged time (ties: the
// file given first).
type merger struct {
	files []*fileReader
	heads []Event
	has   []bool
}

func newMerger(ins []Input, window time.Duration) (*merger, error) {
	m := &merger{}
	for _, in := range ins {
		f := newFileReader(in.Name, in.R, window)
		e, ok, err := f.next()
		if err != nil {
			return nil, err
		}
		m.files = append(m.files, f)
		m.heads = append(m.heads, e)
		m.has = append(m.has, ok)
	}
	return m, nil
}

func (m *merger) next() (Event, bool, error) {
	best := -1
	for i := range m.files {
		if m.has[i] && (best < 0 || m.heads[i].Time < m.heads[best].Time) {
			best = i
		}
	}
	if best < 0 {
		return Event{}, false, nil
	}
	e := m.heads[best]
	var err error
	m.heads[best], m.has[best], err = m.files[best].next()
	return e, true, err
}

func fmtTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
