package main

import "sync"

// ordered runs work(j) for j in [0, n) on `workers` goroutines and calls
// emit(j, result) in order of j, on the caller's goroutine. At most
// window results wait for an earlier one, so memory stays flat however
// large n is, and the emitted sequence does not depend on `workers`.
func ordered[T any](n, workers int, work func(j int) T, emit func(j int, r T)) {
	window := 4 * workers
	type item struct {
		j int
		r T
	}
	jobs := make(chan int)
	results := make(chan item, window)
	slots := make(chan struct{}, window) // a job holds a slot until emitted
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- item{j, work(j)}
			}
		}()
	}
	go func() {
		for j := 0; j < n; j++ {
			slots <- struct{}{}
			jobs <- j
		}
		close(jobs)
		wg.Wait()
		close(results)
	}()
	pending := make(map[int]T, window)
	next := 0
	for it := range results {
		pending[it.j] = it.r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			emit(next, r)
			next++
			<-slots
		}
	}
}
