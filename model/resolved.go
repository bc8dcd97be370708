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

// Config builds the simulation configuration of the resolved spec
// (Spec.Config, without building the design again).
func (r *Resolved) Config() (sim.Config, error) { return r.Spec.config(r.Design, r.Traits, r.Roster) }
