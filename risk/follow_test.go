package risk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
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
// weight fails it. Ten seeds: the interval of all their runs together
// must contain the exact value and the ten estimates' mean lie within 3
// standard errors of it (a single seed's interval, on a few violating
// runs of unequal weights, is approximate: the log says how many do).
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
		{"pause, time alone", sim.FaultPause, time.Millisecond, 2 * 1800, p.Pauses.Size, 150, Tilt{Kind: sim.FaultPause, Boost: 1, Window: 0.5, Follow: true}, true},
		{"pause over 2s, tail draws", sim.FaultPause, 2 * time.Second, 2 * 1800, p.Pauses.Size, 600, Tilt{Kind: sim.FaultPause, Boost: 1, Tail: 1, Window: 0.9, Follow: true}, false},
		{"partition, time alone", sim.FaultPartition, 0, 0.01, p.Partitions.Size, 600, Tilt{Kind: sim.FaultPartition, Boost: 1, Window: 0.9, Follow: true}, false},
	} {
		if !c.quick && !*longValidation {
			continue // make long's cases (-risk.validate)
		}
		t.Run(c.name, func(t *testing.T) {
			exact := 1 - math.Exp(-c.rate*L*c.size.Survival(c.d))
			pr := Proposal{Tilt: c.tilt, Defensive: DefensiveShare}
			covered := 0
			var mean, se2 float64
			ids := []invariant.ID{invariant.MutualExclusion}
			pooled := NewTally(ids)
			const seeds = 10
			for seed := uint64(1); seed <= seeds; seed++ {
				tl, err := Campaign{Sampler: sm, Proposal: pr, Runs: c.runs, Seed: seed, Judge: inSpan(c.kind, c.d, from, to), Invariants: ids}.Tally()
				if err != nil {
					t.Fatal(err)
				}
				if err := pooled.Merge(tl); err != nil {
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
			all, err := pooled.Estimates(pr, 1)
			if err != nil {
				t.Fatal(err)
			}
			e := all[0]
			t.Logf("exact %.4g; mean of %d estimates %.4g (se %.2g); %d intervals cover it; all %d runs together %.4g [%.4g, %.4g]",
				exact, seeds, mean, math.Sqrt(se2), covered, seeds*c.runs, e.PerAcquisition, e.CI95Low, e.CI95High)
			if e.CI95Low > exact || exact > e.CI95High {
				t.Errorf("the interval of all %d runs [%.4g, %.4g] does not contain the exact %.4g", seeds*c.runs, e.CI95Low, e.CI95High, exact)
			}
			if math.Abs(mean-exact) > 3*math.Sqrt(se2) {
				t.Errorf("the mean estimate %.4g is more than 3 standard errors from the exact %.4g: biased", mean, exact)
			}
		})
	}
}

// TestFollowedWindowsAgreeWithPlain estimates configurations where plain
// Monte Carlo reaches (1e-4 per acquisition and above) both by plain
// sampling and by the followed windows of one kind (Tilt.Follow, arrival
// times alone), and requires overlapping 95% intervals: the redlock
// scenario of the speed table with its clock steps far more frequent,
// set-px-lua and redlock under the validation table's frequent jumps and
// crashes. -risk.validate (make long) prints the table (docs/risk.md,
// Validation).
//
// make test runs the set-px-lua row with 120 runs a side (a few CPU
// seconds), so the agreement is checked on every change; make long all
// three with their full runs.
func TestFollowedWindowsAgreeWithPlain(t *testing.T) {
	steps, err := ReadProfile("testdata/redlock-clock-steps.json")
	if err != nil {
		t.Fatal(err)
	}
	steps.ClockJumps.PerHour = 600
	steps.Name = "redlock-clock-steps, 600 steps a node-hour"
	var table []string
	for _, v := range []struct {
		design string
		p      Profile
		kind   sim.FaultKind
		inv    invariant.ID
		runs   int
	}{
		{"redlock", steps, sim.FaultClockJump, invariant.MutualExclusion, 600},
		{"set-px-lua", validationProfile(jumps), sim.FaultClockJump, invariant.MutualExclusion, 600},
		{"redlock", validationProfile(crashes), sim.FaultNodeCrash, invariant.MutualExclusion, 400},
	} {
		if !*longValidation {
			if v.design != "set-px-lua" {
				continue
			}
			v.runs = 120
		}
		t.Run(v.design+"/"+string(v.kind), func(t *testing.T) {
			sm, err := NewSampler(v.p, model.Spec{Design: v.design})
			if err != nil {
				t.Fatal(err)
			}
			ids := []invariant.ID{v.inv}
			var got [2]Estimate
			for i, pr := range []Proposal{PlainProposal, {Tilt: Tilt{Kind: v.kind, Boost: 1, Window: 0.9, Follow: true}, Defensive: DefensiveShare}} {
				tl, err := Campaign{Sampler: sm, Proposal: pr, Runs: v.runs, Seed: 5, Invariants: ids}.Tally()
				if err != nil {
					t.Fatal(err)
				}
				es, err := tl.Estimates(pr, sm.Horizon().Hours())
				if err != nil {
					t.Fatal(err)
				}
				got[i] = es[0]
			}
			p, s := got[0], got[1]
			line := fmt.Sprintf("| %s | %s | %s | %.3g [%.3g, %.3g] | %.3g [%.3g, %.3g] | %d, %d |", v.design, v.p.Name, v.inv,
				p.PerAcquisition, p.CI95Low, p.CI95High, s.PerAcquisition, s.CI95Low, s.CI95High, p.Hits, s.Hits)
			table = append(table, line)
			t.Log(line)
			requireOverlap(t, p, s, "followed windows")
		})
	}
	if *longValidation {
		fmt.Println("| design | profile | invariant | plain per acquisition [95%] | followed windows [95%] | runs broken (plain, followed) |\n|---|---|---|---|---|---|")
		fmt.Println(strings.Join(table, "\n"))
	}
}

// TestFollowedWindowsAreDeterministicAndShardable: the same seed and index
// draw the same schedule under followed windows (the run they follow is
// seeded too), and a campaign's shards merge into the whole's estimate
// (the same bytes: the sums are exact).
func TestFollowedWindowsAreDeterministicAndShardable(t *testing.T) {
	sm, err := NewSampler(shortProfile(), model.Spec{Design: "set-px-lua"})
	if err != nil {
		t.Fatal(err)
	}
	pr := Proposal{Tilt: Tilt{Kind: sim.FaultPause, Boost: 1, Window: 0.9, Follow: true}, Defensive: DefensiveShare}
	for i := range 4 {
		a, b := sm.Draw(7, i, pr), sm.Draw(7, i, pr)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("two draws of run %d differ:\n%s\n%s", i, ja, jb)
		}
	}
	ids := []invariant.ID{invariant.MutualExclusion}
	whole, err := Campaign{Sampler: sm, Proposal: pr, Runs: 12, Seed: 3, Invariants: ids}.Tally()
	if err != nil {
		t.Fatal(err)
	}
	merged := NewTally(ids)
	for sh := range 3 {
		part, err := Campaign{Sampler: sm, Proposal: pr, Runs: 12, Seed: 3, Shard: sh, Shards: 3, Invariants: ids}.Tally()
		if err != nil {
			t.Fatal(err)
		}
		if err := merged.Merge(part); err != nil {
			t.Fatal(err)
		}
	}
	ew, err := whole.Estimates(pr, 1)
	if err != nil {
		t.Fatal(err)
	}
	em, err := merged.Estimates(pr, 1)
	if err != nil {
		t.Fatal(err)
	}
	jw, _ := json.Marshal(ew)
	jm, _ := json.Marshal(em)
	if !bytes.Equal(jw, jm) {
		t.Fatalf("the shards merge to other bytes than the whole:\n%s\n%s", jw, jm)
	}
}

// TestScenarioProfileIsSourced: the speed table's redlock scenario parses,
// and every part of it it sets has a source or the word scenario.
func TestScenarioProfileIsSourced(t *testing.T) {
	p, err := ReadProfile("testdata/redlock-clock-steps.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"workload", "pauses", "partitions", "node_crashes", "clock_jumps", "clock_drift_ppm", "network", "horizon"} {
		if p.Sources[f] == "" {
			t.Errorf("sources.%s: missing", f)
		}
	}
	if !strings.HasPrefix(p.Sources["clock_jumps"], "Scenario") || p.ClockJumps == nil || p.ClockJumps.BackwardFraction != 0 {
		t.Errorf("clock_jumps: the scenario's forward steps and their reason are missing: %+v, %q", p.ClockJumps, p.Sources["clock_jumps"])
	}
}
