package consensus

import (
	"strings"
	"testing"

	"locksim/internal/goldenfile"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
)

// broken runs a catalogue scenario with a design and seed and returns the
// invariants that broke, "-" for none, "n/a" when it does not apply.
func broken(t *testing.T, s *scenarios.Scenario, design string, seed uint64) string {
	t.Helper()
	sp, err := s.SpecFor(design)
	if err != nil {
		return "n/a"
	}
	r, err := model.Run(sp, seed)
	if err != nil {
		t.Fatalf("%s with %s: %v", s.Name, design, err)
	}
	if r.Err != nil {
		t.Fatalf("%s with %s: the run stopped: %v", s.Name, design, r.Err)
	}
	b := strings.ReplaceAll(invariant.Names(invariant.Broken(r.Violations)), ",", " ")
	if b == "" {
		b = "-"
	}
	return b
}

// TestScenarioVerdicts runs every catalogue scenario with the consensus
// designs (and Redlock beside them) and compares what broke with
// testdata/verdicts.txt: the consensus columns of `locksim matrix`, seed 1.
// If it fails, run `make golden` (or go test ./consensus -run
// TestScenarioVerdicts -rewrite) and inspect the diff; only commit it if
// you understand what caused it.
func TestScenarioVerdicts(t *testing.T) {
	var b strings.Builder
	b.WriteString("# What breaks, per scenario and design, seed 1 (invariant IDs; - nothing broke; n/a does not apply).\n")
	b.WriteString("# Regenerate: go test ./consensus -run TestScenarioVerdicts -rewrite (and review the diff).\n")
	for _, s := range scenarios.All() {
		b.WriteString("\n" + s.Name + "\n")
		for _, d := range []string{model.Redlock, EtcdLease, EtcdLeaseUnfenced} {
			b.WriteString("  " + d + strings.Repeat(" ", 20-len(d)) + broken(t, s, d, 1) + "\n")
		}
	}
	goldenfile.Check(t, "verdicts.txt", b.String())
}

// TestConsensusContrast checks the stories the consensus scenarios tell,
// over seeds 1..5: what the raft lease keeps where Redlock breaks, and
// where only the revision saves the data.
func TestConsensusContrast(t *testing.T) {
	for _, tc := range []struct {
		scenario, design string
		breaks, holds    []invariant.ID
	}{
		// A clock jump and an empty restart take Redlock's majority; the
		// log on every member's disk keeps the lease.
		{"consensus-majority", model.Redlock, []invariant.ID{invariant.MutualExclusion}, nil},
		{"consensus-majority", EtcdLease, nil, invariant.All},
		{"consensus-majority", EtcdLeaseUnfenced, nil, invariant.All},
		// A pause past the lease: without fencing the update is lost; the
		// revision rejects the stale write.
		{"consensus-pause", EtcdLeaseUnfenced, []invariant.ID{invariant.LostUpdate}, nil},
		{"consensus-pause", EtcdLease, nil, []invariant.ID{invariant.LostUpdate, invariant.StaleWrite}},
		{"consensus-delayed-write", EtcdLeaseUnfenced, []invariant.ID{invariant.LostUpdate}, nil},
		{"consensus-delayed-write", EtcdLease, nil, []invariant.ID{invariant.LostUpdate, invariant.StaleWrite}},
		// Lease expiry on the leader's clock: a fast leader breaks mutual
		// exclusion even for a linearizable lease.
		{"consensus-fast-leader", EtcdLease, []invariant.ID{invariant.MutualExclusion}, nil},
		{"consensus-fast-leader", model.Redlock, nil, []invariant.ID{invariant.MutualExclusion}},
		// A partitioned old leader grants nothing; the new one waits the
		// lease out.
		{"consensus-partitioned-leader", EtcdLease, nil, invariant.All},
		{"consensus-partitioned-leader", EtcdLeaseUnfenced, nil, invariant.All},
	} {
		s, err := scenarios.Lookup(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 5; seed++ {
			got := " " + broken(t, s, tc.design, seed) + " "
			for _, id := range tc.breaks {
				if !strings.Contains(got, " "+string(id)+" ") {
					t.Errorf("%s with %s, seed %d: broke %s; want %s broken", tc.scenario, tc.design, seed, got, id)
				}
			}
			for _, id := range tc.holds {
				if strings.Contains(got, " "+string(id)+" ") {
					t.Errorf("%s with %s, seed %d: broke %s; want %s held", tc.scenario, tc.design, seed, got, id)
				}
			}
		}
	}
}
