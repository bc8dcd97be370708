package realclient

// This file is the package's only dependency on the checkers' API
// (invariant.Check, model.Spec.CheckConfig): keep every call to it here.

import (
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// verdict checks a real client's history with the catalogue's checkers.
// A lock on several masters is judged as Redlock is: a lease is alive while
// a majority (Options.Quorum) of the nodes that granted it still hold it.
func verdict(h sim.History, s model.Spec) []invariant.Violation {
	return invariant.Check(h, checkConfig(s))
}

// undecided returns the invariants a judged run had no verdict on
// (model.UndecidedOf), by the config verdict judged it with.
func undecided(r *model.Result) []invariant.ID {
	if r.Err != nil || len(r.History) == 0 {
		return nil
	}
	return model.UndecidedOf(history.New(r.History), checkConfig(r.Spec), r.Violations)
}

func checkConfig(s model.Spec) invariant.Config {
	cfg := s.CheckConfig()
	cfg.PerClient = true
	if s.Topology.Masters > 1 {
		cfg.Quorum = s.Options.Quorum
	}
	return cfg
}
