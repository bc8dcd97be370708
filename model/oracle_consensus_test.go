package model_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"locksim/consensus"
	"locksim/model/invariant"
	"locksim/sim"
)

// TestCheckersAgreeWithTheOracleOnConsensus is the oracle agreement for
// the consensus designs (package consensus registers them): random runs
// over every fault kind on 3- or 5-member clusters, the checkers reading
// the history and the oracle reading the live world (the cluster's
// committed state through sim.World.NodeValue) find the same broken
// invariants. It has runs of its own, so the Redis designs' agreement
// test draws what it always drew.
func TestCheckersAgreeWithTheOracleOnConsensus(t *testing.T) {
	consensus.Register()
	runs := *oracleRuns / 4
	if testing.Short() {
		runs /= 10
	}
	r := rand.New(rand.NewPCG(20261202, 25))
	designs := []string{consensus.EtcdLease, consensus.EtcdLeaseUnfenced}
	agreed, judged := 0, 0
	seen := map[invariant.ID]int{}
	for i := range runs {
		s := randomSpecFor(r, designs[r.IntN(len(designs))], oracleKinds)
		if r.IntN(3) == 0 {
			// The consensus lease's own hazard: the first leader's clock
			// runs fast and no keep-alive comes inside the section, so
			// the leader may expire a lease its client still trusts.
			s.Options.RenewEvery = 10 * s.Options.TTL
			s.Workload.Work = s.Options.TTL * time.Duration(6+r.IntN(4)) / 10
			s.Faults = append(s.Faults, sim.Fault{Kind: sim.FaultClockDrift, Target: "r1", RatePPM: int64(200_000 + r.IntN(300_001))})
		}
		seed := uint64(i)
		checked, oracled, h, _, ok := runWithOracle(t, s, seed)
		if !ok {
			continue
		}
		judged++
		for _, id := range checked {
			seen[id]++
		}
		if slices.Equal(checked, oracled) {
			agreed++
			continue
		}
		var fs []string
		for _, f := range s.Faults {
			fs = append(fs, f.String())
		}
		t.Errorf("run %d (design %s, seed %d, %+v, faults %q): checkers %v, oracle %v\n%s", i, s.Design, seed,
			s.Topology, fs, checked, oracled, explain(h, s))
		if t.Failed() && agreed+10 < judged {
			t.FailNow()
		}
	}
	t.Logf("%d runs judged, %d agreed; runs breaking each invariant: %v", judged, agreed, seen)
	if judged < runs*9/10 {
		t.Errorf("only %d of %d runs had verdicts", judged, runs)
	}
	for _, id := range []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate} {
		if seen[id] == 0 && runs >= 400 {
			t.Errorf("no run broke %s: the generator does not reach it on the consensus designs", id)
		}
	}
}
