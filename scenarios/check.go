package scenarios

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/internal/bounded"
	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// Kinds of names in a scenario.
const (
	nameClient   = "client"
	nameNode     = "node"
	nameResource = "resource"
	nameSentinel = "sentinel"
	nameFault    = sim.FaultActor
	nameAny      = "*"
)

// EventKinds returns every event kind a trigger may name, sorted: the
// simulator's and the lock protocol's (history.All).
func EventKinds() []string {
	var ks []string
	for _, k := range history.All() {
		ks = append(ks, string(k.Kind))
	}
	slices.Sort(ks)
	return ks
}

// world is the set of names a scenario defines.
type world struct {
	clients  []string
	nodes    []string // nil without a fixed layout
	sentinel bool
}

func (p *parser) world() *world {
	w := &world{clients: p.s.Spec.Clients, sentinel: p.s.Spec.Topology.Sentinel.Enabled}
	if p.s.Layout != nil {
		w.nodes = p.s.Layout.Nodes()
	}
	return w
}

// kindOf returns what name is, or "".
func (w *world) kindOf(name string) string {
	switch {
	case slices.Contains(w.clients, name):
		return nameClient
	case slices.Contains(w.nodes, name):
		return nameNode
	case name == model.ResourceName:
		return nameResource
	case name == sim.SentinelName && w.sentinel:
		return nameSentinel
	case name == nameFault:
		return nameFault
	case name == nameAny:
		return nameAny
	}
	return ""
}

// resolve returns the kind of name if it is one of want, else an error
// that says what the name is or why it is unknown.
func (w *world) resolve(name string, want ...string) (string, error) {
	k := w.kindOf(name)
	if k != "" && slices.Contains(want, k) {
		return k, nil
	}
	wanted := strings.Join(want, " or ")
	switch {
	case k == nameAny:
		return "", errors.Errorf("%s is not allowed here; want a %s", bounded.Q(name), wanted)
	case k != "":
		return "", errors.Errorf("%s is a %s; want a %s", name, k, wanted)
	case name == sim.SentinelName:
		return "", errors.New("names the sentinel, but the file has no sentinel line")
	case strings.HasPrefix(name, "m") && nodeOrGroup.MatchString(name):
		return "", errors.Errorf("%s is a group; name its nodes (r1, r2, ...)", name)
	case strings.HasPrefix(name, "r") && nodeOrGroup.MatchString(name) && w.nodes == nil:
		return "", errors.Errorf("names node %s, but the file fixes no layout: add topology masters=N replicas=N (node names depend on it)", name)
	case strings.HasPrefix(name, "r") && nodeOrGroup.MatchString(name):
		return "", errors.Errorf("unknown node %s (nodes: %s)", bounded.Q(name), listNames(w.nodes))
	}
	return "", errors.Errorf("unknown %s %s (clients: %s)", wanted, bounded.Q(name), strings.Join(w.clients, ", "))
}

// listNames abbreviates long node lists: "r1..r15".
func listNames(ns []string) string {
	if len(ns) > 4 {
		return ns[0] + ".." + ns[len(ns)-1]
	}
	return strings.Join(ns, ", ")
}

// finish checks what needs the whole header: required lines, names,
// designs, and the fit of options and layout.
func (p *parser) finish() error {
	s := p.s
	for _, req := range []string{"name", "title", "clients"} {
		if p.first[req] == 0 {
			return p.errorf(p.end, "missing required %s line (the header ends here)", req)
		}
	}
	own := s.Spec // judged for the scenario's own design
	if own.Design == "" && s.Design != "" && s.Design != model.LuaDesignID {
		own.Design = s.Design
	}
	if err := own.ValidateSettings(); own.Design != "" && err != nil {
		line := p.first["option"]
		if line == 0 {
			line = p.end
		}
		return p.at(line, err)
	}
	w := p.world()
	t := &s.Spec.Topology
	if l := s.Layout; l != nil && l.Replicas == 0 && t.Sentinel.Enabled {
		return p.errorf(p.first["sentinel"], "a sentinel needs replicas to promote, but the layout has replicas=0")
	}
	if l := s.Layout; l != nil && t.MinReplicasToWrite > l.Replicas {
		return p.errorf(p.first["topology"], "min-replicas-to-write=%d with replicas=%d: every write would be refused", t.MinReplicasToWrite, l.Replicas)
	}
	if t.MinReplicasMaxLag != 0 && t.MinReplicasToWrite == 0 {
		return p.errorf(p.first["topology"], "min-replicas-max-lag needs min-replicas-to-write")
	}
	clocks := t.NodeClocks
	t.NodeClocks = nil
	for _, cl := range p.clockLines {
		k, err := w.resolve(cl.name, nameClient, nameNode)
		if err != nil {
			return p.at(cl.line, errors.Wrap(err, "clock"))
		}
		m := &t.ClientClocks
		if k == nameNode {
			m = &t.NodeClocks
		}
		if *m == nil {
			*m = map[string]clock.Config{}
		}
		(*m)[cl.name] = clocks[cl.name]
	}
	for _, pr := range p.prioLines {
		if _, err := w.resolve(pr.name, nameNode); err != nil {
			return p.at(pr.line, errors.Wrap(err, "priority"))
		}
	}
	for i, f := range s.Spec.Faults {
		line := p.faultLines[i]
		if err := checkFault(w, f); err != nil {
			return p.at(line, errors.Wrap(err, "fault"))
		}
		if s.Spec.Until > 0 && f.After == nil && f.At > s.Spec.Until {
			return p.errorf(line, "fault at %s is after until %s", fmtDur(f.At), fmtDur(s.Spec.Until))
		}
	}
	if lim := s.Spec.Limits.MaxTime; lim > 0 && s.Spec.Until > lim {
		return p.errorf(p.first["until"], "until %s is beyond limits time=%s", fmtDur(s.Spec.Until), fmtDur(lim))
	}
	if l := s.Layout; l != nil && s.Spec.Options.Quorum > l.Masters {
		return p.errorf(p.first["option"], "quorum %d is more than masters=%d", s.Spec.Options.Quorum, l.Masters)
	}
	return p.chooseDesign()
}

