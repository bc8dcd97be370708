package engine

import (
	"runtime"
	"strconv"
	"testing"

	"locksim/model"
	"locksim/scenarios"
)

// BenchmarkCheckWorkers is 32 set-px-lua check runs per op (random
// faults, history reused: what Check's workers run, without the shrink)
// fanned out by ordered on 1 and on 2 workers: the CPU a run costs with
// the fan-out's handoffs (run it at GOMAXPROCS=1 and 2 with benchab's
// -procs: a worker's CPU per run should not grow with a second core) and,
// by wall time on two idle cores, the speed-up of a second worker.
func BenchmarkCheckWorkers(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			if w > runtime.GOMAXPROCS(0) {
				b.Skip("more workers than GOMAXPROCS")
			}
			c := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: scenarios.Gen{Swarm: true}, Runs: 32, Seed: 1}, Workers: w}
			b.ReportAllocs()
			c0 := cpuTime()
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
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N*c.Runs), "cpu-ns/run")
		})
	}
}
