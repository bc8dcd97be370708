package sim

import "time"

// A stalled node models single-threaded Redis blocked by a slow command
// (a big KEYS, DEBUG SLEEP, a long script) or a fork for a snapshot: its
// one thread runs nothing else until it returns. While stalled, the node
// serves nothing: client requests, replication entries, replicas'
// acknowledgements and WAIT timeouts that reach it wait in arrival order;
// the sentinel gets no answer (a stall past down-after fails the group
// over); expiry checks do not run, nor does an eviction (it waits for
// the resume). Its clock runs on, and a clock fault moves it at once, but
// the keys it expires go at the resume too. At the resume the node first
// drops the keys whose time passed meanwhile (as Redis's lazy and active
// expiry find them gone), then runs what waited, in order.
// A machine node (machine.go) stalls the same way: its requests, messages
// and timers wait for the resume (a process stopped by a long GC or a
// swapped-out page), and it has no Redis expiry to run.
//
// Invariants: stalled is true only while up; a crash ends the stall and
// drops what waited (the connections reset); a stall while stalled
// extends it to the later end.

// stall blocks the node for d from now. It reports false when the node
// is down.
func (n *node) stall(d time.Duration) bool {
	if !n.up {
		return false
	}
	end := n.w.now + d
	n.w.record(&Event{Actor: n.name, Kind: KindNodeStall, Local: n.local(), Dur: d})
	if n.stalled && end <= n.stallEnd {
		return true // within the stall already under way
	}
	n.stalled, n.stallEnd = true, end
	inc := n.incarnation
	n.w.schedule(end, func() {
		if n.incarnation == inc && n.stalled && n.stallEnd == end {
			n.resume()
		}
	})
	n.w.sentinel.reevaluate()
	return true
}

// whenServing defers fn to the resume when the node is stalled and
// reports whether it did; otherwise the caller goes on now.
func (n *node) whenServing(fn func()) bool {
	if !n.stalled {
		return false
	}
	n.waiting = append(n.waiting, fn)
	return true
}

// resume ends the stall: expired keys go first, then what waited runs in
// arrival order. Something that waited may stall or crash the node again
// (a triggered fault): what is left then waits for that resume, or is
// dropped with the crash.
func (n *node) resume() {
	n.stalled = false
	q := n.waiting
	n.waiting = nil
	n.w.record(&Event{Actor: n.name, Kind: KindNodeResume, Local: n.local(), N: int64(len(q))})
	if n.cfg.Machine == nil && n.role != roleReplica {
		n.sync()
		n.why = "expire"
		n.afterWrite() // records the keys that expired meanwhile and replicates their DEL
	}
	for i, fn := range q {
		if !n.up {
			return
		}
		if n.stalled {
			n.waiting = append(q[i:len(q):len(q)], n.waiting...)
			return
		}
		fn()
	}
	n.w.sentinel.reevaluate()
}

// endStall drops a stall and what waited (the node crashed).
func (n *node) endStall() {
	n.stalled, n.waiting = false, nil
}
