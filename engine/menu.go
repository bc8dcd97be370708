package engine

import (
	"slices"
	"strings"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// ExhaustiveKinds are the fault kinds exhaustive mode places by default.
// Clock drift and eviction are left to the random search: drift acts over
// time rather than at a moment, and eviction needs a volatile-* policy.
var ExhaustiveKinds = []sim.FaultKind{sim.FaultPause, sim.FaultCrash, sim.FaultDrop, sim.FaultDelay,
	sim.FaultPartition, sim.FaultNodeCrash, sim.FaultClockJump}

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

// DurClasses returns the duration classes of a configuration (defaults
// applied), without repeats: half the TTL; just under and just over the
// TTL (by 1% of it, at least 1ms); twice the TTL; just over the call
// timeout (and redlock's per-node timeout for a quorum design); just over
// Sentinel's down-after when groups fail over.
func DurClasses(s model.Spec) []DurClass {
	ttl := s.Options.TTL
	eps := max(ttl/100, time.Millisecond)
	cs := []DurClass{
		{Name: "ttl/2", Dur: ttl / 2, Meaning: "half the TTL"},
		{Name: "ttl-", Dur: ttl - eps, Meaning: "just under the TTL"},
		{Name: "ttl+", Dur: ttl + eps, Meaning: "just over the TTL"},
		{Name: "2ttl", Dur: 2 * ttl, Meaning: "twice the TTL"},
		{Name: "timeout+", Dur: s.Options.CallTimeout + eps, Meaning: "just over the call timeout"},
	}
	if s.Traits().Quorum {
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

// menu lists the faults of the chosen kinds at point p, in a fixed order.
// h is the run p belongs to (for the reply windows).
func (x *explorer) menu(p Point, h sim.History) []choice {
	var cs []choice
	add := func(f sim.Fault, role string, c DurClass, size time.Duration) bool {
		if !slices.Contains(x.kinds, f.Kind) {
			return false
		}
		t := p.Trigger
		f.After = &t
		cs = append(cs, choice{fault: f, role: role, class: c.Name, size: size})
		return true
	}
	if p.Client {
		me := p.Actor
		for _, c := range x.classes {
			add(sim.Fault{Kind: sim.FaultPause, Target: me, Dur: c.Dur}, "the client", c, c.Dur)
		}
		add(sim.Fault{Kind: sim.FaultCrash, Target: me}, "the client", DurClass{}, 0)
		if x.readsWall {
			// A client that decides by its wall clock: step it both ways.
			for _, c := range x.classes {
				add(sim.Fault{Kind: sim.FaultClockJump, Target: me, By: c.Dur}, "the client's clock", c, c.Dur)
				add(sim.Fault{Kind: sim.FaultClockJump, Target: me, By: -c.Dur}, "the client's clock", c, c.Dur)
			}
		}
		if c := p.Call; c != nil {
			to := c.Peer
			add(sim.Fault{Kind: sim.FaultDrop, From: me, To: to, Count: 1, Dur: time.Nanosecond}, "the request", DurClass{}, 0)
			var window time.Duration
			if p.Reply >= 0 {
				window = h[p.Reply].At - p.At + time.Nanosecond
				add(sim.Fault{Kind: sim.FaultDrop, From: to, To: me, Count: 1, Dur: window}, "the reply", DurClass{}, 0)
			}
			for _, d := range x.classes {
				add(sim.Fault{Kind: sim.FaultDelay, From: me, To: to, Extra: d.Dur, Dur: time.Nanosecond}, "the request", d, d.Dur)
				if window > 0 {
					add(sim.Fault{Kind: sim.FaultDelay, From: to, To: me, Extra: d.Dur, Dur: window}, "the reply", d, d.Dur)
				}
				add(sim.Fault{Kind: sim.FaultPartition, A: []string{me}, B: []string{to}, Dur: d.Dur}, "the link", d, d.Dur)
			}
		}
	}
	for _, n := range p.Peers {
		role := "its node"
		if !p.Client {
			role = "the node"
		}
		for _, d := range append(slices.Clone(x.classes), forever) {
			size := d.Dur
			if d.Dur == 0 {
				size = 1 << 62
			}
			add(sim.Fault{Kind: sim.FaultNodeCrash, Target: n, Dur: d.Dur}, role, d, size)
		}
		if !p.Client && p.Cmd != "" {
			// Just after the node replied: the client has its answer, the
			// replicas never get the write (it dies in the output buffer),
			// and without persistence the node comes back without it.
			for _, d := range append(slices.Clone(x.classes), forever) {
				size := d.Dur
				if d.Dur == 0 {
					size = 1 << 62
				}
				if add(sim.Fault{Kind: sim.FaultNodeCrash, Target: n, Dur: d.Dur, At: time.Microsecond}, role, d, size) {
					cs[len(cs)-1].when = "just after the node replied to " + p.Cmd
				}
			}
		}
		for _, d := range x.classes {
			add(sim.Fault{Kind: sim.FaultClockJump, Target: n, By: d.Dur}, role, d, d.Dur)
		}
		for _, d := range x.classes {
			add(sim.Fault{Kind: sim.FaultPartition, A: []string{n}, B: x.roles.without(n), Dur: d.Dur}, role+" alone", d, d.Dur)
		}
		if p.Client && x.roles.sentinel && len(x.roles.replicas[n]) > 0 {
			for _, d := range x.classes {
				add(sim.Fault{Kind: sim.FaultPartition, A: []string{n, p.Actor}, B: x.roles.without(n, p.Actor), Dur: d.Dur}, "its node and the client", d, d.Dur)
			}
		}
	}
	return cs
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
	sim.KindTaskEnd:           "after one of the client's tasks ended",
}

var nodePhases = map[sim.Kind]string{
	sim.KindKey:       "after a key changed on the node",
	sim.KindExpire:    "after a key expired on the node",
	sim.KindReplApply: "after the replica applied the replication stream",
	sim.KindPromote:   "after the node was promoted",
	sim.KindDemote:    "after the node was demoted",
}

// command names a request by its command word (EVAL for scripts).
func command(args []string) string {
	if len(args) == 0 {
		return "a request"
	}
	return strings.ToUpper(args[0])
}
