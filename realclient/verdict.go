package realclient

// This file is the package's only dependency on the checkers' API
// (model.Check, model.Spec.CheckConfigFor), which is due to move when the
// checker package is split out: keep every call to it here.

import (
	"locksim/model"
	"locksim/sim"
)

// verdict checks a real client's history with the catalogue's checkers.
// A lock on several masters is judged as Redlock is: a lease is alive while
// a majority (Options.Quorum) of the nodes that granted it still hold it.
func verdict(h sim.History, s model.Spec) []model.Violation {
	cfg := s.CheckConfigFor()
	if s.Topology.Masters > 1 {
		cfg.Quorum = s.Options.Quorum
	}
	return model.Check(h, cfg)
}
