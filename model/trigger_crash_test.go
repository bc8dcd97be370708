package model_test

import (
	"testing"

	"locksim/model"
	"locksim/sim"
)

// A node crash triggered by the node's own write, at its exec or at the
// key event the write records, is a crash right after executing: the
// client gets no reply, no replica gets the write, and nothing the crash
// forgot is replicated as a deletion.
func TestTriggeredNodeCrashMidWrite(t *testing.T) {
	for _, kind := range []sim.Kind{sim.KindExec, sim.KindKey} {
		s := model.Spec{Design: model.WaitReplica, Clients: []string{"A"},
			Faults: []sim.Fault{{Kind: sim.FaultNodeCrash, Target: "r1", After: &sim.Trigger{Actor: "r1", Kind: kind}}}}
		r, err := model.Run(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		crashed := -1
		for i, e := range r.History {
			switch {
			case e.Kind == sim.KindNodeCrash && e.Actor == "r1":
				crashed = i
			case crashed < 0:
			case e.Actor == "A" && e.Kind == sim.KindReply && e.Peer == "r1":
				t.Errorf("after %s: A got a reply from the crashed r1: %s", kind, e.Line())
			case e.Actor == "r2" && (e.Kind == sim.KindReplApply || e.Kind == sim.KindKey):
				t.Errorf("after %s: r2 got the crashed primary's write: %s", kind, e.Line())
			}
			if e.Kind == sim.KindPromote {
				break
			}
		}
		if crashed < 0 {
			t.Fatalf("after %s: r1 never crashed", kind)
		}
	}
}
