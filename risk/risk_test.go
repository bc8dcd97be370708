package risk

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

var longValidation = flag.Bool("risk.validate", false, "run the whole plain-versus-importance-sampling validation table (make long)")

func TestSumIsExactWhateverTheOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 2000)
	for i := range xs {
		xs[i] = (r.Float64() - 0.3) * math.Pow(10, float64(r.IntN(40)-20))
	}
	exact := new(big.Float).SetPrec(2000)
	for _, x := range xs {
		exact.Add(exact, big.NewFloat(x).SetPrec(2000))
	}
	want, _ := exact.Float64()
	for round := range 5 {
		r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		var s Sum
		var a, b Sum
		for i, x := range xs {
			s.Add(x)
			if i%3 == round%3 {
				a.Add(x)
			} else {
				b.Add(x)
			}
		}
		a.Merge(b)
		if s.Value() != want || a.Value() != want {
			t.Fatalf("round %d: sum %v, merged %v, exact %v", round, s.Value(), a.Value(), want)
		}
	}
}

func TestDistQuantilesAndHistogram(t *testing.T) {
	var d Dist
	if err := json.Unmarshal([]byte(`{"min":"1ms","histogram":[{"le":"10ms","count":90},{"le":"1s","count":10}]}`), &d); err != nil {
		t.Fatal(err)
	}
	if got := d.Quantile(0.9); got != 10*time.Millisecond {
		t.Errorf("p90 %v, want 10ms", got)
	}
	// Log-uniform from 10ms to 1s: the middle of the top 10% is 100ms.
	if got := d.Quantile(0.95); got < 99*time.Millisecond || got > 101*time.Millisecond {
		t.Errorf("p95 %v, want 100ms", got)
	}
	if s := d.Survival(100 * time.Millisecond); math.Abs(s-0.05) > 1e-9 {
		t.Errorf("P(>100ms) = %v, want 0.05", s)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back Dist
	if err := json.Unmarshal(b, &back); err != nil || back.Quantile(0.95) != d.Quantile(0.95) {
		t.Errorf("round trip %s: %v", b, err)
	}
}

func TestProfileErrorsNameTheField(t *testing.T) {
	base := string(defaultProfile)
	for _, c := range []struct{ edit, want string }{
		{`"clients": 3`, `"clients": 1`},
		{`"acquisitions_per_second": 10`, `"acquisitions_per_second": -1`},
		{`"per_hour": 360`, `"per_hour": "often"`},
		{`"per_hour": 360`, `"per_hour": 1e9`},
		{`"horizon": "30s"`, `"horizon": "3 days"`},
		{`"clock_drift_ppm": 50`, `"clock_drift_ppm": 50, "clock_drfit": 1`},
		{`"0.5": "10s"`, `"0.5": "10m"`},
		{`"backward_fraction": 0.5`, `"backward_fraction": 2`},
	} {
		in := strings.Replace(base, c.edit, c.want, 1)
		if in == base {
			t.Fatalf("edit %q found nothing", c.edit)
		}
		_, err := Parse(strings.NewReader(in))
		if err == nil {
			t.Errorf("%s: no error", c.want)
			continue
		}
		field := strings.Trim(strings.SplitN(c.want, ":", 2)[0], `" `)
		if field == "0.5" {
			field = "partitions: size"
		}
		if field == "clock_drift_ppm" {
			field = "clock_drfit"
		}
		if field == "per_hour" {
			field = "per_hour"
		}
		if !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %q does not name %s", c.want, err, field)
		}
	}
	if _, err := Parse(strings.NewReader(strings.Repeat(" ", MaxProfileBytes+10))); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("an oversized profile: %v", err)
	}
}

func TestDefaultProfileCitesEveryField(t *testing.T) {
	p := Default()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(defaultProfile, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if k == "name" || k == "about" || k == "sources" {
			continue
		}
		if p.Sources[k] == "" {
			t.Errorf("the default profile's %s has no source", k)
		}
	}
}

