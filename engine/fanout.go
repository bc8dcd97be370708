package engine

import (
	"runtime"
	"sync"
)

// ordered runs work(j) for j = 0, 1, ... below n on `workers` goroutines
// and calls emit(j, result) in order of j, on the caller's goroutine.
// Before starting job j it asks more(j) (nil: always), in order of j and
// one call at a time; once more says no, or emit returns false, no new
// job starts, the jobs already started finish, and their results are
// emitted in order if emit had not stopped. At most waitingPerWorker x
// workers results wait for an earlier one, so memory stays flat however
// large n is, and what is emitted does not depend on `workers`. It
// returns how many jobs were started: the runs a budget reached.
//
// The caller's goroutine is one of the workers, and the others take
// their next job from a counter under a mutex, not from a channel: a
// worker that finishes a run starts the next one without waking another
// goroutine, so an idle second core is not woken once per run (with one
// worker nothing but the caller's goroutine runs). A goroutine sleeps
// only when the window of waiting results is full, or at the end.
func ordered[T any](n, workers int, more func(j int) bool, work func(j int) T, emit func(j int, r T) bool) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, MaxWorkers, max(n, 1)) // no more goroutines than jobs
	if workers == 1 {
		j := 0
		for j < n {
			if more != nil && !more(j) {
				break
			}
			r := work(j)
			j++
			if !emit(j-1, r) {
				break
			}
		}
		return j
	}
	f := &fanout[T]{n: n, window: waitingPerWorker * workers, more: more, pending: make(map[int]T)}
	f.cond.L = &f.mu
	for range workers - 1 {
		go f.helper(work)
	}
	f.lead(work, emit)
	return f.next
}

// waitingPerWorker bounds, per worker, the results that may wait for an
// earlier one (ordered's window). The caller's goroutine emits only
// between its own runs, so the window must hold what the other workers
// finish meanwhile: its longest run (set-px-lua: p99 0.9 ms, up to 2 ms,
// against 0.2 ms on average), a collection's pause, or its thread
// descheduled by a busy machine. At 4 per worker (8 results, about 1.7 ms
// of set-px-lua runs) the second worker filled it and slept 1,001-1,234
// times per 20,000 runs (six rounds, load 17-38), and the caller's
// goroutine made 59-65% of the runs; at 64 the second worker slept 3-17
// times and the caller's goroutine made 47-52% (docs/speed.md, "Worker
// scaling"). A result is a run's outcome or a cell's tally, a few hundred
// bytes, so memory stays flat.
const waitingPerWorker = 64

// fanout is ordered's shared state, guarded by mu.
type fanout[T any] struct {
	mu   sync.Mutex
	cond sync.Cond // a result stored, a result emitted, or stop set

	n, window int
	more      func(j int) bool
	next      int       // the next job to start
	front     int       // the next job to emit
	running   int       // jobs started and not yet stored
	stop      bool      // no new job starts
	halted    bool      // emit said no: results are dropped
	pending   map[int]T // results waiting for an earlier one
	sleepers  int       // goroutines in cond.Wait
}

// take starts the next job if one may start now: ok is false when none
// will start any more (stop set or n reached), wait true when one may
// start once the window has room. Under mu.
func (f *fanout[T]) take() (j int, ok, wait bool) {
	if f.stop || f.next >= f.n {
		return 0, false, false
	}
	if f.next-f.front >= f.window {
		return 0, false, true
	}
	if f.more != nil && !f.more(f.next) {
		f.stop = true
		f.wake()
		return 0, false, false
	}
	j = f.next
	f.next++
	f.running++
	return j, true, false
}

// put stores job j's result. Under mu.
func (f *fanout[T]) put(j int, r T) {
	f.running--
	if !f.halted {
		f.pending[j] = r
	}
	f.wake()
}

// wake wakes the goroutines waiting on cond, if any: no wake-up when none
// sleeps. Under mu.
func (f *fanout[T]) wake() {
	if f.sleepers > 0 {
		f.cond.Broadcast()
	}
}

// sleep waits on cond. Under mu.
func (f *fanout[T]) sleep() {
	f.sleepers++
	f.cond.Wait()
	f.sleepers--
}

// helper is a worker other than the caller's goroutine: it runs jobs
// until none will start any more.
func (f *fanout[T]) helper(work func(j int) T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		j, ok, wait := f.take()
		switch {
		case ok:
			f.mu.Unlock()
			r := work(j)
			f.mu.Lock()
			f.put(j, r)
		case wait:
			f.sleep()
		default:
			return
		}
	}
}

// lead is the caller's goroutine: it emits every result whose turn has
// come, runs jobs as the helpers do, and returns once every started job
// is stored and emitted (or dropped after emit said no). A panic in work,
// emit or more stops the helpers from starting new jobs before it goes on
// up.
func (f *fanout[T]) lead(work func(j int) T, emit func(j int, r T) bool) {
	f.mu.Lock()
	locked, finished := true, false
	defer func() {
		if finished {
			return
		}
		if !locked {
			f.mu.Lock()
		}
		f.stop, f.halted = true, true
		f.wake()
		f.mu.Unlock()
	}()
	for {
		for !f.halted {
			r, ok := f.pending[f.front]
			if !ok {
				break
			}
			delete(f.pending, f.front)
			f.mu.Unlock()
			locked = false
			goOn := emit(f.front, r)
			f.mu.Lock()
			locked = true
			f.front++
			if !goOn {
				f.stop, f.halted = true, true
				clear(f.pending)
			}
			f.wake()
		}
		j, ok, wait := f.take()
		switch {
		case ok:
			f.mu.Unlock()
			locked = false
			r := work(j)
			f.mu.Lock()
			locked = true
			f.put(j, r)
		case wait || f.running > 0:
			f.sleep()
		default:
			// Nothing runs and nothing will start: every started job
			// was emitted (they are 0..next-1, stored in order above)
			// or dropped.
			finished = true
			f.mu.Unlock()
			return
		}
	}
}
