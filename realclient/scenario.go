package realclient

import (
	"testing"

	"locksim/model"
	"locksim/scenarios"
	"locksim/sim"
)

// scenarioConfig returns a catalogue scenario's run with the real client in
// place of its design: its clients, TTL, workload, layout, network and
// faults, with opts applied on top (WithTopology for a lock on several
// masters when the scenario leaves the layout open, WithOptions...).
//
// A trigger on a client's `call` becomes one on its `acquire-send`: the
// catalogue counts a design's lock requests, and a real client's first
// calls are its connection handshake (HELLO, CLIENT SETINFO), so "pause A
// after A call" means, as in the catalogue, a pause between sending the
// lock request and reading its reply.
func scenarioConfig(id string, opts ...Option) (model.Spec, config, error) {
	sc, err := scenarios.Lookup(id)
	if err != nil {
		return model.Spec{}, config{}, err
	}
	s, err := sc.SpecFor(sc.Design)
	if err != nil {
		return model.Spec{}, config{}, err
	}
	for i, f := range s.Faults {
		if f.After != nil && f.After.Kind == sim.KindCall && f.After.Actor != "" {
			t := *f.After
			t.Kind = KindAcquireSend
			s.Faults[i].After = &t
		}
	}
	s.Design = ""
	base := []Option{func(c *config) {
		c.Base = s
		if c.Base.Workload.Cycles == 0 && c.Base.Workload.Duration == 0 {
			c.Base.Workload.Cycles = 1
		}
	}}
	c, err := newConfig(append(base, opts...))
	if err != nil {
		return model.Spec{}, config{}, err
	}
	s, err = resolved(c.Base)
	return s, c, err
}

// RunScenario runs a catalogue scenario (scenarios.Lookup: gc-pause,
// pause-during-acquire, clock-jump, failover-lost-write...) once with
// setup in place of its design, with the scenario's own seed 1, and
// returns the checked result.
func RunScenario(t *testing.T, id string, setup Setup, opts ...Option) (*model.Result, error) {
	t.Helper()
	s, c, err := scenarioConfig(id, opts...)
	if err != nil {
		return nil, err
	}
	return c.run(t, s, 1, setup)
}
