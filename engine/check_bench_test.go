package engine

import (
	"testing"

	"locksim/model"
	"locksim/scenarios"
)

// BenchmarkEngineCheck is a whole check of 100 random runs per op on one
// worker (the campaign loop, the tally, the verdict, the run seam's nil
// path into model.Verdict), for the A/B comparison of a change to the
// campaign code (make bench-quick BENCH=BenchmarkEngineCheck).
func BenchmarkEngineCheck(b *testing.B) {
	c := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: scenarios.Gen{Swarm: true}, Runs: 100, Seed: 1}, Workers: 1}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res, err := Check(c)
		if err != nil || res.Runs != 100 {
			b.Fatal(err, res)
		}
	}
}