// shortProfile is a profile for tests: 2 clients, 5 s runs, pauses with a
// tail long enough to break a 1 s lease now and then.
func shortProfile() Profile {
	p, err := Parse(strings.NewReader(`{"name": "test", "horizon": "5s",
		"workload": {"clients": 2, "acquisitions_per_second": 10, "section": {"fixed": "20ms"}},
		"pauses": {"per_hour": 1800, "size": {"quantiles": {"0": "1ms", "0.9": "50ms", "0.99": "500ms", "1": "5s"}}},
		"partitions": {"per_hour": 0.01, "size": {"quantiles": {"0": "1s", "0.5": "10s", "1": "2m"}}}}`))
	if err != nil {
		panic(err)
	}
	return p
}

func TestDrawIsDeterministic(t *testing.T) {
	sm, err := NewSampler(shortProfile(), model.Spec{Design: "set-px-lua"})
	if err != nil {
		t.Fatal(err)
	}
	pr := Proposal{Tilt: Tilt{Boost: 1, Tail: 1}, Defensive: DefensiveShare}
	a, b := sm.Draw(7, 3, pr), sm.Draw(7, 3, pr)
	if len(a.Spec.Faults) == 0 && len(b.Spec.Faults) == 0 {
		t.Log("no faults drawn")
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("two draws differ:\n%s\n%s", ja, jb)
	}
	if c := sm.Draw(7, 4, pr); c.LogRatio == a.LogRatio && len(c.Spec.Faults) == len(a.Spec.Faults) {
		t.Errorf("runs 3 and 4 drew alike: %v", c.Spec.Faults)
	}
}

// indicator is a Judge whose probability is known exactly: a run counts
// (one acquisition, involved) when it drew a fault of kind longer than d,
// at any time (inSpan over the whole run).
func indicator(kind sim.FaultKind, d time.Duration) func(Sample, uint64) Outcome {
	return inSpan(kind, d, 0, math.MaxInt64)
}

// TestEstimatesContainExactProbabilities checks the estimator against
// probabilities derived by hand (docs/risk.md, "Validation"): a run of
// horizon T holds a pause longer than d with probability 1 - exp(-c λ T
// S(d)), c clients each pausing λ times an hour, S(d) the share of pauses
// longer than d; a partition likewise, per node.
func TestEstimatesContainExactProbabilities(t *testing.T) {
	p := shortProfile()
	sm, err := NewSampler(p, model.Spec{Design: "set-px-lua"})
	if err != nil {
		t.Fatal(err)
	}
	T := sm.span().Hours() // faults arrive over the settle time and the window
	for _, c := range []struct {
		name  string
		kind  sim.FaultKind
		d     time.Duration
		rate  float64 // arrivals per hour, all processes
		size  Dist
		runs  int
		tilt  Tilt
		plain bool
	}{
		{"pause over 200ms, plain", sim.FaultPause, 200 * time.Millisecond, 2 * 1800, p.Pauses.Size, 4000, Tilt{}, true},
		{"pause over 2s, tilted", sim.FaultPause, 2 * time.Second, 2 * 1800, p.Pauses.Size, 4000, Tilt{Boost: 1, Tail: 1}, false},
		{"partition over 1m, tilted", sim.FaultPartition, time.Minute, 0.01, p.Partitions.Size, 4000, Tilt{Boost: 1, Tail: 1}, false},
		{"pause over 2s, windowed", sim.FaultPause, 2 * time.Second, 2 * 1800, p.Pauses.Size, 4000, Tilt{Boost: 1, Tail: 1, Window: 0.9}, false},
		{"partition over 1m, windowed", sim.FaultPartition, time.Minute, 0.01, p.Partitions.Size, 4000, Tilt{Boost: 1, Tail: 1, Window: 0.9}, false},
		{"pause over 2s, pauses alone tilted", sim.FaultPause, 2 * time.Second, 2 * 1800, p.Pauses.Size, 4000, Tilt{Kind: sim.FaultPause, Boost: 2, Tail: 4}, false},
		{"pause over 2s, pauses alone, top segment", sim.FaultPause, 2 * time.Second, 2 * 1800, p.Pauses.Size, 4000, Tilt{Kind: sim.FaultPause, Boost: 2, Tail: 2, Top: true}, false},
		{"pause over 4.5s, pauses alone, top segment sharpened", sim.FaultPause, 4500 * time.Millisecond, 2 * 1800, p.Pauses.Size, 4000, Tilt{Kind: sim.FaultPause, Boost: 1, Tail: 1, Top: true, Sharp: 10}, false},
		{"partition over 1m, partitions alone tilted", sim.FaultPartition, time.Minute, 0.01, p.Partitions.Size, 4000, Tilt{Kind: sim.FaultPartition, Boost: 1, Tail: 1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			exact := 1 - math.Exp(-c.rate*T*c.size.Survival(c.d))
			pr := Proposal{Tilt: c.tilt, Defensive: DefensiveShare}
			if c.plain {
				pr = PlainProposal
			}
			// Ten campaigns from ten seeds: a 95% interval should contain
			// the exact value about 9.5 times in 10 (at least 8 here), and
			// the ten estimates' mean sits within 3 standard errors of it.
			covered, halfWidth := 0, 0.0
			var mean, se2 float64
			for seed := uint64(1); seed <= 10; seed++ {
				tl, err := Campaign{Sampler: sm, Proposal: pr, Runs: c.runs, Seed: seed, Judge: indicator(c.kind, c.d),
					Invariants: []invariant.ID{invariant.MutualExclusion}}.Tally()
				if err != nil {
					t.Fatal(err)
				}
				es, err := tl.Estimates(pr, T)
				if err != nil {
					t.Fatal(err)
				}
				e := es[0]
				if e.CI95Low <= exact && exact <= e.CI95High {
					covered++
				}
				se := (e.CI95High - e.CI95Low) / 2 / z95
				mean += e.PerAcquisition / 10
				se2 += se * se / 100
				halfWidth = max(halfWidth, (e.CI95High-e.CI95Low)/2/exact)
			}
			t.Logf("exact %.4g; mean of ten estimates %.4g (se %.2g); %d of 10 intervals cover it; widest relative half-width %.2f", exact, mean, math.Sqrt(se2), covered, halfWidth)
			if covered < 8 {
				t.Errorf("only %d of 10 intervals contain the exact %.4g", covered, exact)
			}
			if math.Abs(mean-exact) > 3*math.Sqrt(se2) {
				t.Errorf("the mean estimate %.4g is more than 3 standard errors from the exact %.4g: biased", mean, exact)
			}
			if halfWidth > 0.5 {
				t.Errorf("relative half-width %.2f: the proposal does not resolve %.3g in %d runs", halfWidth, exact, c.runs)
			}
		})
	}
}

