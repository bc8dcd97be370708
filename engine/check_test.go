package engine

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/model"
	"locksim/scenarios"
	"locksim/sim"
)

func outcomes(t *testing.T, c CheckConfig) ([]RunOutcome, *CheckResult) {
	t.Helper()
	var out []RunOutcome
	c.Each = func(o RunOutcome) { out = append(out, o) }
	res, err := Check(c)
	if err != nil {
		t.Fatal(err)
	}
	return out, res
}

func base() CheckConfig {
	return CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: scenarios.Gen{Swarm: true}, Runs: 120, Seed: 7}}
}

// The outcome does not depend on the worker count.
func TestCheckWorkersDoNotMatter(t *testing.T) {
	c := base()
	c.Workers = 1
	one, r1 := outcomes(t, c)
	c.Workers = 4
	four, r4 := outcomes(t, c)
	if diff := cmp.Diff(one, four); diff != "" {
		t.Errorf("runs differ between 1 and 4 workers (-1 +4):\n%s", diff)
	}
	if r1.BrokenRuns != r4.BrokenRuns || r1.Minimal.History.Hash() != r4.Minimal.History.Hash() {
		t.Errorf("results differ between 1 and 4 workers")
	}
}

// Shards together are exactly the unsharded runs.
func TestCheckShardsUnion(t *testing.T) {
	all, _ := outcomes(t, base())
	var union []RunOutcome
	for i := range 3 {
		c := base()
		c.Shard, c.Shards = i, 3
		part, _ := outcomes(t, c)
		for _, o := range part {
			if o.Index%3 != i {
				t.Fatalf("shard %d ran run %d", i, o.Index)
			}
		}
		union = append(union, part...)
	}
	slices.SortFunc(union, func(a, b RunOutcome) int { return a.Index - b.Index })
	if diff := cmp.Diff(all, union); diff != "" {
		t.Errorf("3 shards differ from the unsharded runs (-all +shards):\n%s", diff)
	}
}

// A run that stops with an error stops the check: no later run starts,
// the error is reported, and nothing is shrunk.
func TestCheckStopsAtAnErroredRun(t *testing.T) {
	c := base()
	c.Runs = 500
	c.Base = model.Spec{Design: model.LuaDesignID, Lua: &model.LuaScripts{
		Acquire: "if tonumber(ARGV[1]:sub(-1), 36) % 3 == 0 then while true do end end return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
		Release: "return redis.call('DEL', KEYS[1])",
	}}
	c.Gen.Kinds = []sim.FaultKind{}
	out, res := outcomes(t, c)
	if res.FirstError == nil {
		t.Fatalf("no error reported after %d runs", res.Runs)
	}
	if res.Runs >= 500 || out[len(out)-1].Error == "" || res.Minimal != nil {
		t.Errorf("check went on after the errored run: %d runs, last %+v", res.Runs, out[len(out)-1])
	}
}

// With a time budget the check stops starting runs once it is spent; what
// it reached is a prefix of the unbounded runs.
func TestCheckTimeBudget(t *testing.T) {
	now := time.Unix(0, 0)
	c := base()
	c.Runs = 0
	c.For = 50 * time.Millisecond
	c.Now = func() time.Time { now = now.Add(time.Millisecond); return now } // each call advances 1ms
	c.Workers = 1
	out, res := outcomes(t, c)
	if res.Runs == 0 || res.Runs > 60 {
		t.Fatalf("%d runs under a 50-call budget", res.Runs)
	}
	c2 := base()
	c2.Runs = res.Runs
	full, _ := outcomes(t, c2)
	if diff := cmp.Diff(full, out); diff != "" {
		t.Errorf("the budgeted runs are not the first %d runs (-full +budget):\n%s", res.Runs, diff)
	}
}

// Generated runs with replicas fail over.
func TestCheckRunsFailOver(t *testing.T) {
	c := base()
	c.Base.Topology.Replicas = 1
	c.Gen.Kinds = []sim.FaultKind{sim.FaultNodeCrash, sim.FaultPartition}
	c.Runs = 300
	_, res := outcomes(t, c)
	if res.FailoverRuns == 0 {
		t.Errorf("no run of %d failed over", res.Runs)
	}
	t.Logf("%d of %d runs failed over", res.FailoverRuns, res.Runs)
}

// A run count near the largest int is refused, not wrapped into "0 runs,
// every invariant held"; a shard's share of a count is exact.
func TestCheckRunCounts(t *testing.T) {
	c := base()
	c.Runs, c.Shard, c.Shards = math.MaxInt/2, 5, 7
	if err := c.Validate(); err == nil {
		t.Error("a run count of half the largest int was accepted")
	}
	for _, tc := range []struct{ runs, shard, shards, want int }{
		{10, 0, 3, 4}, {10, 1, 3, 3}, {10, 2, 3, 3}, {2, 3, 4, 0}, {MaxRuns, 6, 7, MaxRuns / 7}, {1, 0, 1, 1},
	} {
		c := CheckConfig{Campaign: Campaign{Runs: tc.runs, Shard: tc.shard, Shards: tc.shards}}
		if n, _ := c.mine(); n != tc.want {
			t.Errorf("runs %d, shard %d/%d: %d runs, want %d", tc.runs, tc.shard, tc.shards, n, tc.want)
		}
	}
}

// A check whose Context is done stops between runs and says Interrupted:
// no verdict, nothing shrunk (the CLI's SIGINT and SIGTERM).
func TestCheckStopsWhenInterrupted(t *testing.T) {
	c := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause}, MaxFaults: 3, Swarm: true}, Runs: 1_000_000, Seed: 1}, Workers: 2}
	ctx, cancel := context.WithCancel(context.Background())
	c.Context = ctx
	c.Progress = func(done, _ int) {
		if done == 300 {
			cancel()
		}
	}
	res, err := Check(c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Runs < 300 || res.Runs > 300+waitingPerWorker*2+2 || res.Minimal != nil {
		t.Errorf("interrupted %v after %d runs, minimal %v: want interrupted within a window of 300, nothing shrunk", res.Interrupted, res.Runs, res.Minimal != nil)
	}
}
