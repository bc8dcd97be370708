package model

import (
	"locksim/model/invariant"
	"locksim/sim"
)

// Resolved is a spec resolved once: its defaults applied (Spec), its
// design built (Design), the traits it runs with (Traits), its nodes,
// groups and clients (Roster), and what the checkers judge its runs by,
// with their bounds: the fencing rule, the quorum, the liveness and
// availability bounds (Check). Spec.Resolve is the one place that builds
// it; a run (Run, Verdict) builds its world (Config) and checks its
// history from it without applying defaults or looking the design up
// again, and a caller that holds one reads its traits and bounds from it.
type Resolved struct {
	Spec   Spec
	Design Design
	Traits Traits
	Roster Roster
	Check  invariant.Config
	// err is why the design cannot be built (Resolution): Config
	// returns it.
	err error
}

// Resolve resolves the spec (see Resolved). The error is for a design
// that cannot be built (an unknown ID, a Lua design without valid
// scripts); the rest of the spec is validated when its world is built
// (Resolved.Config).
func (s Spec) Resolve() (*Resolved, error) {
	d, err := s.design()
	if err != nil {
		return nil, err
	}
	s = s.withDefaults(s.traits(d))
	if s.Design == LuaDesignID {
		// A Lua design's scripts take tokens by the fencing rule, which
		// the defaults may have set: build it again from the resolved spec.
		if d, err = s.design(); err != nil {
			return nil, err
		}
	}
	r := &Resolved{Spec: s, Design: d, Traits: s.traits(d), Roster: s.Roster()}
	r.Check = s.checkConfig(d, r.Traits, r.Roster)
	return r, nil
}

// Resolution is Resolve for a caller that goes on with a spec whose
// design cannot be built (a fault generator drawing a run that its run
// then refuses, a description, a report): the spec then has the defaults
// of a design without declared traits (what WithDefaults gives), Design is
// nil, and Config refuses it with Resolve's error.
func (s Spec) Resolution() *Resolved {
	r, err := s.Resolve()
	if err == nil {
		return r
	}
	s = s.withDefaults(s.traits(nil))
	t := s.traits(nil)
	r = &Resolved{Spec: s, Traits: t, Roster: s.Roster(), err: err}
	r.Check = s.checkConfig(nil, t, r.Roster)
	return r
}

// Config builds the simulation configuration of the resolved spec
// (Spec.Config, without building the design again).
func (r *Resolved) Config() (sim.Config, error) {
	if r.err != nil {
		return sim.Config{}, r.err
	}
	return r.Spec.config(r.Design, r.Traits, r.Roster)
}

// ServerVersion is Spec.ServerVersion of the resolved spec.
func (r *Resolved) ServerVersion() (sim.Version, error) { return r.Spec.serverVersion(r.Traits) }

// LockKeys are the keys that hold the lock on a node (see LockKeys).
func (r *Resolved) LockKeys() []string { return lockKeys(r.Traits) }

// Settings is Spec.Settings of the resolved spec: the words of its
// options that differ from what its design takes by default under the
// same TTL and topology.
func (r *Resolved) Settings() []string { return r.Spec.settings(r.Traits) }

// CanCount is Spec.CanCount of the resolved spec.
func (r *Resolved) CanCount(ids []invariant.ID) error { return r.Spec.canCount(r.Check, r.Traits, ids) }