func TestNoViolationGivesAnUpperBoundNeverZero(t *testing.T) {
	sm, err := NewSampler(shortProfile(), model.Spec{Design: "set-px-lua"})
	if err != nil {
		t.Fatal(err)
	}
	pr := Proposal{Tilt: Tilt{Boost: 1, Tail: 1}, Defensive: DefensiveShare}
	tl, err := Campaign{Sampler: sm, Proposal: pr, Runs: 100, Seed: 1, Judge: indicator(sim.FaultPause, time.Hour),
		Invariants: []invariant.ID{invariant.MutualExclusion}}.Tally()
	if err != nil {
		t.Fatal(err)
	}
	es, _ := tl.Estimates(pr, 1)
	e := es[0]
	// 0 of 100: the exact bound is 1 - 0.025^(1/100) = 0.0362; under the
	// mixture, over 0.1.
	want := 0.3622 * float64(tl.MaxAttempts) / (tl.A.Value() / float64(tl.Runs))
	if !e.UpperBoundOnly || math.Abs(e.CI95High-want) > 1e-3 || e.PerAcquisition != 0 {
		t.Errorf("upper bound %v (only %v), want %v", e.CI95High, e.UpperBoundOnly, want)
	}
}

// TestShardsMergeToTheSameBytes runs a small real campaign whole and in
// three shards.
func TestShardsMergeToTheSameBytes(t *testing.T) {
	cfg := Config{Spec: model.Spec{Design: "set-px-lua"}, Profile: shortProfile(), Runs: 24, Seed: 3, Method: Plain}
	whole, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var parts []*Result
	for i := range 3 {
		c := cfg
		c.Shard, c.Shards = i, 3
		r, err := Run(c)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, r)
	}
	merged, err := Merge([]*Result{parts[2], parts[0], parts[1]})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(whole)
	b, _ := json.Marshal(merged)
	if !bytes.Equal(a, b) {
		t.Errorf("merged shards differ from the whole run:\n%s\n%s", a, b)
	}
	if _, err := Merge(parts[:2]); err == nil {
		t.Error("a missing shard merged")
	}
}