// chooseDesign checks the `design` line against the others, or picks the
// default design.
func (p *parser) chooseDesign() error {
	s := p.s
	if s.Design != "" {
		if ok, why := s.Applies(s.Design); !ok {
			return p.errorf(p.first["design"], "%s", why)
		}
		return nil
	}
	cands := []string{DefaultDesign}
	if s.Designs != nil {
		cands = append(cands, s.Designs...)
	} else {
		cands = append(cands, Designs()...)
	}
	var why string
	for _, d := range cands {
		ok, w := s.Applies(d)
		if ok {
			s.Design = d
			return nil
		}
		if why == "" {
			why = w
		}
	}
	line := p.first["designs"]
	if line == 0 {
		line = p.first["topology"]
	}
	return p.errorf(line, "no design fits this scenario: %s", why)
}

// checkFault checks a fault's names against the scenario, by its kind's
// target class (sim.FaultKindInfo.Targets); its values were checked when
// it was parsed.
func checkFault(w *world, f sim.Fault) error {
	info, _ := sim.FaultKindOf(f.Kind)
	var err error
	switch t := info.Targets; {
	case t.Has(sim.TargetClient | sim.TargetNode):
		_, err = w.resolve(f.Target, nameClient, nameNode)
	case t.Has(sim.TargetClient):
		_, err = w.resolve(f.Target, nameClient)
	case t.Has(sim.TargetNode):
		_, err = w.resolve(f.Target, nameNode)
	case t.Has(sim.TargetSides):
		for _, n := range append(slices.Clone(f.A), f.B...) {
			if _, err = w.resolve(n, nameClient, nameNode, nameResource, nameSentinel); err != nil {
				break
			}
		}
		if err == nil {
			for i, n := range f.A {
				if slices.Contains(f.B, n) || slices.Contains(f.A[:i], n) {
					return errors.Errorf("partition names %s twice", n)
				}
			}
			for i, n := range f.B {
				if slices.Contains(f.B[:i], n) {
					return errors.Errorf("partition names %s twice", n)
				}
			}
		}
	case t.Has(sim.TargetLink):
		for _, n := range []string{f.From, f.To} {
			if _, err = w.resolve(n, nameClient, nameNode, nameResource, nameSentinel, nameAny); err != nil {
				break
			}
		}
		if err == nil && f.From == f.To && f.From != nameAny {
			err = errors.Errorf("link %s->%s goes nowhere", f.From, f.To)
		}
	}
	if err != nil || f.After == nil {
		return err
	}
	return checkTrigger(w, *f.After)
}

// checkTrigger checks that a trigger's actor exists and can record its
// event kind, so a typo cannot leave a fault that never fires.
func checkTrigger(w *world, t sim.Trigger) error {
	k, err := w.resolve(t.Actor, nameClient, nameNode, nameResource, nameSentinel, nameFault)
	if err != nil {
		return errors.Wrap(err, "trigger")
	}
	info, ok := history.Info(t.Kind)
	if !ok {
		return errors.Errorf("trigger: unknown event kind %s (kinds: %s)", bounded.Q(t.Kind), strings.Join(EventKinds(), ", "))
	}
	by := map[string]sim.Recorders{nameClient: sim.ByClient, nameNode: sim.ByNode, nameResource: sim.ByService, nameFault: sim.ByFault}[k]
	if by == 0 || !info.Recorder.Has(by) {
		return errors.Errorf("trigger: %s is a %s, but only a %s records %s events", t.Actor, k, info.Recorder, strconv.Quote(string(t.Kind)))
	}
	if t.Since != "" {
		si, ok := history.Info(t.Since)
		if !ok {
			return errors.Errorf("trigger: since: unknown event kind %s (kinds: %s)", bounded.Q(t.Since), strings.Join(EventKinds(), ", "))
		}
		if !si.Recorder.Has(by) {
			return errors.Errorf("trigger: since %s: %s is a %s, but only a %s records it", t.Since, t.Actor, k, si.Recorder)
		}
	}
	if t.Task != "" && k != nameClient {
		return errors.Errorf("trigger: task %s: only a client's events have tasks; %s is a %s", t.Task, t.Actor, k)
	}
	return nil
}
