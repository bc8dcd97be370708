package risk

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"locksim/model"
	"locksim/model/invariant"
)

// validation is one configuration of the plain-versus-importance-sampling
// table (docs/risk.md, "Validation"): a design and a profile where plain
// Monte Carlo reaches the risk (1e-4 per acquisition and above).
type validation struct {
	design  string
	faults  string // the profile's fault lines
	inv     invariant.ID
	runs    int
	quick   bool // also in make test
	options func(*model.Spec)
}

func validationProfile(faults string) Profile {
	section := "20ms"
	if strings.Contains(faults, "node_crashes") || strings.Contains(faults, "clock_jumps") {
		// A node must come back, or its clock jump, while the holder
		// still holds and the other client waits.
		section = "600ms"
	}
	p, err := Parse(strings.NewReader(`{"name": "validate", "horizon": "3s",
		"workload": {"clients": 2, "acquisitions_per_second": 10, "section": {"fixed": "` + section + `"}}, ` + faults + `}`))
	if err != nil {
		panic(err)
	}
	return p
}

const (
	heavyPauses = `"pauses": {"per_hour": 3600, "size": {"quantiles": {"0": "1ms", "0.9": "50ms", "0.99": "900ms", "1": "4s"}}}`
	crashes     = `"node_crashes": {"per_hour": 1800, "size": {"quantiles": {"0": "20ms", "1": "300ms"}}}`
	jumps       = `"clock_jumps": {"per_hour": 600, "size": {"quantiles": {"0": "100ms", "1": "3s"}}, "backward_fraction": 0}`
	partitions  = `"partitions": {"per_hour": 600, "size": {"quantiles": {"0": "100ms", "1": "3s"}}}`
)

var validations = []validation{
	{design: "set-px-lua", faults: heavyPauses, inv: invariant.MutualExclusion, runs: 600, quick: true},
	{design: "set-px-lua", faults: heavyPauses, inv: invariant.StaleWrite, runs: 600},
	{design: "fenced", faults: heavyPauses, inv: invariant.MutualExclusion, runs: 600},
	{design: "watchdog", faults: heavyPauses, inv: invariant.MutualExclusion, runs: 600},
	{design: "setnx-expire", faults: heavyPauses, inv: invariant.MutualExclusion, runs: 600},
	{design: "set-px-lua", faults: crashes, inv: invariant.MutualExclusion, runs: 600, quick: true},
	{design: "fenced", faults: crashes, inv: invariant.TokenUnique, runs: 600},
	{design: "set-px-lua", faults: jumps, inv: invariant.MutualExclusion, runs: 600},
	{design: "redlock", faults: crashes, inv: invariant.MutualExclusion, runs: 400},
	{design: "set-px-lua", faults: partitions + `, ` + heavyPauses, inv: invariant.MutualExclusion, runs: 600},
}

// TestImportanceSamplingAgreesWithPlain estimates each configuration both
// ways and requires overlapping 95% intervals. make test runs the quick
// ones; -risk.validate (make long) all, and prints the table.
func TestImportanceSamplingAgreesWithPlain(t *testing.T) {
	var table []string
	for _, v := range validations {
		if !v.quick && !*longValidation {
			continue
		}
		name := fmt.Sprintf("%s/%s", v.design, v.inv)
		t.Run(name, func(t *testing.T) {
			spec := model.Spec{Design: v.design}
			var got [2]Estimate
			for i, m := range []Method{Plain, Auto} {
				res, err := Run(Config{Spec: spec, Profile: validationProfile(v.faults), Runs: v.runs, Seed: 5, Method: m, Invariants: []invariant.ID{v.inv}})
				if err != nil {
					t.Fatal(err)
				}
				got[i] = res.Estimates[0]
			}
			p, s := got[0], got[1]
			line := fmt.Sprintf("| %s | %s | %.3g [%.3g, %.3g] | %.3g [%.3g, %.3g] | %d, %d |", v.design, v.inv,
				p.PerAcquisition, p.CI95Low, p.CI95High, s.PerAcquisition, s.CI95Low, s.CI95High, p.Hits, s.Hits)
			table = append(table, line)
			t.Log(line)
			requireOverlap(t, p, s, "importance sampling")
		})
	}
	if *longValidation {
		fmt.Println("| design | invariant | plain per acquisition [95%] | importance sampling [95%] | runs broken (plain, IS) |\n|---|---|---|---|---|")
		fmt.Println(strings.Join(table, "\n"))
	}
}

