package engine

import (
	"runtime"
	"sync"
)

// ordered runs work(j) for j = 0, 1, ... below n on `workers` goroutines
// and calls emit(j, result) in order of j, on the caller's goroutine.
// Before starting job j it asks more(j) (nil: always); once more says no,
// or emit returns false, no new job starts, the jobs already started
// finish, and their results are emitted in order if emit had not stopped.
// At most 4 x workers results wait for an earlier one, so memory stays
// flat however large n is, and what is emitted does not depend on
// `workers`. It returns how many jobs were started: the runs a budget
// reached.
func ordered[T any](n, workers int, more func(j int) bool, work func(j int) T, emit func(j int, r T) bool) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, MaxWorkers, max(n, 1)) // no more goroutines than jobs
	window := 4 * workers
	type item struct {
		j int
		r T
	}
	jobs := make(chan int)
	results := make(chan item, window)
	slots := make(chan struct{}, window) // a job holds a slot until emitted
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- item{j, work(j)}
			}
		}()
	}
	started := make(chan int, 1)
	go func() {
		j := 0
	feed:
		for ; j < n; j++ {
			if more != nil && !more(j) {
				break
			}
			select {
			case slots <- struct{}{}:
			case <-quit:
				break feed
			}
			select {
			case jobs <- j:
			case <-quit:
				<-slots
				break feed
			}
		}
		started <- j
		close(jobs)
		wg.Wait()
		close(results)
	}()
	pending := make(map[int]T, window)
	next, stopped := 0, false
	for it := range results {
		if stopped {
			<-slots
			continue
		}
		pending[it.j] = it.r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if !emit(next, r) {
				stopped = true
				close(quit)
			}
			next++
			<-slots
			if stopped {
				break
			}
		}
		if stopped {
			for range pending {
				<-slots
			}
			clear(pending)
		}
	}
	return <-started
}
