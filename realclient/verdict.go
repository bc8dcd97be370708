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
// a majority (Options.Quorum) of the nodes that granted it still hold it;
// a lock with several keys on one node, over its keys (keys.quorum).
// With all, every violation the checkers find (a risk estimate counts
// them all), not the first MaxPerInvariant of each.
func verdict(h sim.History, s model.Spec, keys lockKeySet, all bool) []invariant.Violation {
	cfg := checkConfig(s)
	cfg.LockKeys = keys.keys
	if keys.quorum > 0 {
		cfg.Quorum = keys.quorum
	}
	if all {
		return invariant.CheckIndexAll(history.New(h), cfg)
	}
	return invariant.Check(h, cfg)
}

// undecided returns the invariants a judged run had no verdict on
// (model.UndecidedOf), by the config verdict judged it with.
func undecided(r *model.Result) []invariant.ID {
	if r.Err != nil || len(r.History) == 0 {
		return nil
	}
	cfg := checkConfig(r.Spec)
	cfg.LockKeys = historyLockKeys(r.History)
	ix := history.New(r.History)
	ids := append(model.UndecidedOf(ix, cfg, r.Violations), model.WritesUndecidedOf(ix, cfg, r.Violations)...)
	if cfg.Validity && !promised(r.History) {
		ids = append(ids, invariant.PrematureLoss)
	}
	return ids
}

// promised reports whether a real client's history promised a holder a
// validity: an acquisition or renewal that recorded one (the library's
// Until, or the deadline it declares with model.Options.Deadline). A
// library that reports neither is not judged on premature-loss: its runs
// have no verdict on it, rather than holding it.
func promised(h sim.History) bool {
	for _, e := range h {
		if (e.Kind == history.KindAcquired || e.Kind == history.KindRenew) && e.Dur != 0 {
			return true
		}
	}
	return false
}

// historyLockKeys returns the lock keys a real client's history shows
// (after rewriteKeys): its acquisitions' Key and granted keys, and every
// key a client's command set to one of its lock values.
func historyLockKeys(h sim.History) []string {
	found, _ := foundKeys(h, history.New(h), acquisitionValues(h), "")
	for _, e := range h {
		if e.Kind != history.KindAcquired {
			continue
		}
		found[e.Key] = true
		for _, g := range history.Grants(e.Peer, e.Key) {
			found[g.Key] = true
		}
	}
	return sortedKeys(found)
}

func checkConfig(s model.Spec) invariant.Config {
	cfg := s.CheckConfig()
	cfg.PerClient = true
	if s.Topology.Masters > 1 {
		cfg.Quorum = s.Options.Quorum
	}
	return cfg
}