var windowOnly = flag.String("risk.windows.only", "", "TestDangerWindowsSkew's proposals to run, numbers from 1 (default all)")
var windowStudy = flag.Bool("risk.windows", false, "run TestDangerWindowsSkew: the danger-window proposal against plain sampling over many seeds (docs/risk.md)")

// TestDangerWindowsSkew estimates set-px-lua's mutual-exclusion under the
// heavy pauses from many seeds, by plain sampling and by the danger-window
// proposal, and prints each one's mean, median and the share of runs'
// weight that carries the windowed estimate: whether the windows' low
// estimates are a bias (means apart) or a skew (means together, medians
// apart). -risk.windows; docs/risk.md, "Tried and set aside". Either way
// the windows' pooled interval must overlap plain sampling's (the windows
// are unbiased); without -risk.windows (make test) only those two
// proposals run, from 4 seeds of 300 runs.
func TestDangerWindowsSkew(t *testing.T) {
	p := validationProfile(heavyPauses)
	spec := model.Spec{Design: "set-px-lua"}
	sm, err := NewSampler(p, spec)
	if err != nil {
		t.Fatal(err)
	}
	ids := []invariant.ID{invariant.MutualExclusion}
	seeds, runs := 12, 600
	windowed := Proposal{Tilt: Tilt{Boost: 1, Tail: 1, Window: 0.9}, Defensive: DefensiveShare}
	proposals := []Proposal{PlainProposal, windowed, {Tilt: Tilt{Boost: 1, Tail: 1}, Defensive: DefensiveShare}}
	for _, tl := range PilotTilts(p)[1:] {
		proposals = append(proposals, Proposal{Tilt: tl, Defensive: DefensiveShare})
	}
	printf := func(format string, args ...any) { fmt.Printf(format, args...) }
	if !*windowStudy {
		seeds, runs = 4, 300
		proposals = proposals[:2]
		printf = func(format string, args ...any) { t.Logf(strings.TrimSuffix(format, "\n"), args...) }
	}
	pooled := map[Proposal]Estimate{}
	if *windowOnly != "" {
		var keep []Proposal
		for _, i := range strings.Split(*windowOnly, ",") {
			var n int
			fmt.Sscan(i, &n)
			keep = append(keep, proposals[n-1])
		}
		proposals = keep
	}
	for _, pr := range proposals {
		var ests []float64
		var mean float64
		whole := NewTally(ids)
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			tl, err := Campaign{Sampler: sm, Proposal: pr, Runs: runs, Seed: 100 + seed, Invariants: ids}.Tally()
			if err != nil {
				t.Fatal(err)
			}
			es, err := tl.Estimates(pr, sm.Horizon().Hours())
			if err != nil {
				t.Fatal(err)
			}
			ests = append(ests, es[0].PerAcquisition)
			mean += es[0].PerAcquisition / float64(seeds)
			if err := whole.Merge(tl); err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(ests)
		all, err := whole.Estimates(pr, sm.Horizon().Hours())
		if err != nil {
			t.Fatal(err)
		}
		pooled[pr] = all[0]
		printf("%+v: mean of %d estimates %.3g, median %.3g, min %.3g, max %.3g; all %d runs together %.3g [%.3g, %.3g], %d broken\n",
			pr.Tilt, seeds, mean, (ests[seeds/2-1]+ests[seeds/2])/2, ests[0], ests[seeds-1], seeds*runs, all[0].PerAcquisition, all[0].CI95Low, all[0].CI95High, all[0].Hits)
	}
	pl, okp := pooled[PlainProposal]
	w, okw := pooled[windowed]
	if okp && okw {
		requireOverlap(t, pl, w, "danger windows (pooled)")
	}
}

// requireOverlap fails unless plain sampling saw a violation (or the
// comparison judges nothing) and its 95% interval overlaps the other
// method's.
func requireOverlap(t *testing.T, plain, other Estimate, method string) {
	t.Helper()
	if plain.Hits == 0 {
		t.Fatalf("plain sampling saw no violation: the comparison judges nothing")
	}
	if plain.CI95High < other.CI95Low || other.CI95High < plain.CI95Low {
		t.Errorf("the intervals do not overlap: plain [%.3g, %.3g], %s [%.3g, %.3g]", plain.CI95Low, plain.CI95High, method, other.CI95Low, other.CI95High)
	}
}
