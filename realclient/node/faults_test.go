package node

import (
	"testing"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/realclient"
	"locksim/sim"
)

// Every fault kind a Go client takes acts on a Node client too: Check's
// generated schedules of client pauses and crashes (a crash ends the
// incarnation; the restart runs setup on a reset Node process), partitions,
// delays, drops and node crashes run without a stopped run, and the
// compare-and-delete lock keeps mutual exclusion and liveness under them,
// as its Go twin does (realclient's TestCheckCatchesEachBugAndPassesItsTwin).
func TestFaultKindsOnNode(t *testing.T) {
	requireNode(t)
	runs := 12
	if *long {
		runs = 100
	}
	realclient.Check(t, Setup("js/locks/cad.cjs"), realclient.WithName("node-cad"), realclient.WithRuns(runs),
		realclient.WithInvariants(invariant.MutualExclusion, invariant.Liveness),
		realclient.WithFaults(sim.FaultPause, sim.FaultCrash, sim.FaultPartition, sim.FaultDelay, sim.FaultDrop, sim.FaultNodeCrash),
		realclient.WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}),
		realclient.WithCaseDir(t.TempDir()))
}
