package scenarios

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/internal/bounded"
	"locksim/model"
	"locksim/sim"
)

// KnownDesigns is the catalogue's own design IDs, kept for programs that
// append IDs to it before parsing: Designs includes what they append.
//
// Deprecated: use Designs, which reads model's catalogue (its registered
// designs included) when asked; a design outside package model registers
// with model.RegisterDesign, not here.
var KnownDesigns = model.DesignIDs()

// Designs returns the design IDs that `design` and `designs` lines may
// name and that SpecFor accepts: the catalogue's (model.DesignIDs, with
// the designs registered by then, as package consensus's), then any a
// program appended to KnownDesigns.
func Designs() []string {
	ids := model.DesignIDs()
	for _, id := range KnownDesigns {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// DefaultDesign is the design of a scenario whose file has no `design`
// line and allows it; otherwise the first design its `designs` line names.
const DefaultDesign = model.SetPxLua

// Scenario is one named, teachable fault story: a file parsed by Parse.
// Its Spec is complete except for Design, which SpecFor fills in.
type Scenario struct {
	// Name is the scenario's ID ("gc-pause"): what users type.
	Name string
	// Title is a one-line summary for lists.
	Title string
	// Text is the teaching text: what happens and why, for people.
	Text string
	// Design is the design the scenario runs by default (a Designs
	// ID). It always satisfies Applies.
	Design string
	// Designs are the designs the scenario applies to; nil means all.
	Designs []string
	// Layout is the Redis layout the file fixes; nil lets each design take
	// its default (model.Spec.WithDefaults). Faults may name Redis nodes
	// only when the layout is fixed, because node names depend on it.
	Layout *Layout
	// Spec is the run: everything but Spec.Design. Zero fields take
	// model's defaults.
	Spec model.Spec
	// Expect is what the catalogue says breaks and survives. It is
	// documentation only: a verdict comes from running the scenario and
	// checking invariants, never from these lines.
	Expect []Expectation
	// File is the name the scenario was parsed under, used in errors.
	File string
	// Source is the file's text as read.
	Source string
}

// Expectation is one `expect` line: the catalogue's word on a scenario.
type Expectation struct {
	// Kind is "breaks" or "survives".
	Kind string
	// Text is the catalogue's cell, free text.
	Text string
}

// Expectation kinds.
const (
	ExpectBreaks   = "breaks"
	ExpectSurvives = "survives"
)

// Layout is a fixed Redis deployment: Masters independent groups m1..mN,
// each a primary and Replicas replicas. Nodes are named r1, r2, ... group
// by group, primary first: with Replicas=1, m1 is r1 (primary) and r2, m2
// is r3 and r4, and so on (model.NodeName).
type Layout struct {
	// Masters is the number of groups, at least 1.
	Masters int
	// Replicas is the number of replicas per group, at least 0.
	Replicas int
}

// Groups returns the layout's groups with their node names, in order.
func (l Layout) Groups() []sim.GroupConfig { return model.LayoutRoster(l.Masters, l.Replicas).Groups }

// Nodes returns every node name, r1 first.
func (l Layout) Nodes() []string { return model.LayoutRoster(l.Masters, l.Replicas).Nodes }

// needs returns what a design requires of a fixed layout: independent
// masters and replicas per group.
func needs(design string, o model.Options) (masters, replicas int) {
	t := model.Spec{Design: design, Options: o}.Traits()
	masters, replicas = max(1, t.MinMasters), t.Replicas
	if t.Quorum {
		masters = max(masters, o.Quorum)
	}
	if replicas > 0 {
		replicas = max(replicas, o.WaitReplicas)
	}
	return masters, replicas
}

// Applies reports whether the scenario can run with design, and if not,
// why (a sentence for people). A scenario applies when its `designs` line
// allows the design and its fixed layout, if any, has what the design
// needs: redlock needs at least 3 independent masters (and its quorum),
// wait-replica needs at least one replica per group (and its WAIT count).
func (s *Scenario) Applies(design string) (bool, string) {
	if known := Designs(); !slices.Contains(known, design) {
		return false, "unknown design " + bounded.Q(design) + " (known: " + strings.Join(known, ", ") + ")"
	}
	if s.Designs != nil && !slices.Contains(s.Designs, design) {
		return false, "scenario " + s.Name + " applies to designs " + strings.Join(s.Designs, ", ") + " only; not " + design
	}
	if ok, why := s.ownNodesFit(design, model.Spec{Design: design, Options: s.Spec.Options}.Traits()); !ok {
		return false, why
	}
	if s.Layout == nil {
		return true, ""
	}
	m, r := needs(design, s.Spec.Options)
	if s.Layout.Masters < m {
		return false, "scenario " + s.Name + " fixes masters=" + strconv.Itoa(s.Layout.Masters) +
			"; design " + design + " needs at least " + strconv.Itoa(m) + " independent masters"
	}
	if s.Layout.Replicas < r {
		return false, "scenario " + s.Name + " fixes replicas=" + strconv.Itoa(s.Layout.Replicas) +
			"; design " + design + " needs " + strconv.Itoa(r) + " replica(s) per group to WAIT for"
	}
	return true, ""
}

// ownNodesFit refuses a design that deploys its own nodes (a consensus
// cluster) in a scenario built on Redis replication: replicas or Sentinel.
func (s *Scenario) ownNodesFit(name string, t model.Traits) (bool, string) {
	if !t.OwnNodes {
		return true, ""
	}
	if s.Layout != nil && s.Layout.Replicas > 0 || s.Spec.Topology.Sentinel.Enabled {
		return false, "scenario " + s.Name + " is about Redis replication (replicas or Sentinel); design " + name + " runs its own consensus nodes"
	}
	return true, ""
}

// Fits reports whether the scenario's fixed layout has what a design with
// these traits and options needs, and if not, why. A user's design (Lua or
// Go) runs in any scenario it fits; the `designs` line limits catalogue
// designs only.
func (s *Scenario) Fits(name string, t model.Traits, o model.Options) (bool, string) {
	if ok, why := s.ownNodesFit(name, t); !ok {
		return false, why
	}
	if s.Layout == nil {
		return true, ""
	}
	masters, replicas := max(1, t.MinMasters), t.Replicas
	if t.Quorum {
		masters = max(masters, 3, o.Quorum)
	}
	if replicas > 0 {
		replicas = max(replicas, o.WaitReplicas)
	}
	if s.Layout.Masters < masters {
		return false, "scenario " + s.Name + " fixes masters=" + strconv.Itoa(s.Layout.Masters) +
			"; design " + name + " needs at least " + strconv.Itoa(masters) + " independent masters"
	}
	if s.Layout.Replicas < replicas {
		return false, "scenario " + s.Name + " fixes replicas=" + strconv.Itoa(s.Layout.Replicas) +
			"; design " + name + " needs " + strconv.Itoa(replicas) + " replica(s) per group to WAIT for"
	}
	return true, ""
}

// SpecWith returns a copy of the scenario's spec with a user's design in
// it: d's Design, Lua scripts or Go design, fencing (if set) and options
// (if set); the layout is the one a single-primary design sees unless d
// takes a quorum. It fails when the design does not fit the layout.
func (s *Scenario) SpecWith(d model.Spec) (model.Spec, error) {
	name := d.Design
	if d.Custom != nil {
		name = d.Custom.Name()
	}
	t := d.Traits()
	if ok, why := s.Fits(name, t, s.Spec.Options); !ok {
		return model.Spec{}, errors.New("" + why)
	}
	sp := cloneSpec(s.Spec)
	sp.Design, sp.Lua, sp.Custom = d.Design, d.Lua, d.Custom
	if d.Fencing != "" {
		sp.Fencing = d.Fencing
	}
	if d.Options != (model.Options{}) {
		sp.Options = d.Options
	}
	if d.Lua != nil && sp.Options.LuaMasters == 0 && !t.Quorum {
		sp.Options.LuaMasters = 1
	}
	return sp, nil
}

// SpecFor returns a copy of the scenario's spec with Design set, or an
// error saying why the scenario does not apply to design. The copy shares
// nothing with the scenario.
func (s *Scenario) SpecFor(design string) (model.Spec, error) {
	if ok, why := s.Applies(design); !ok {
		return model.Spec{}, errors.New("" + why)
	}
	sp := cloneSpec(s.Spec)
	sp.Design = design
	return sp, nil
}

// cloneSpec deep-copies the parts of a spec a scenario fills in.
func cloneSpec(s model.Spec) model.Spec {
	s.Clients = slices.Clone(s.Clients)
	s.Faults = cloneFaults(s.Faults)
	s.Network.Links = slices.Clone(s.Network.Links)
	t := &s.Topology
	t.NodeClocks = maps.Clone(t.NodeClocks)
	t.ClientClocks = maps.Clone(t.ClientClocks)
	t.Priorities = maps.Clone(t.Priorities)
	for _, m := range []map[string]clock.Config{t.NodeClocks, t.ClientClocks} {
		for k, c := range m {
			c.Jumps = slices.Clone(c.Jumps)
			m[k] = c
		}
	}
	return s
}

// cloneFault deep-copies one fault (its sides and trigger).
func cloneFault(f sim.Fault) sim.Fault {
	f.A = slices.Clone(f.A)
	f.B = slices.Clone(f.B)
	if f.After != nil {
		t := *f.After
		f.After = &t
	}
	return f
}

func cloneFaults(fs []sim.Fault) []sim.Fault {
	if fs == nil {
		return nil
	}
	out := make([]sim.Fault, len(fs))
	for i, f := range fs {
		out[i] = cloneFault(f)
	}
	return out
}
