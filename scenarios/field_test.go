package scenarios

import (
	"slices"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
)

// fieldFix is a change that should make a field scenario safe for what it
// keeps: a design, fencing, option or topology the source or its
// maintainers name as the fix.
type fieldFix struct {
	name   string
	design string // "" keeps the scenario's design
	change func(*model.Spec)
	// keeps are the invariants the fix must hold; nil means all of them.
	keeps []invariant.ID
}

var (
	twoHolders    = []invariant.ID{invariant.MutualExclusion}
	twoHoldersAnd = []invariant.ID{invariant.MutualExclusion, invariant.LostUpdate}
	theData       = []invariant.ID{invariant.LostUpdate}
)

func strictReads(s *model.Spec) { s.Fencing = model.FenceStrictReads }

// fieldCases are the failures from the field: the designs each source
// names, what the source reports (two holders; a lost update where its
// data was a read-modify-write), and the fixes.
var fieldCases = []struct {
	scenario string
	designs  []string
	reported []invariant.ID
	fixes    []fieldFix
}{
	{"redsync-186", []string{model.Redlock}, twoHoldersAnd, []fieldFix{
		{name: "aof-always", change: func(s *model.Spec) { s.Topology.Persistence = "aof-always" }},
		{name: "restart after the TTL", change: func(s *model.Spec) { s.Faults[1].Dur = 11 * time.Second }},
	}},
	{"redisson-3994", []string{model.WaitReplica}, twoHolders, []fieldFix{
		{name: "wait-check=true", change: func(s *model.Spec) { s.Options.IgnoreWait = false }},
	}},
	{"redisson-5256", []string{model.WaitReplica}, twoHolders, []fieldFix{
		{name: "wait-accept=2", change: func(s *model.Spec) { s.Options.WaitAccept = 2 }},
		{name: "fenced", design: model.Fenced, keeps: theData},
		{name: "redlock", design: model.Redlock},
	}},
	{"redisson-5697", []string{model.Watchdog, model.ReentrantHash}, twoHoldersAnd, []fieldFix{
		{name: "fenced, strict-reads", design: model.Fenced, change: strictReads, keeps: theData},
	}},
	{"redisson-2665", []string{model.Watchdog, model.ReentrantHash}, twoHoldersAnd, []fieldFix{
		{name: "deadline=true", change: func(s *model.Spec) { s.Options.Deadline = true }},
		{name: "fenced, strict-reads", design: model.Fenced, change: strictReads, keeps: theData},
	}},
	{"jepsen-sentinel", []string{model.SetnxExpire, model.SetPxGetdel, model.SetPxLua, model.Watchdog, model.ReentrantHash}, twoHoldersAnd, []fieldFix{
		{name: "min-replicas-to-write 1", change: func(s *model.Spec) {
			s.Topology.MinReplicasToWrite, s.Topology.MinReplicasMaxLag = 1, time.Second
		}},
		{name: "redlock", design: model.Redlock},
		{name: "wait-replica", design: model.WaitReplica},
	}},
	{"valkey-2651", []string{model.SetnxExpire, model.SetPxGetdel, model.SetPxLua, model.Watchdog, model.ReentrantHash, model.Fenced}, twoHoldersAnd, []fieldFix{
		{name: "fenced, strict-reads", design: model.Fenced, change: strictReads, keeps: theData},
		{name: "redlock", design: model.Redlock},
	}},
}

// brokenIn runs the scenario's spec for design, changed by change, over
// the matrix's seeds 1..3 and returns what each run broke.
func brokenIn(t *testing.T, sc *Scenario, design string, change func(*model.Spec)) [][]invariant.ID {
	t.Helper()
	spec, err := sc.SpecFor(design)
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(&spec)
	}
	var out [][]invariant.ID
	for seed := uint64(1); seed <= 3; seed++ {
		r, err := model.Run(spec, seed)
		if err != nil {
			t.Fatal(err)
		}
		if r.Err != nil {
			t.Fatalf("%s seed %d: the run stopped: %v", design, seed, r.Err)
		}
		out = append(out, invariant.Broken(r.Violations))
	}
	return out
}

// TestFieldFailures: every failure from the field breaks the designs its
// source names, with what the source reports among the broken invariants,
// and each stated fix holds what it keeps, on every seed. The verdicts
// come from the runs' histories, never from the files' expect lines.
func TestFieldFailures(t *testing.T) {
	for _, tc := range fieldCases {
		t.Run(tc.scenario, func(t *testing.T) {
			sc, err := Lookup(tc.scenario)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range tc.designs {
				for seed, broken := range brokenIn(t, sc, d, nil) {
					for _, id := range tc.reported {
						if !slices.Contains(broken, id) {
							t.Errorf("%s, seed %d: broke %v, not %s as the source reports", d, seed+1, broken, id)
						}
					}
				}
			}
			for _, f := range tc.fixes {
				d := f.design
				if d == "" {
					d = sc.Design
				}
				keeps := f.keeps
				if keeps == nil {
					keeps = invariant.All
				}
				for seed, broken := range brokenIn(t, sc, d, f.change) {
					for _, id := range keeps {
						if slices.Contains(broken, id) {
							t.Errorf("fix %s (%s), seed %d: broke %s (all broken: %v)", f.name, d, seed+1, id, broken)
						}
					}
				}
			}
		})
	}
}

// TestMinReplicasBoundsTheWindow: min-replicas-max-lag bounds how long a
// cut-off primary grants locks, it does not close the window. In
// minority-primary the partition starts as A acquires on the old primary,
// within the lag, so min-replicas-to-write 1 still lets B take the lock on
// the promoted replica; jepsen-sentinel's B comes after the lag
// (TestFieldFailures).
func TestMinReplicasBoundsTheWindow(t *testing.T) {
	sc, err := Lookup("minority-primary")
	if err != nil {
		t.Fatal(err)
	}
	for seed, broken := range brokenIn(t, sc, model.SetPxLua, func(s *model.Spec) {
		s.Topology.MinReplicasToWrite, s.Topology.MinReplicasMaxLag = 1, time.Second
	}) {
		if !slices.Contains(broken, invariant.MutualExclusion) {
			t.Errorf("seed %d: broke %v; a lock granted inside the lag should still have two holders", seed+1, broken)
		}
	}
}
