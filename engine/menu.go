package engine

import (
	"slices"
	"strings"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// ExhaustiveKinds are the fault kinds exhaustive mode places by default,
// in the order results list them. Every one has places in menuKinds.
var ExhaustiveKinds = []sim.FaultKind{sim.FaultPause, sim.FaultCrash, sim.FaultDrop, sim.FaultDelay,
	sim.FaultPartition, sim.FaultNodeCrash, sim.FaultClockJump}

// PlacedKinds are the kinds exhaustive mode can place when asked:
// ExhaustiveKinds, then the others menuKinds places, in its order.
func PlacedKinds() []sim.FaultKind {
	ks := slices.Clone(ExhaustiveKinds)
	for _, k := range menuKinds {
		if k.Skip == "" && !slices.Contains(ks, k.kind) {
			ks = append(ks, k.kind)
		}
	}
	return ks
}

// A DurClass is one of the few fault lengths exhaustive mode tries,
// relative to the configuration: where a lease's outcome changes.
type DurClass struct {
	// Name is short ("ttl+"), Dur the length for this configuration.
	Name string        `json:"name"`
	Dur  time.Duration `json:"dur_ns"`
	// Meaning says what it is relative to.
	Meaning string `json:"meaning"`
	// Also names the classes of the same length this one stands for (a
	// down-after of exactly the TTL makes down-after+ equal ttl+).
	Also []string `json:"also,omitempty"`
}

// DurClasses returns the duration classes of a resolved configuration,
// without repeats: half the TTL; just under and just over the
// TTL (by 1% of it, at least 1ms); twice the TTL; just over the call
// timeout (and redlock's per-node timeout for a quorum design); just over
// Sentinel's down-after when groups fail over.
func DurClasses(rs *model.Resolved) []DurClass {
	s := rs.Spec
	ttl := s.Options.TTL
	eps := max(ttl/100, time.Millisecond)
	cs := []DurClass{
		{Name: "ttl/2", Dur: ttl / 2, Meaning: "half the TTL"},
		{Name: "ttl-", Dur: ttl - eps, Meaning: "just under the TTL"},
		{Name: "ttl+", Dur: ttl + eps, Meaning: "just over the TTL"},
		{Name: "2ttl", Dur: 2 * ttl, Meaning: "twice the TTL"},
		{Name: "timeout+", Dur: s.Options.CallTimeout + eps, Meaning: "just over the call timeout"},
	}
	if rs.Traits.Quorum {
		cs = append(cs, DurClass{Name: "node-timeout+", Dur: s.Options.NodeTimeout + eps, Meaning: "just over the per-node timeout of a quorum lock"})
	}
	if t := s.Topology; t.Replicas > 0 && t.Sentinel.Enabled {
		cs = append(cs, DurClass{Name: "down-after+", Dur: t.Sentinel.DownAfter + eps, Meaning: "just over Sentinel's down-after: the group fails over"})
	}
	var out []DurClass
	for _, c := range cs {
		if c.Dur <= 0 {
			continue
		}
		if i := slices.IndexFunc(out, func(o DurClass) bool { return o.Dur == c.Dur }); i >= 0 {
			out[i].Also = append(out[i].Also, c.Name)
			continue
		}
		out = append(out, c)
	}
	return out
}

// forever is the class of a node crash that never restarts.
var forever = DurClass{Name: "forever", Meaning: "the node never comes back"}

// choice is one fault placed at a point, and how a reader names it.
type choice struct {
	fault sim.Fault
	// role is who the fault hits, relative to the point: "the client",
	// "its node", "the endpoint", "the link"; class its duration class
	// ("" for none); size its magnitude, for picking a group's smallest
	// schedule; when, if set, says where it takes hold instead of the
	// point's phase.
	role, class, when string
	size              time.Duration
}

// menuKind is exhaustive mode's entry for one fault kind: where it places
// faults of that kind at a point, each hook adding its choices through
// add. A kind exhaustive mode does not place says why in Skip.
// TestEveryFaultKindHasAMenuEntry fails when a kind of sim.FaultKindTable
// has no entry.
type menuKind struct {
	kind sim.FaultKind
	// client places at a client's point (the client, its clock).
	client func(m *menuAt)
	// call places on the point's request, once; perClass once per
	// duration class, after every kind's call.
	call     func(m *menuAt)
	perClass func(m *menuAt, d DurClass)
	// peer places on each node the point involves.
	peer func(m *menuAt, n string)
	// Skip says why exhaustive mode does not place the kind.
	Skip string
}

// menuAt is one point being given its menu.
type menuAt struct {
	x      *explorer
	p      Point
	window time.Duration // how long the point's reply takes, 0 without one
	cs     []choice
}

// add places f at the point if its kind was chosen; it reports whether it
// did.
func (m *menuAt) add(f sim.Fault, role string, c DurClass, size time.Duration) bool {
	if !slices.Contains(m.x.kinds, f.Kind) {
		return false
	}
	t := m.p.Trigger
	f.After = &t
	if f.Kind == sim.FaultPartition {
		f.Blackhole = m.x.cfg.Blackhole
	}
	m.cs = append(m.cs, choice{fault: f, role: role, class: c.Name, size: size})
	return true
}

// nodeRole names a node relative to the point.
func (m *menuAt) nodeRole() string {
	if !m.p.Client {
		return "the node"
	}
	return "its node"
}

// withForever adds the class of a node that never comes back.
func (m *menuAt) withForever() []DurClass { return append(slices.Clone(m.x.classes), forever) }

// menuKinds lists every fault kind's menu entry. The hooks of one phase
// (client, call, per class, peer) run in this order, which is the order
// of a point's choices.
var menuKinds = []menuKind{
	{kind: sim.FaultPause, client: func(m *menuAt) {
		for _, c := range m.x.classes {
			m.add(sim.Fault{Kind: sim.FaultPause, Target: m.p.Actor, Dur: c.Dur}, "the client", c, c.Dur)
		}
	}},
	{kind: sim.FaultCrash, client: func(m *menuAt) {
		m.add(sim.Fault{Kind: sim.FaultCrash, Target: m.p.Actor}, "the client", DurClass{}, 0)
	}},
	{kind: sim.FaultDrop, call: func(m *menuAt) {
		me, to := m.p.Actor, m.p.Call.Peer
		m.add(sim.Fault{Kind: sim.FaultDrop, From: me, To: to, Count: 1, Dur: time.Nanosecond}, "the request", DurClass{}, 0)
		if m.window > 0 {
			m.add(sim.Fault{Kind: sim.FaultDrop, From: to, To: me, Count: 1, Dur: m.window}, "the reply", DurClass{}, 0)
		}
	}},
	{kind: sim.FaultDelay, perClass: func(m *menuAt, d DurClass) {
		me, to := m.p.Actor, m.p.Call.Peer
		m.add(sim.Fault{Kind: sim.FaultDelay, From: me, To: to, Extra: d.Dur, Dur: time.Nanosecond}, "the request", d, d.Dur)
		if m.window > 0 {
			m.add(sim.Fault{Kind: sim.FaultDelay, From: to, To: me, Extra: d.Dur, Dur: m.window}, "the reply", d, d.Dur)
		}
	}},
	{kind: sim.FaultNodeCrash, peer: func(m *menuAt, n string) {
		for _, d := range m.withForever() {
			m.add(sim.Fault{Kind: sim.FaultNodeCrash, Target: n, Dur: d.Dur}, m.nodeRole(), d, sizeOrForever(d))
		}
		if !m.p.Client && m.p.Cmd != "" {
			// Just after the node replied: the client has its answer, the
			// replicas never get the write (it dies in the output buffer),
			// and without persistence the node comes back without it.
			for _, d := range m.withForever() {
				if m.add(sim.Fault{Kind: sim.FaultNodeCrash, Target: n, Dur: d.Dur, At: time.Microsecond}, m.nodeRole(), d, sizeOrForever(d)) {
					m.cs[len(m.cs)-1].when = "just after the node replied to " + m.p.Cmd
				}
			}
		}
	}},
	{kind: sim.FaultClockJump,
		client: func(m *menuAt) {
			if !m.x.readsWall {
				return
			}
			// A client that decides by its wall clock: step it both ways.
			for _, c := range m.x.classes {
				m.add(sim.Fault{Kind: sim.FaultClockJump, Target: m.p.Actor, By: c.Dur}, "the client's clock", c, c.Dur)
				m.add(sim.Fault{Kind: sim.FaultClockJump, Target: m.p.Actor, By: -c.Dur}, "the client's clock", c, c.Dur)
			}
		},
		peer: func(m *menuAt, n string) {
			for _, d := range m.x.classes {
				m.add(sim.Fault{Kind: sim.FaultClockJump, Target: n, By: d.Dur}, m.nodeRole(), d, d.Dur)
			}
		}},
	{kind: sim.FaultPartition,
		perClass: func(m *menuAt, d DurClass) {
			m.add(sim.Fault{Kind: sim.FaultPartition, A: []string{m.p.Actor}, B: []string{m.p.Call.Peer}, Dur: d.Dur}, "the link", d, d.Dur)
		},
		peer: func(m *menuAt, n string) {
			classes := m.x.classes
			if m.x.cfg.Blackhole { // a blackhole differs from a reset only when it never heals
				classes = m.withForever()
			}
			for _, d := range classes {
				m.add(sim.Fault{Kind: sim.FaultPartition, A: []string{n}, B: m.x.roles.without(n), Dur: d.Dur}, m.nodeRole()+" alone", d, d.Dur)
			}
			if m.p.Client && m.x.roles.sentinel && len(m.x.roles.ReplicasOf(n)) > 0 {
				for _, d := range m.x.classes {
					m.add(sim.Fault{Kind: sim.FaultPartition, A: []string{n, m.p.Actor}, B: m.x.roles.without(n, m.p.Actor), Dur: d.Dur}, "its node and the client", d, d.Dur)
				}
			}
		}},
	{kind: sim.FaultNodeStall, peer: func(m *menuAt, n string) {
		for _, d := range m.x.classes {
			m.add(sim.Fault{Kind: sim.FaultNodeStall, Target: n, Dur: d.Dur}, m.nodeRole(), d, d.Dur)
		}
	}},
	{kind: sim.FaultClockDrift, Skip: "drift acts over time rather than at a moment: left to the random search"},
	{kind: sim.FaultEvict, Skip: "eviction needs a volatile-* maxmemory policy: left to the random search"},
	{kind: sim.FaultStarve, client: func(m *menuAt) {
		if !slices.Contains(m.x.kinds, sim.FaultStarve) {
			return
		}
		// CPU starvation of one task: the watchdog (when the design
		// renews), then the main task, the rest of the process running.
		tasks := []string{"main"}
		if m.x.renews {
			tasks = []string{"watchdog", "main"}
		}
		for _, task := range tasks {
			for _, c := range m.x.classes {
				m.add(sim.Fault{Kind: sim.FaultStarve, Target: m.p.Actor, Task: task, Dur: c.Dur}, "the client's "+task+" task", c, c.Dur)
			}
		}
	}},
	{kind: sim.FaultClusterFailover, Skip: "a manual failover is an operator's action on a cluster, not a failure at a point of the run: left to the random search"},
	{kind: sim.FaultSlotMigrate, Skip: "a slot migration is an operator's resharding of a cluster, not a failure at a point of the run: left to the random search"},
	{kind: sim.FaultMemoryPressure, peer: func(m *menuAt, n string) {
		if !slices.Contains(m.x.kinds, sim.FaultMemoryPressure) || deploys(m.x.spec) {
			return
		}
		// A burst of other data on the node, for good: on a node with
		// maxmemory, as much as its maxmemory (it evicts by its own
		// policy); on one without, one key's worth with the node capped
		// at what it holds, under a policy that takes any key and one
		// that takes only keys with a TTL.
		if mm := m.x.spec.Topology.MaxMemory; mm > 0 {
			m.add(sim.Fault{Kind: sim.FaultMemoryPressure, Target: n, Size: min(mm, sim.MaxPressureBytes)}, m.nodeRole(), DurClass{}, 0)
			return
		}
		for _, pol := range []sim.EvictionPolicy{sim.AllKeysLRU, sim.VolatileLRU} {
			m.add(sim.Fault{Kind: sim.FaultMemoryPressure, Target: n, Size: pressureKeyBytes, Policy: pol}, m.nodeRole()+" under "+string(pol), DurClass{}, 0)
		}
	}},
}

// sizeOrForever is a class's size for picking a group's smallest
// schedule; forever is the largest.
func sizeOrForever(d DurClass) time.Duration {
	if d.Dur == 0 {
		return 1 << 62
	}
	return d.Dur
}

// menu lists the faults of the chosen kinds at point p, in a fixed order:
// the client's, the request's, per duration class on the request, then
// each node's, each phase in menuKinds order. h is the run p belongs to
// (for the reply windows).
func (x *explorer) menu(p Point, h sim.History) []choice {
	m := &menuAt{x: x, p: p}
	if p.Client {
		for _, k := range menuKinds {
			if k.client != nil {
				k.client(m)
			}
		}
		if c := p.Call; c != nil {
			if p.Reply >= 0 {
				m.window = h[p.Reply].At - p.At + time.Nanosecond
			}
			for _, k := range menuKinds {
				if k.call != nil {
					k.call(m)
				}
			}
			for _, d := range x.classes {
				for _, k := range menuKinds {
					if k.perClass != nil {
						k.perClass(m, d)
					}
				}
			}
		}
	}
	for _, n := range p.Peers {
		for _, k := range menuKinds {
			if k.peer != nil {
				k.peer(m, n)
			}
		}
	}
	return m.cs
}

// without lists every client and endpoint but the named ones.
func (r roles) without(names ...string) []string {
	return slices.DeleteFunc(r.everyone(), func(a string) bool { return slices.Contains(names, a) })
}

// label names a choice at a point by mechanism, without its duration
// class, client or node names or counts, so that the same way of breaking
// groups together whichever client, node, cycle or length it hit: "pause
// the client after the client's acquired", "node-crash its node as the
// client sends SET to its node".
func label(p Point, c choice) string {
	verb := string(c.fault.Kind) + " " + c.role
	switch {
	case c.fault.Kind == sim.FaultClockJump && c.fault.By < 0:
		verb += " backward"
	case c.fault.Kind == sim.FaultClockJump:
		verb += " forward"
	}
	if c.when != "" {
		return verb + " " + c.when
	}
	return verb + " " + phase(p)
}

// phase says where in the protocol a point is, without names.
func phase(p Point) string {
	if p.Call != nil {
		to := "its node"
		if !p.Client || len(p.Peers) == 0 {
			to = p.Call.Peer // a service: the resource
		}
		return "as the client sends " + p.Cmd + " to " + to
	}
	switch {
	case p.Client:
		if ph, ok := clientPhases[p.Kind]; ok {
			return ph
		}
		return "after the client's " + string(p.Kind)
	case p.Cmd != "":
		return "after the node executes " + p.Cmd
	}
	if ph, ok := nodePhases[p.Kind]; ok {
		return ph
	}
	return "after the node's " + string(p.Kind)
}

// clientPhases and nodePhases word where a point is, by the kind of the
// event that names it.
var clientPhases = map[sim.Kind]string{
	history.KindAcquireStart:  "as the client starts an acquisition",
	history.KindAcquired:      "right after the client acquired",
	history.KindAcquireFailed: "after the client gave up acquiring",
	history.KindLeaseLost:     "after the client found its lease gone",
	history.KindRead:          "after the client read the resource",
	history.KindWrite:         "after the client prepared its write",
	history.KindRelease:       "as the client invokes release",
	history.KindReleaseSend:   "inside release, after its checks, before it gives the key back",
	history.KindReleased:      "after the client's release",
	history.KindRenew:         "after a watchdog renewal came back",
	history.KindWatchdogStop:  "after the watchdog stopped",
	sim.KindReply:             "after the client read a reply",
	sim.KindTimeout:           "after one of the client's requests timed out",
	sim.KindMessage:           "after the client got a pub/sub message",
	sim.KindPush:              "after the client got an invalidation push",
	sim.KindTaskEnd:           "after one of the client's tasks ended",
}

var nodePhases = map[sim.Kind]string{
	sim.KindKey:        "after a key changed on the node",
	sim.KindExpire:     "after a key expired on the node",
	sim.KindReplApply:  "after the replica applied the replication stream",
	sim.KindPromote:    "after the node was promoted",
	sim.KindDemote:     "after the node was demoted",
	sim.KindInvalidate: "after the node sent an invalidation push",
}

// command names a request by its command word (EVAL for scripts).
func command(args []string) string {
	if len(args) == 0 {
		return "a request"
	}
	return strings.ToUpper(args[0])
}

// pressureKeyBytes is about the memory of one key of a memory-pressure
// burst (64 + "fill:N" + 100 bytes).
const pressureKeyBytes = 170

// deploys reports whether s's design brings its own nodes (a consensus
// cluster), which hold no Redis keys.
func deploys(s model.Spec) bool {
	var d model.Design = s.Custom
	if d == nil {
		d, _ = model.LookupDesign(s.Design)
	}
	_, ok := d.(model.Deployer)
	return ok
}
