package sim

import "time"

// Observer is called after every event a run records, with the world as
// it is at that instant. It may read the world through the inspection
// methods below and must not change it: an observer that only reads leaves
// the run's history unchanged. Tests use it to decide invariants from the
// live world instead of from the history (an oracle for the checkers).
type Observer func(w *World, e Event)

// The inspection methods read the live world; they are for observers and
// tests. Names that are not configured give zero values.

// ClientMono returns client's monotonic clock reading now.
func (w *World) ClientMono(client string) time.Duration {
	if p := w.procs[client]; p != nil {
		return p.clock.Mono(w.now)
	}
	return 0
}

// NodeUp reports whether a node is running.
func (w *World) NodeUp(node string) bool {
	n := w.nodes[node]
	return n != nil && n.up
}

// NodeValue returns the value of key on a running node now, rendered as
// key events render it ("" when absent or the node is down).
func (w *World) NodeValue(node, key string) string {
	n := w.nodes[node]
	if n == nil || !n.up {
		return ""
	}
	if in, ok := n.cfg.Machine.(MachineInspector); ok {
		return in.Value(key)
	}
	if n.m == nil {
		return ""
	}
	n.sync()
	return valueOf(n.m, key)
}

// NodeTTL returns the time to live of key on a running node now, 0 when
// the key has none, is absent or the node is down.
func (w *World) NodeTTL(node, key string) time.Duration {
	n := w.nodes[node]
	if n == nil || !n.up || n.m == nil {
		return 0
	}
	n.sync()
	return max(n.m.TTL(key), 0)
}

// GroupOf returns the group a node belongs to, "" if none.
func (w *World) GroupOf(node string) string {
	if n := w.nodes[node]; n != nil && n.group != nil {
		return n.group.name
	}
	return ""
}

// GroupPrimary returns the sentinel's primary of a group now.
func (w *World) GroupPrimary(group string) string {
	if g := w.groups[group]; g != nil {
		return g.primary
	}
	return ""
}

// NodeReplica reports whether a node of a group runs as a replica now
// (an old primary deposed while it was away still runs as a primary until
// the sentinel demotes it).
func (w *World) NodeReplica(node string) bool {
	n := w.nodes[node]
	return n != nil && n.role == roleReplica
}

// Service returns the handler of a service endpoint.
func (w *World) Service(name string) Service {
	if s := w.services[name]; s != nil {
		return s.h
	}
	return nil
}

// ClientTrueAt returns the true instant, from now on, at which client's
// monotonic clock reads mono, if its rate does not change again (now when
// it already does).
func (w *World) ClientTrueAt(client string, mono time.Duration) time.Duration {
	p := w.procs[client]
	if p == nil {
		return w.now
	}
	return p.clock.TrueAfterMono(w.now, mono-p.clock.Mono(w.now))
}

// ClientLocal returns a client's wall-clock reading now, as a duration
// since clock.Epoch (offset, drift and steps included).
func (w *World) ClientLocal(client string) time.Duration {
	if p := w.procs[client]; p != nil {
		return p.clock.Local(w.now)
	}
	return 0
}

// ClientTrueAtLocal returns the first true instant, from now on, at which
// a client's wall clock reads local (steps scheduled so far included), or
// the run's time limit if it never does.
func (w *World) ClientTrueAtLocal(client string, local time.Duration) time.Duration {
	p := w.procs[client]
	if p == nil {
		return w.now
	}
	if t, ok := p.clock.TrueForLocal(w.now, local, w.cfg.Limits.MaxTime); ok {
		return t
	}
	return w.cfg.Limits.MaxTime
}