// moderatePauses are pauses of 600 to 800ms, one a second per process:
// they break a 500ms lease and never a 1s one.
const moderatePauses = `"pauses": {"per_hour": 3600, "size": {"quantiles": {"0": "600ms", "1": "800ms"}}}`

// TestAdviceMeetsItsTargetReestimated: the advisor searches its whole grid
// (TTL, retry backoff and jitter, acquire wait) in preference order; its
// recommendation, estimated again from another seed, is under the target;
// the current setting's line and the sensitivity line are there; a tight
// budget is "not resolved within budget". Cheap (150 runs a setting);
// -risk.validate (make long) adds docs/risk.md's example, heavy pauses
// (up to 4s) against a target of 1e-3 with 600 runs a setting (about a
// minute).
func TestAdviceMeetsItsTargetReestimated(t *testing.T) {
	p := validationProfile(moderatePauses)
	spec := model.Spec{Design: "set-px-lua"}
	spec.Options.TTL = 500 * time.Millisecond
	checkAdvice(t, spec, p, 0.06, 150, 20000)
	if *longValidation {
		checkAdvice(t, spec, validationProfile(heavyPauses), 1e-3, 600, 100000)
	}
	// A budget of one setting cannot search: unresolved, and says so.
	b, err := Advise(AdviseConfig{Spec: spec, Profile: p, Target: 1e-9, RunsEach: 20, Budget: 200, Seed: 1,
		Invariants: []invariant.ID{invariant.MutualExclusion}})
	if err != nil || b.Recommended != nil || !strings.HasPrefix(b.Unresolved, NotResolved) {
		t.Errorf("a tight budget: %v, %+v", err, b)
	}
	if b != nil && b.RunsUsed > 200 {
		t.Errorf("the search spent %d runs of a budget of 200", b.RunsUsed)
	}
}

// checkAdvice runs the advisor for mutual-exclusion and requires a
// recommendation, first in the grid's order among the settings that met,
// that an estimate from another seed puts under the target.
func checkAdvice(t *testing.T, spec model.Spec, p Profile, target float64, runs, budget int) {
	t.Helper()
	ids := []invariant.ID{invariant.MutualExclusion}
	a, err := Advise(AdviseConfig{Spec: spec, Profile: p, Target: target, RunsEach: runs, Budget: budget, Seed: 1, Invariants: ids})
	if err != nil {
		t.Fatal(err)
	}
	if a.Recommended == nil {
		t.Fatalf("no recommendation: %s (%+v)", a.Unresolved, a.Tried)
	}
	if a.RunsUsed > budget {
		t.Errorf("the search spent %d runs of a budget of %d", a.RunsUsed, budget)
	}
	grid := Grid(spec)
	for i, tr := range a.Tried {
		if tr.Setting != grid[i] {
			t.Fatalf("setting %d tried was %s, the grid's is %s", i, tr.Setting, grid[i])
		}
		if i < len(a.Tried)-1 && tr.Met {
			t.Errorf("%s met the target but the search went on", tr.Setting)
		}
	}
	t.Logf("recommended %s after %d settings (%d runs); current upper %.3g, recommended %.3g", a.Recommended, len(a.Tried), a.RunsUsed, a.Current.Estimates[0].CI95High, a.Estimate.Estimates[0].CI95High)
	again, err := Run(Config{Spec: a.Recommended.Apply(spec), Profile: p, Runs: runs, Seed: 99, Invariants: ids})
	if err != nil {
		t.Fatal(err)
	}
	if up := again.Estimates[0].CI95High; up >= a.Target {
		t.Errorf("re-estimated from another seed the recommendation's upper bound is %.3g, over the target %.3g", up, a.Target)
	}
	if a.Sensitivity == nil || a.Current == nil {
		t.Error("no current or sensitivity line")
	}
}

