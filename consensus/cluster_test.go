package consensus

import (
	"fmt"
	"testing"
	"time"

	"locksim/network"
	"locksim/sim"
)

// clusterRun is one run of a three-node cluster with one client that asks
// for a lease every 200ms for 20s, moving to the next node when one times
// out or knows no leader.
type clusterRun struct {
	cl     *Cluster
	hist   sim.History
	grants []int64 // lease IDs granted, in the order the client got them
}

var clusterNames = []string{"e1", "e2", "e3"}

func runCluster(t *testing.T, seed uint64, faults []sim.Fault) clusterRun {
	t.Helper()
	cl, err := NewCluster(clusterNames, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var out clusterRun
	out.cl = cl
	client := func(ctx *sim.Ctx) error {
		at := 0
		for range 100 {
			ctx.Sleep(200 * time.Millisecond)
			r, err := ctx.Call(clusterNames[at], time.Second, "GRANT", "1000")
			if err != nil || r.IsError() {
				at = (at + 1) % len(clusterNames)
				continue
			}
			out.grants = append(out.grants, r.Elems[0].Int)
		}
		return nil
	}
	cfg := sim.Config{
		Nodes:   cl.NodeConfigs(nil),
		Clients: []sim.ClientConfig{{Name: "A", Main: client}},
		Network: network.Config{Default: network.Latency{Min: time.Millisecond, Max: 3 * time.Millisecond}},
		Faults:  faults,
	}
	h, err := sim.Run(cfg, seed)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	out.hist = h
	return out
}

// leaders returns the nodes that believe they lead, with their terms.
func (r clusterRun) leaders() []string {
	var ls []string
	for _, name := range clusterNames {
		if ok, term := r.cl.Node(name).Leader(); ok {
			ls = append(ls, fmt.Sprintf("%s@%d", name, term))
		}
	}
	return ls
}

// agree checks that every running node applied the same state.
func (r clusterRun) agree(t *testing.T) {
	t.Helper()
	var want string
	for _, name := range clusterNames {
		n := r.cl.Node(name)
		if n.mem == nil {
			continue
		}
		got := fmt.Sprintf("rev %d leases %v", n.mem.kv.rev, n.mem.kv.leaseIDs())
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("node %s applied %s, another node %s", name, got, want)
		}
	}
}

// increasing checks the grants' IDs (log indexes) only go up: a grant the
// client was told of is never undone and handed out again.
func (r clusterRun) increasing(t *testing.T) {
	t.Helper()
	for i := 1; i < len(r.grants); i++ {
		if r.grants[i] <= r.grants[i-1] {
			t.Fatalf("lease %d granted after lease %d", r.grants[i], r.grants[i-1])
		}
	}
}

func TestClusterElectsLeader(t *testing.T) {
	for seed := range uint64(5) {
		r := runCluster(t, seed, nil)
		if ls := r.leaders(); len(ls) != 1 {
			t.Errorf("seed %d: leaders %v, want exactly one", seed, ls)
		}
		if len(r.grants) < 90 {
			t.Errorf("seed %d: %d of 100 grants, want at least 90 with no faults", seed, len(r.grants))
		}
		r.increasing(t)
		r.agree(t)
	}
}

// firstLeader is the leader of a fault-free run with this seed, which a
// faulty run with the same seed has until its first fault.
func firstLeader(t *testing.T, seed uint64) string {
	ls := runCluster(t, seed, nil).leaders()
	if len(ls) != 1 {
		t.Fatalf("seed %d: leaders %v", seed, ls)
	}
	return ls[0][:2]
}

func TestClusterSurvivesLeaderCrash(t *testing.T) {
	for seed := range uint64(3) {
		lead := firstLeader(t, seed)
		before := len(runCluster(t, seed, nil).grants)
		r := runCluster(t, seed, []sim.Fault{{Kind: sim.FaultNodeCrash, Target: lead, At: 5 * time.Second, Dur: 3 * time.Second}})
		if len(r.grants) < before-20 {
			t.Errorf("seed %d: %d grants with the leader %s down 3s, %d without", seed, len(r.grants), lead, before)
		}
		r.increasing(t)
		r.agree(t)
		if n := r.cl.Node(lead); n.disk.boots != 2 || len(n.disk.ents) == 0 {
			t.Errorf("seed %d: %s booted %d times with %d entries on disk", seed, lead, n.disk.boots, len(n.disk.ents))
		}
	}
}

func TestClusterRestartKeepsLog(t *testing.T) {
	// Every node down at once, then back: only the disks carry the
	// leases over; the grants after the restart continue the log.
	var faults []sim.Fault
	for _, n := range clusterNames {
		faults = append(faults, sim.Fault{Kind: sim.FaultNodeCrash, Target: n, At: 8 * time.Second, Dur: 2 * time.Second})
	}
	r := runCluster(t, 7, faults)
	r.increasing(t)
	r.agree(t)
	if len(r.grants) < 60 {
		t.Fatalf("%d grants, want the cluster back after the restart", len(r.grants))
	}
}

func TestClusterPartitionedLeader(t *testing.T) {
	for seed := range uint64(3) {
		lead := firstLeader(t, seed)
		var rest []string
		for _, n := range clusterNames {
			if n != lead {
				rest = append(rest, n)
			}
		}
		rest = append(rest, "A")
		r := runCluster(t, seed, []sim.Fault{{Kind: sim.FaultPartition, A: []string{lead}, B: rest, At: 5 * time.Second, Dur: 5 * time.Second}})
		r.increasing(t)
		r.agree(t)
		if ls := r.leaders(); len(ls) != 1 || ls[0][:2] == lead {
			t.Errorf("seed %d: leaders %v after the old leader %s was cut off 5s, want one new leader", seed, ls, lead)
		}
	}
}

func TestClusterDeterministic(t *testing.T) {
	faults := []sim.Fault{
		{Kind: sim.FaultNodeCrash, Target: "e2", At: 3 * time.Second, Dur: 2 * time.Second},
		{Kind: sim.FaultPartition, A: []string{"e1"}, B: []string{"e2", "e3", "A"}, At: 9 * time.Second, Dur: 3 * time.Second},
		{Kind: sim.FaultClockDrift, Target: "e3", At: time.Second, RatePPM: 300000},
	}
	hashes := map[string]bool{}
	for seed := range uint64(3) {
		a, b := runCluster(t, seed, faults).hist.Hash(), runCluster(t, seed, faults).hist.Hash()
		if a != b {
			t.Fatalf("seed %d: two runs, two histories", seed)
		}
		hashes[a] = true
	}
	if len(hashes) != 3 {
		t.Errorf("3 seeds gave %d distinct histories", len(hashes))
	}
}

// A stalled leader (its process blocked 5s, its clock running on) runs
// nothing meanwhile: the others elect a new leader, and at the resume the
// old one's queued messages and timers find it deposed.
func TestClusterStalledLeader(t *testing.T) {
	for seed := range uint64(3) {
		lead := firstLeader(t, seed)
		r := runCluster(t, seed, []sim.Fault{{Kind: sim.FaultNodeStall, Target: lead, At: 5 * time.Second, Dur: 5 * time.Second}})
		r.increasing(t)
		r.agree(t)
		if ls := r.leaders(); len(ls) != 1 || ls[0][:2] == lead {
			t.Errorf("seed %d: leaders %v after the leader %s stalled 5s, want one new leader", seed, ls, lead)
		}
		if len(r.grants) < 60 {
			t.Errorf("seed %d: %d grants, want the cluster serving around the stall", seed, len(r.grants))
		}
	}
}
