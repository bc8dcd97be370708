package libs

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"locksim/model/invariant"
	. "locksim/realclient"
	"locksim/risk"
)

// riskProfile is a small environment for a real client's risk: two
// clients at 10 acquisitions a second, runs of 2s, and one pause a second
// per process of the given sizes.
func riskProfile(t *testing.T, pauses string) risk.Profile {
	t.Helper()
	p, err := risk.Parse(strings.NewReader(`{"name": "real-client-test", "horizon": "2s",
		"workload": {"clients": 2, "acquisitions_per_second": 10, "section": {"fixed": "20ms"}},
		"pauses": {"per_hour": 3600, "size": {"quantiles": ` + pauses + `}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRiskOfARealLibrary: bsm/redislock through realclient.Risk. With
// pauses shorter than its 1s lease no run breaks mutual exclusion and the
// estimate is an upper bound a CI property can require; with pauses longer
// than the lease it breaks, and the estimate says how often, with an
// interval above zero. Same seed, same bytes; two shards merge into them.
func TestRiskOfARealLibrary(t *testing.T) {
	ids := []invariant.ID{invariant.MutualExclusion}
	opts := func(more ...Option) []Option {
		return append([]Option{WithName("redislock"), WithTTL(time.Second), WithInvariants(ids...), WithRiskMethod(risk.Plain), WithSeed(3)}, more...)
	}
	safe, err := Risk(t, newRedislock, riskProfile(t, `{"0": "1ms", "0.9": "50ms", "1": "300ms"}`), opts(WithRuns(60))...)
	if err != nil {
		t.Fatal(err)
	}
	e := safe.Estimates[0]
	t.Logf("short pauses: %s %.3g [%.3g, %.3g], %d runs, %d broken; %s", e.ID, e.PerAcquisition, e.CI95Low, e.CI95High, e.Samples, e.Hits, e.Method)
	if !e.UpperBoundOnly || e.Hits != 0 || e.CI95High >= 0.1 || e.CI95High <= 0 {
		t.Errorf("short pauses: want an upper bound under 0.1 from no violating run, got %+v", e)
	}
	if safe.Design != DesignPrefix+"redislock" || safe.Tally.A.Value() == 0 {
		t.Errorf("the estimate names %q and counted %v acquisitions", safe.Design, safe.Tally.A.Value())
	}

	broken, err := Risk(t, newRedislock, riskProfile(t, `{"0": "1.2s", "1": "1.5s"}`), opts(WithRuns(40))...)
	if err != nil {
		t.Fatal(err)
	}
	e = broken.Estimates[0]
	t.Logf("long pauses: %s %.3g [%.3g, %.3g], %d runs, %d broken", e.ID, e.PerAcquisition, e.CI95Low, e.CI95High, e.Samples, e.Hits)
	if e.UpperBoundOnly || e.Hits == 0 || e.PerAcquisition <= 0 || e.CI95High <= e.PerAcquisition {
		t.Errorf("pauses longer than the lease: want a violation estimate, got %+v", e)
	}

	// Deterministic and shardable: the same seed gives the same bytes,
	// and two shards merge into them.
	again, err := Risk(t, newRedislock, riskProfile(t, `{"0": "1.2s", "1": "1.5s"}`), opts(WithRuns(40))...)
	if err != nil {
		t.Fatal(err)
	}
	var parts []*risk.Result
	for i := range 2 {
		p, err := Risk(t, newRedislock, riskProfile(t, `{"0": "1.2s", "1": "1.5s"}`), opts(WithRuns(40), WithShard(i, 2))...)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	merged, err := risk.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(broken)
	b, _ := json.Marshal(again)
	m, _ := json.Marshal(merged)
	if string(a) != string(b) || string(a) != string(m) {
		t.Errorf("the same seed gave different estimates, or the shards merged to others:\n%s\n%s\n%s", a, b, m)
	}
}

// TestRiskRefusesWhatItCannotJudge: a run that cannot be judged (here the
// setup fails) makes the estimate an error naming it, and the options of
// Check's own schedules are refused.
func TestRiskRefusesWhatItCannotJudge(t *testing.T) {
	p := riskProfile(t, `{"0": "1ms", "1": "300ms"}`)
	failing := func(Env) (Lock, error) { return nil, errors.New("no such lock") }
	if _, err := Risk(t, failing, p, WithName("failing"), WithRuns(10), WithRiskMethod(risk.Plain)); err == nil || !strings.Contains(err.Error(), "no such lock") {
		t.Errorf("a setup that fails: %v", err)
	}
	if _, err := Risk(t, newRedislock, p, WithName("redislock"), WithExhaustive(1)); err == nil || !strings.Contains(err.Error(), "WithExhaustive") {
		t.Errorf("WithExhaustive: %v", err)
	}
}