// TestAdviceNamesTheInvariantNoSettingMeets: with a target no bound of
// ten runs can meet, the whole grid is tried and the answer names the
// invariant no setting without fencing meets.
func TestAdviceNamesTheInvariantNoSettingMeets(t *testing.T) {
	spec := model.Spec{Design: "set-px-lua"}
	a, err := Advise(AdviseConfig{Spec: spec, Profile: validationProfile(moderatePauses), Target: 1e-9, RunsEach: 10, Budget: 10000, Seed: 1,
		Method: Plain, Invariants: []invariant.ID{invariant.MutualExclusion}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Recommended != nil || len(a.Tried) != len(Grid(spec)) {
		t.Fatalf("recommended %v after %d of %d settings", a.Recommended, len(a.Tried), len(Grid(spec)))
	}
	if !strings.Contains(a.Unresolved, "no setting without fencing meets mutual-exclusion") {
		t.Errorf("unresolved: %q", a.Unresolved)
	}
}

// TestGridDimensionsFollowTheDesign: each design gets the dimensions that
// apply to it, every design the retry and acquire-wait ones, in the stated
// order; a setting's retry and wait reach the spec the sampler runs.
func TestGridDimensionsFollowTheDesign(t *testing.T) {
	rw := len(GridRetry) * len(GridAcquireWait)
	for _, c := range []struct {
		design string
		n      int
	}{
		{"set-px-lua", len(GridTTL) * rw},
		{"watchdog", len(GridTTL) * len(GridRenewShare) * rw},
		{"fenced", len(GridTTL) * len(GridRenewShare) * len(GridFencing) * rw}, // fenced renews too
		{"redlock", len(GridTTL) * len(GridMasters) * len(GridDrift) * rw},
	} {
		base := model.Spec{Design: c.design}.WithDefaults()
		g := Grid(base)
		if len(g) != c.n {
			t.Errorf("%s: %d settings, want %d", c.design, len(g), c.n)
		}
		for i := 1; i < len(g); i++ {
			a, b := g[i-1], g[i]
			switch {
			case a.DeadWait() > b.DeadWait():
				t.Errorf("%s: %s waits longer for a dead holder than %s after it", c.design, a, b)
			case a.DeadWait() == b.DeadWait() && a.RenewalsPerSecond() > b.RenewalsPerSecond():
				t.Errorf("%s: %s renews more than %s after it", c.design, a, b)
			case a.DeadWait() == b.DeadWait() && a.RenewalsPerSecond() == b.RenewalsPerSecond() && a.Masters > b.Masters:
				t.Errorf("%s: %s has more masters than %s after it", c.design, a, b)
			}
		}
		for _, st := range g {
			o := st.Apply(base).WithDefaults().Options
			if o.TTL != time.Duration(st.TTL) || o.RetryMax != time.Duration(st.RetryMax) || o.RetryJitter != time.Duration(st.RetryJitter) ||
				o.AcquireWait != time.Duration(st.AcquireWait) {
				t.Fatalf("%s: %s gave options %+v", c.design, st, o)
			}
			if o.AcquireWait <= st.DeadWait() {
				t.Errorf("%s: %s gives up before a dead holder's lock frees", c.design, st)
			}
		}
		st := g[len(g)-1] // the longest retry sleep, with jitter
		sm, err := NewSampler(shortProfile(), st.Apply(base))
		if err != nil {
			t.Fatal(err)
		}
		o := st.Apply(base).WithDefaults().Options
		if so := sm.Draw(1, 0, PlainProposal).Spec.Options; st.RetryJitter == 0 || so.RetryMax != o.RetryMax || so.RetryJitter != o.RetryJitter || so.AcquireWait != o.AcquireWait {
			t.Fatalf("%s: %s: the sampler runs %+v", c.design, st, so)
		}
	}
}

func TestPointChance(t *testing.T) {
	p := shortProfile()
	// Pauses: 1800 an hour; over 500ms with probability 0.01 (the top
	// segment starts at 500ms): in 100ms, 1 - exp(-1800/3600/s x 0.1 s x 0.01).
	got, _, ok := PointChance(p, sim.Fault{Kind: sim.FaultPause, Dur: 500 * time.Millisecond}, 100*time.Millisecond)
	want := -math.Expm1(-0.5 * 0.1 * 0.01)
	if !ok || math.Abs(got-want) > 1e-12 {
		t.Errorf("pause: %v (ok %v), want %v", got, ok, want)
	}
	if _, why, ok := PointChance(p, sim.Fault{Kind: sim.FaultDelay}, time.Second); ok || !strings.Contains(why, "no delay") {
		t.Errorf("a kind the profile lacks: ok %v, %q", ok, why)
	}
}

// TestReadProfile: a profile file reads as Parse reads it; a bad one's
// error names the file and the field.
func TestReadProfile(t *testing.T) {
	dir := t.TempDir()
	good, bad := dir+"/good.json", dir+"/bad.json"
	if err := os.WriteFile(good, []byte(`{"name": "f", "workload": {"clients": 2, "acquisitions_per_second": 1, "section": {"fixed": "1ms"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"name": "f", "workload": {"clients": 99, "acquisitions_per_second": 1, "section": {"fixed": "1ms"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadProfile(good); err != nil || p.Name != "f" {
		t.Errorf("good: %v, %+v", err, p)
	}
	if _, err := ReadProfile(bad); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "clients") {
		t.Errorf("bad: %v", err)
	}
}

// TestPilotTiltsOnTheDefaultProfile: under the built-in profile, whose
// partitions, crashes and clock jumps are each about 1e-5 a run, a tilt of
// every kind at once (Boost 2, Tail 4) misses the chance of a pause over
// 1s by orders of magnitude (its weights vanish), while the pilot's
// pause tilts, one kind alone, contain it: the pilot offers no tilt of
// every kind.
func TestPilotTiltsOnTheDefaultProfile(t *testing.T) {
	p := Default()
	sm, err := NewSampler(p, model.Spec{Design: "set-px-lua"})
	if err != nil {
		t.Fatal(err)
	}
	T := sm.span().Hours()
	d := time.Second
	exact := 1 - math.Exp(-float64(p.Workload.Clients)*p.Pauses.PerHour*T*p.Pauses.Size.Survival(d))
	ids := []invariant.ID{invariant.MutualExclusion}
	estimate := func(pr Proposal, seed uint64, runs int) Estimate {
		tl, err := Campaign{Sampler: sm, Proposal: pr, Runs: runs, Seed: seed, Judge: indicator(sim.FaultPause, d), Invariants: ids}.Tally()
		if err != nil {
			t.Fatal(err)
		}
		es, err := tl.Estimates(pr, T)
		if err != nil {
			t.Fatal(err)
		}
		return es[0]
	}
	all := estimate(Proposal{Tilt: Tilt{Boost: 2, Tail: 4}, Defensive: DefensiveShare}, 1, 2000)
	t.Logf("exact %.3g; every kind tilted: %.3g [%.3g, %.3g], %d hits, %.0f effective samples of 2000", exact, all.PerAcquisition, all.CI95Low, all.CI95High, all.Hits, all.EffectiveSamples)
	if all.EffectiveSamples > 0.15*2000 {
		t.Errorf("the tilt of every kind no longer fails as documented: %.0f effective samples of 2000", all.EffectiveSamples)
	}
	pauses := 0
	for _, tl := range PilotTilts(p) {
		if tl != (Tilt{}) && tl.Kind == "" {
			t.Errorf("the pilot offers a tilt of every kind: %+v", tl)
		}
		if tl.Kind != sim.FaultPause {
			continue
		}
		pauses++
		pr := Proposal{Tilt: tl, Defensive: DefensiveShare}
		covered := 0
		var mean, se2, ess float64
		for seed := uint64(1); seed <= 10; seed++ {
			e := estimate(pr, seed, 1000)
			ess += e.EffectiveSamples / 10
			if e.CI95Low <= exact && exact <= e.CI95High {
				covered++
			}
			se := (e.CI95High - e.CI95Low) / 2 / z95
			mean += e.PerAcquisition / 10
			se2 += se * se / 100
		}
		t.Logf("%+v: mean of ten %.3g (se %.2g), %d of 10 intervals cover; %.0f effective samples of 1000", tl, mean, math.Sqrt(se2), covered, ess)
		if covered < 8 || math.Abs(mean-exact) > 3*math.Sqrt(se2) {
			t.Errorf("%+v: mean of ten %.3g (se %.2g), %d of 10 intervals cover the exact %.3g", tl, mean, math.Sqrt(se2), covered, exact)
		}
	}
	if pauses != 3 {
		t.Errorf("the pilot has %d pause tilts, want 3", pauses)
	}
}
