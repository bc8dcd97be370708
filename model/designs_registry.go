package model

import (
	"slices"
	"time"

	"locksim/clock"
	"locksim/sim"
)

// registered are the designs other packages added with RegisterDesign,
// after the catalogue's own, in registration order.
var registered []struct {
	id, about string
	make      func() Design
}

// RegisterDesign adds a design to the catalogue under id, for designs
// that live outside package model (package consensus registers its
// lease designs this way, from its own init, which importing it runs).
// It must be called before any run, from one goroutine
// (an init function or a sync.Once); a second registration of the same ID
// is ignored, and an ID the catalogue already has panics (a programmer
// bug).
func RegisterDesign(id, about string, make func() Design) {
	for _, d := range catalogue {
		if d.id == id {
			panic("model: RegisterDesign: " + id + " is a catalogue design")
		}
	}
	if slices.ContainsFunc(registered, func(r struct {
		id, about string
		make      func() Design
	}) bool {
		return r.id == id
	}) {
		return
	}
	registered = append(registered, struct {
		id, about string
		make      func() Design
	}{id, about, make})
}

// Deployer is a Design that brings its own nodes instead of Redis groups:
// a consensus cluster. Spec.Config calls Deploy once per run with the node
// names r1..rN (N = Topology.Masters, so the catalogue's scenarios aim
// their node faults at the same names) and the clocks Topology.NodeClocks
// gives them; Deploy returns fresh nodes (new state) every time. Such a
// design runs with no replicas and no Sentinel; Topology.Persistence does
// not apply (the nodes keep their own log).
type Deployer interface {
	Deploy(names []string, clocks map[string]clock.Config) ([]sim.NodeConfig, error)
}

// LivenessBounder is a Design whose recovery after a fault takes longer
// than the default liveness bound (two TTLs and a third of the acquire
// wait) assumes: a consensus lease waits for an election and then a full
// TTL on the new leader. LivenessBound returns the bound for options o
// (defaults applied); it must be positive.
type LivenessBounder interface {
	LivenessBound(o Options) time.Duration
}

// Nodes returns the nodes a Deployer design's run deployed (r1, r2, ...),
// which the design addresses by name; nil for Redis deployments.
func (c *Client) Nodes() []string { return c.ctx.Machines() }
