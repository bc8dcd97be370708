package risk

import (
	"math"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// inSpan is the indicator of a fault of kind larger than d (a clock jump:
// a step of more than d either way) starting in [from, to).
func inSpan(kind sim.FaultKind, d, from, to time.Duration) func(Sample, uint64) Outcome {
	return func(s Sample, _ uint64) Outcome {
		o := Outcome{Attempts: 1, Weight: s.Weight}
		for _, f := range s.Spec.Faults {
			if f.Kind == kind && max(f.Dur, f.By, -f.By) > d && f.At >= from && f.At < to {
				o.Involved = map[invariant.ID]int{invariant.MutualExclusion: 1}
			}
		}
		return o
	}
}

// TestFollowedWindowsContainExactProbabilities checks the windows that
// follow the run (Tilt.Follow) against probabilities derived by hand:
// a fault of a Poisson process of rate λ (all its processes) larger than
// d starts in a span of length L with probability 1 - exp(-λ L S(d)).
// The indicators count a fault only in the run's first 20ms, where both
// clients start acquiring and every window begins, so the windows put
// several times the profile's share of arrivals there and a wrong time
// density biases the estimate: dropping the window's term from the
// weight fails it. Five seeds, each interval must contain
// the exact value in at least four, the mean within 3 standard errors.
// make test runs the pauses; -risk.validate (make long) adds partitions
// and the tail draws.
func TestFollowedWindowsContainExactProbabilities(t *testing.T) {
	p := shortProfile()
	sm, err := NewSampler(p, model.Spec{Design: "set-px-lua"})
	if err != nil {
		t.Fatal(err)
	}
	from, to := time.Duration(0), 20*time.Millisecond
	L := (to - from).Hours()
	for _, c := range []struct {
		name  string
		kind  sim.FaultKind
		d     time.Duration
		rate  float64 // arrivals per hour, all processes
		size  Dist
		runs  int
		tilt  Tilt
		quick bool
	}{
		{"pause, time alone", sim.FaultPause, time.Millisecond, 2 * 1800, p.Pauses.Size, 300, Tilt{Kind: sim.FaultPause, Boost: 1, Window: 0.5, Follow: true}, true},
		{"pause over 2s, tail draws", sim.FaultPause, 2 * time.Second, 2 * 1800, p.Pauses.Size, 2000, Tilt{Kind: sim.FaultPause, Boost: 1, Tail: 1, Window: 0.9, Follow: true}, false},
		{"partition, time alone", sim.FaultPartition, 0, 0.01, p.Partitions.Size, 2000, Tilt{Kind: sim.FaultPartition, Boost: 1, Window: 0.9, Follow: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !c.quick && !*longValidation {
				t.Skip("pass -risk.validate (make long)")
			}
			exact := 1 - math.Exp(-c.rate*L*c.size.Survival(c.d))
			pr := Proposal{Tilt: c.tilt, Defensive: DefensiveShare}
			covered := 0
			var mean, se2 float64
			const seeds = 10
			for seed := uint64(1); seed <= seeds; seed++ {
				tl, err := Campaign{Sampler: sm, Proposal: pr, Runs: c.runs, Seed: seed, Judge: inSpan(c.kind, c.d, from, to),
					Invariants: []invariant.ID{invariant.MutualExclusion}}.Tally()
				if err != nil {
					t.Fatal(err)
				}
				es, err := tl.Estimates(pr, 1)
				if err != nil {
					t.Fatal(err)
				}
				e := es[0]
				if e.CI95Low <= exact && exact <= e.CI95High {
					covered++
				}
				se := (e.CI95High - e.CI95Low) / 2 / z95
				mean += e.PerAcquisition / seeds
				se2 += se * se / (seeds * seeds)
			}
			t.Logf("exact %.4g; mean of %d estimates %.4g (se %.2g); %d intervals cover it", exact, seeds, mean, math.Sqrt(se2), covered)
			if covered < seeds-2 {
				t.Errorf("only %d of %d intervals contain the exact %.4g", covered, seeds, exact)
			}
			if math.Abs(mean-exact) > 3*math.Sqrt(se2) {
				t.Errorf("the mean estimate %.4g is more than 3 standard errors from the exact %.4g: biased", mean, exact)
			}
		})
	}
}
