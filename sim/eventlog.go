package sim

import "sync"

// chunkLen is how many events one pooled chunk of the event log holds
// (512 x 216 bytes: about 110 KB).
const chunkLen = 512

type chunk [chunkLen]Event

// chunks recycles event-log chunks across runs (and goroutines): a
// list of up to maxFreeChunks free ones. A sync.Pool was emptied by the
// collections within a run, so most runs allocated their chunks anew (8%
// of the bytes of a run that keeps its history); the list keeps them,
// about 7 MB at most, for the life of the process.
var chunks struct {
	sync.Mutex
	free []*chunk
}

// maxFreeChunks bounds the free list: a standard 60 s run takes 48.
const maxFreeChunks = 64

// getChunk returns a zero chunk.
func getChunk() *chunk {
	chunks.Lock()
	defer chunks.Unlock()
	if n := len(chunks.free); n > 0 {
		c := chunks.free[n-1]
		chunks.free[n-1] = nil
		chunks.free = chunks.free[:n-1]
		return c
	}
	return new(chunk)
}

// putChunks hands zeroed chunks back, keeping at most maxFreeChunks.
func putChunks(cs []*chunk) {
	chunks.Lock()
	defer chunks.Unlock()
	for _, c := range cs {
		if len(chunks.free) == maxFreeChunks {
			return
		}
		chunks.free = append(chunks.free, c)
	}
}

// eventLog is the history under construction. Events go into the caller's
// buffer (Config.HistoryBuf) while it has room, then into fixed-size
// chunks from a pool; the run's History is joined once, at its final
// length, when the run ends. A growing slice instead allocated about 2.7
// times the final history and copied it on every doubling, which was most
// of a run's allocation.
type eventLog struct {
	buf    History  // the caller's buffer, filled up to its capacity
	chunks []*chunk // full chunks, then the one being filled
	n      int      // events in the last chunk
	total  int
	reuse  bool // the caller passed a buffer: size the result for reuse
}

func newEventLog(buf History) eventLog {
	return eventLog{buf: buf[:0], reuse: buf != nil}
}

func (l *eventLog) add(e *Event) {
	l.total++
	if n := len(l.buf); n < cap(l.buf) {
		l.buf = l.buf[:n+1]
		l.buf[n] = *e
		return
	}
	if len(l.chunks) == 0 || l.n == chunkLen {
		l.chunks = append(l.chunks, getChunk())
		l.n = 0
	}
	l.chunks[len(l.chunks)-1][l.n] = *e
	l.n++
}

// history joins the log into one History and returns the chunks to the
// pool. The log is empty afterwards.
func (l *eventLog) history() History {
	if len(l.chunks) == 0 {
		h := l.buf
		*l = eventLog{}
		return h
	}
	size := l.total
	if l.reuse {
		size += size / 4 // the caller will pass it back: leave room to grow
	}
	h := make(History, 0, size)
	h = append(h, l.buf...)
	clear(l.buf)
	for i, c := range l.chunks {
		n := chunkLen
		if i == len(l.chunks)-1 {
			n = l.n
		}
		h = append(h, c[:n]...)
		clear(c[:n]) // pooled memory must not keep this run's strings alive
	}
	putChunks(l.chunks)
	*l = eventLog{}
	return h
}
