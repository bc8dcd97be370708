package scenarios

import (
	"time"

	"locksim/model"
	"locksim/network"
)

// config fills the run's configuration: under Swarm the fields the base
// spec leaves zero drawn from d, then the defaults, resolved once
// (model.Spec.Resolution) for the fault draws and the run. A design that
// does not renew its lease gets work well inside the TTL (its own
// assumption: work longer than the lease breaks it without any fault); one
// that renews may work longer than the TTL, which is where a watchdog is
// tested. The draws read the traits of the spec as given, before the
// defaults (which would fill the fields they draw): renewal, reentrancy
// and the replicas the design needs, which no default changes.
func (g Gen) config(d Draws, base model.Spec) *model.Resolved {
	s := cloneSpec(base)
	t := s.Traits()
	ttl := s.Options.TTL
	if ttl == 0 {
		ttl = time.Second
	}
	if g.Swarm {
		if len(s.Clients) == 0 {
			s.Clients = []string{"A", "B", "C", "D"}[:intIn(d, 2, 4, "clients")]
		}
		if s.Workload.Work == 0 {
			s.Workload.Work = drawWork(d, ttl, t.Renews)
		}
		if s.Workload.Cycles == 0 && s.Workload.Duration == 0 {
			s.Workload.Cycles = intIn(d, 1, 3, "cycles")
		}
		if s.Workload.Start == 0 && flip(d, "stagger") {
			s.Workload.Start = msIn(d, time.Millisecond, 50*time.Millisecond, "stagger")
		}
		if s.Network.Default == (network.Latency{}) {
			lo := msIn(d, time.Millisecond, 2*time.Millisecond, "latency min")
			s.Network.Default = network.Latency{Min: lo, Max: lo + time.Duration(intIn(d, 0, 4, "latency spread"))*time.Millisecond}
		}
		if s.Options.CallTimeout == 0 {
			// At least 20 round trips of the worst latency, at most a
			// third of the TTL (a call that may outlast the lease is a
			// design choice the user makes with --call-timeout).
			floor := 40 * s.Network.Default.Max
			s.Options.CallTimeout = msIn(d, max(floor, 20*time.Millisecond), max(floor, min(400*time.Millisecond, ttl/3)), "call timeout")
		}
		// A reentrant design takes its lock again inside its critical
		// section, none to two more holds, so that reentrancy is judged
		// on nested holds too. Drawn last, and only for such a design,
		// so that no other design's draws move.
		if t.Reentrant && s.Workload.Reentry == 0 {
			s.Workload.Reentry = intIn(d, 0, 2, "reentry")
		}
	}
	if s.Topology.Replicas == 0 {
		s.Topology.Replicas = t.Replicas
	}
	if s.Topology.Replicas > 0 && !s.Topology.Sentinel.Enabled && !s.Topology.Cluster { // a cluster fails over by itself
		s.Topology.Sentinel.Enabled = true
		if s.Topology.Sentinel.DownAfter == 0 {
			s.Topology.Sentinel.DownAfter = ttl
			if g.Swarm {
				s.Topology.Sentinel.DownAfter = frac(d, ttl, 0.25, 2, "down-after")
			}
		}
	}
	return s.Resolution()
}

// FailsOver returns the base spec as every drawn run has it whatever it
// draws: with Sentinel on for groups with replicas (not on a cluster,
// which fails over by itself). Asking it whether an invariant can apply
// (model.Spec.CanCount) sees the failover claim the runs will make.
func FailsOver(s model.Spec) model.Spec {
	if s.Topology.Replicas == 0 {
		s.Topology.Replicas = s.Resolution().Traits.Replicas
	}
	if s.Topology.Replicas > 0 && !s.Topology.Cluster {
		s.Topology.Sentinel.Enabled = true
	}
	return s
}

// drawWork draws a critical section's length: short, about the TTL, or
// longer than it; the last two only as far as the design renews.
func drawWork(d Draws, ttl time.Duration, renews bool) time.Duration {
	switch intIn(d, 0, 2, "work class") {
	case 0:
		return msIn(d, 5*time.Millisecond, max(ttl/10, 5*time.Millisecond), "work")
	case 1:
		if renews {
			return frac(d, ttl, 0.8, 1.3, "work")
		}
		return frac(d, ttl, 0.2, 0.45, "work")
	}
	if renews {
		return frac(d, ttl, 1.5, 3, "work")
	}
	return frac(d, ttl, 0.45, 0.6, "work")
}
