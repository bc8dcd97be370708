package engine

import (
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"locksim/internal/cputime"
	"locksim/model"
	"locksim/scenarios"
)

// BenchmarkCheckWorkers is 32 set-px-lua check runs per op (random
// faults, history reused: what Check's workers run, without the shrink)
// fanned out by ordered on 1 and on 2 workers: the CPU a run costs with
// the fan-out's handoffs (run it at GOMAXPROCS=1 and 2 with benchab's
// -procs: a worker's CPU per run should not grow with a second core) and,
// by wall time on two idle cores, the speed-up of a second worker (at
// GOMAXPROCS=1 the two share the one core).
func BenchmarkCheckWorkers(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			c := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: scenarios.Gen{Swarm: true}, Runs: 32, Seed: 1}, Workers: w}
			b.ReportAllocs()
			c0 := cputime.Process()
			for i := 0; i < b.N; i++ {
				ordered(c.Runs, w, nil, func(j int) error {
					s, seed := c.RunSpec(j)
					_, err := model.Verdict(s, seed)
					return err
				}, func(_ int, err error) bool {
					if err != nil {
						b.Fatal(err)
					}
					return true
				})
			}
			// The whole process's CPU per run, every thread counted: the
			// figure a second core must not raise.
			b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N*c.Runs), "cpu-ns/run")
		})
	}
}

// ordered emits every job's result once, in order of j, on the caller's
// goroutine, whatever the worker count and however long each job takes.
func TestOrderedEmitsInOrder(t *testing.T) {
	const jobs = 3 * waitingPerWorker * 8 // more jobs than the window holds, at every worker count
	for _, workers := range []int{1, 2, 3, 8} {
		var got []int
		n := ordered(jobs, workers, nil, func(j int) int {
			spin(j * 7 % 13) // jobs of uneven length finish out of order
			return j * j
		}, func(j, r int) bool {
			if r != j*j {
				t.Errorf("workers=%d: job %d emitted %d", workers, j, r)
			}
			got = append(got, j)
			return true
		})
		if n != jobs || len(got) != jobs || !sortedRun(got) {
			t.Errorf("workers=%d: started %d, emitted %v", workers, n, got)
		}
	}
}

// Once emit says no, nothing more is emitted and no new job starts.
func TestOrderedStopsWhenEmitSaysNo(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		var started atomic.Int64
		var got []int
		n := ordered(1000, workers, nil, func(j int) int {
			started.Add(1)
			return j
		}, func(j, _ int) bool {
			got = append(got, j)
			return j < 10
		})
		if len(got) != 11 || got[10] != 10 {
			t.Errorf("workers=%d: emitted %v, want 0..10", workers, got)
		}
		// Jobs already started when emit said no finish; at most the
		// window's worth of them.
		if n < 11 || n > 11+4*workers || int(started.Load()) != n {
			t.Errorf("workers=%d: %d started (%d ran), want 11..%d", workers, n, started.Load(), 11+4*workers)
		}
	}
}

// more is asked in order of j, one call at a time; once it says no, no
// job from there on starts and the jobs before it are all emitted.
func TestOrderedAsksMoreInOrder(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		var asked []int
		var emitted []int
		n := ordered(1000, workers, func(j int) bool {
			asked = append(asked, j) // a race here fails under -race
			return j < 37
		}, func(j int) int { return j }, func(j, _ int) bool {
			emitted = append(emitted, j)
			return true
		})
		if n != 37 || len(emitted) != 37 || !sortedRun(emitted) || !sortedRun(asked) || len(asked) != 38 {
			t.Errorf("workers=%d: started %d, asked %v, emitted %v", workers, n, asked, emitted)
		}
	}
}

// At most waitingPerWorker x workers results wait for an earlier one: a
// slow first job holds the others back instead of letting results pile
// up.
func TestOrderedBoundsWaitingResults(t *testing.T) {
	const workers = 3
	release := make(chan struct{})
	var started atomic.Int64
	done := make(chan int)
	go func() {
		done <- ordered(1000, workers, nil, func(j int) int {
			started.Add(1)
			if j == 0 {
				<-release
			}
			return j
		}, func(int, int) bool { return true })
	}()
	const window = waitingPerWorker * workers
	for i := 0; i < 200 && started.Load() < window; i++ {
		time.Sleep(time.Millisecond) // wall-clock ok: waits for goroutines, asserts nothing about time
	}
	time.Sleep(20 * time.Millisecond) // wall-clock ok: room for a wrong implementation to overrun
	if s := started.Load(); s > window {
		t.Errorf("%d jobs started while job 0 ran, want at most %d", s, window)
	}
	close(release)
	if n := <-done; n != 1000 {
		t.Errorf("started %d, want 1000", n)
	}
}

// While one worker is held up by a long job, the other keeps running
// jobs: the window of waiting results holds at least 50 of them (a
// set-px-lua run can take 10x the mean, and a busy machine deschedules a
// worker's thread for longer still). With a window of 4 per worker the
// second worker stopped after 7 and slept until the long job ended.
func TestOrderedLongJobDoesNotStallTheOthers(t *testing.T) {
	const others = 50
	var done atomic.Int64
	var got int64
	ordered(4*others, 2, nil, func(j int) int {
		if j == 0 {
			// wall-clock ok: a timeout for a wrong implementation, which
			// would wait here for ever; nothing is asserted about time.
			for i := 0; i < 2000 && done.Load() < others; i++ {
				time.Sleep(time.Millisecond)
			}
			got = done.Load()
			return j
		}
		done.Add(1)
		return j
	}, func(int, int) bool { return true })
	if got < others {
		t.Errorf("while job 0 ran, %d other jobs finished, want at least %d", got, others)
	}
}

// One worker runs every job on the caller's goroutine: no goroutine to
// hand a run to, so a second core is never woken for it.
func TestOrderedOneWorkerStartsNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	ordered(50, 1, nil, func(j int) int {
		if g := runtime.NumGoroutine(); g != before {
			t.Errorf("job %d: %d goroutines, want %d", j, g, before)
		}
		return j
	}, func(int, int) bool { return true })
}

func sortedRun(xs []int) bool {
	for i, x := range xs {
		if x != i {
			return false
		}
	}
	return true
}

// spin burns about k microseconds of CPU without the clock.
func spin(k int) int {
	s := 0
	for i := 0; i < k*300; i++ {
		s += i ^ (s >> 3)
	}
	return s
}
