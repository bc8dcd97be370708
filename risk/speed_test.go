package risk

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

var speedFlag = flag.Bool("risk.speed", false, "run TestRiskSpeed: CPU time to a 50% interval (docs/risk.md, Speed)")
var speedRuns = flag.Int("risk.speed.runs", 2000, "TestRiskSpeed's runs per row")
var speedRows = flag.String("risk.speed.rows", "", "TestRiskSpeed's rows to run, comma-separated numbers from 1 (default all)")

// cpuTime is the process's CPU time so far (user and system, every
// thread): what a row costs whatever else the machine runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// speedRow is one configuration of the speed table.
type speedRow struct {
	design string
	ttl    time.Duration
	pr     *Proposal    // nil: the auto method's pilot chooses
	inv    invariant.ID // default mutual-exclusion
	// profile is a profile file (testdata/); "" the built-in profile.
	profile string
}

// TestRiskSpeed measures, for each row, the CPU time of an estimate of
// mutual-exclusion under the built-in profile (or the row's profile file:
// redlock's clock-step scenario) and projects the CPU time
// to a relative 95% half-width of 50%: runs x (half-width / 0.5)^2 at the
// measured CPU per run (the half-width shrinks as 1/sqrt(runs)). A row
// with no violating run has no half-width to project from.
//
// Without -risk.speed (make test) it makes one row, set-px-lua under the
// top-segment pause tilt, with 30 runs, and logs it: the table's code runs
// on every change and its estimate must be well formed; the figures come
// from -risk.speed.
func TestRiskSpeed(t *testing.T) {
	runs := *speedRuns
	printf := func(format string, args ...any) { fmt.Printf(format, args...) }
	if !*speedFlag {
		runs = 30
		printf = func(format string, args ...any) { t.Logf(strings.TrimSuffix(format, "\n"), args...) }
	}
	tilt := func(k sim.FaultKind, b, tl float64) *Proposal {
		return &Proposal{Tilt: Tilt{Kind: k, Boost: b, Tail: tl}, Defensive: DefensiveShare}
	}
	top := func(k sim.FaultKind, b, tl float64) *Proposal {
		pr := tilt(k, b, tl)
		pr.Tilt.Top = true
		return pr
	}
	sharp := func(pr *Proposal, a float64) *Proposal {
		pr.Tilt.Sharp = a
		return pr
	}
	windowed := func(pr *Proposal) *Proposal {
		pr.Tilt.Window = 0.9
		return pr
	}
	// followed: the kind's arrival times, 90% in the windows of the run
	// itself (Tilt.Follow), sizes the profile's.
	followed := func(k sim.FaultKind) *Proposal {
		return &Proposal{Tilt: Tilt{Kind: k, Boost: 1, Window: 0.9, Follow: true}, Defensive: DefensiveShare}
	}
	const steps = "testdata/redlock-clock-steps.json"
	rows := []speedRow{
		{"set-px-lua", time.Second, tilt("", 2, 4), "", ""}, // every kind at once: the weights vanish
		{"set-px-lua", time.Second, nil, "", ""},
		{"set-px-lua", time.Second, tilt(sim.FaultPause, 2, 4), "", ""},
		{"set-px-lua", time.Second, top(sim.FaultPause, 1, 1), "", ""},
		{"set-px-lua", time.Second, top(sim.FaultPause, 2, 2), "", ""},
		{"set-px-lua", 1900 * time.Millisecond, top(sim.FaultPause, 1, 1), "", ""},
		{"set-px-lua", 1990 * time.Millisecond, top(sim.FaultPause, 1, 1), "", ""},
		{"redlock", time.Second, top(sim.FaultPause, 1, 1), "", ""},
		{"redlock", 1900 * time.Millisecond, top(sim.FaultPause, 1, 1), "", ""},
		{"set-px-lua", time.Second, windowed(top(sim.FaultPause, 1, 1)), "", ""},
		{"set-px-lua", 1990 * time.Millisecond, windowed(top(sim.FaultPause, 1, 1)), "", ""},
		{"redlock", time.Second, nil, "", ""},
		{"set-px-lua", 1990 * time.Millisecond, sharp(top(sim.FaultPause, 1, 1), 10), "", ""},
		{"set-px-lua", 1990 * time.Millisecond, sharp(top(sim.FaultPause, 1, 1), 30), "", ""},
		{"set-px-lua", 1990 * time.Millisecond, nil, "", ""},
		{"redlock", time.Second, top(sim.FaultPause, 1, 1), invariant.StaleWrite, ""},
		{"redlock", time.Second, nil, invariant.StaleWrite, ""},
		{"redlock", time.Second, followed(sim.FaultClockJump), "", steps},
		{"redlock", time.Second, tilt(sim.FaultClockJump, 1, 1), "", steps},
		{"redlock", time.Second, nil, "", steps},
	}
	if *speedRows != "" {
		var keep []speedRow
		for _, i := range strings.Split(*speedRows, ",") {
			n, err := strconv.Atoi(i)
			if err != nil || n < 1 || n > len(rows) {
				t.Fatalf("-risk.speed.rows %q: give row numbers 1 to %d", *speedRows, len(rows))
			}
			keep = append(keep, rows[n-1])
		}
		rows = keep
	}
	if !*speedFlag {
		rows = rows[3:4] // set-px-lua, ttl 1s, pauses' top segment
	}
	printf("| design | invariant | profile | ttl | proposal | runs | CPU | CPU/run | per acquisition [95%%] | broken | rel. half-width | CPU to 50%% |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		spec := model.Spec{Design: r.design}
		spec.Options.TTL = r.ttl
		ids := []invariant.ID{cmp.Or(r.inv, invariant.MutualExclusion)}
		prof := Default()
		if r.profile != "" {
			var err error
			if prof, err = ReadProfile(r.profile); err != nil {
				t.Fatal(err)
			}
		}
		start := cpuTime()
		var e Estimate
		var pr Proposal
		if r.pr == nil {
			res, err := Run(Config{Spec: spec, Profile: prof, Runs: runs, Seed: 1, Invariants: ids})
			if err != nil {
				t.Fatal(err)
			}
			e, pr = res.Estimates[0], res.Proposal
		} else {
			sm, err := NewSampler(prof, spec)
			if err != nil {
				t.Fatal(err)
			}
			tl, err := Campaign{Sampler: sm, Proposal: *r.pr, Runs: runs, Seed: 1, Invariants: ids}.Tally()
			if err != nil {
				t.Fatal(err)
			}
			es, err := tl.Estimates(*r.pr, sm.Horizon().Hours())
			if err != nil {
				t.Fatal(err)
			}
			e, pr = es[0], *r.pr
		}
		cpu := cpuTime() - start
		perRun := cpu / time.Duration(runs)
		if !(e.CI95Low <= e.PerAcquisition && e.PerAcquisition <= e.CI95High) || math.IsNaN(e.CI95High) || e.Samples != runs {
			t.Errorf("%s: a malformed estimate %+v of %d runs", r.design, e, runs)
		}
		rel, need := "-", "no violating run"
		if e.Hits > 0 && e.PerAcquisition > 0 {
			h := (e.CI95High - e.CI95Low) / 2 / e.PerAcquisition
			rel = fmt.Sprintf("%.2f", h)
			need = (time.Duration(float64(cpu) * math.Pow(h/0.5, 2))).Round(time.Second).String()
		}
		printf("| %s | %s | %s | %v | %+v | %d | %v | %v | %.3g [%.3g, %.3g] | %d | %s | %s |\n", r.design, ids[0], cmp.Or(prof.Name, "built-in"), r.ttl, pr, runs,
			cpu.Round(time.Second), perRun.Round(100*time.Microsecond), e.PerAcquisition, e.CI95Low, e.CI95High, e.Hits, rel, need)
	}
}
