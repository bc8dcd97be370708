package model

import (
	"strings"
	"testing"
	"time"

	"locksim/model/invariant"
	"locksim/network"
	"locksim/sim"
)

// A Sentinel setup's availability claim (failoverClaim) is made by the
// designs that declare it, on one group with replicas under Sentinel, with
// the bound documented there: down-after + the longest latency + the
// discovery delay + 3 x (retry max + jitter + call timeout) + TTL; and not
// where Sentinel may leave nothing to promote or the new primary may
// refuse writes.
func TestFailoverClaim(t *testing.T) {
	sentinel := Topology{Masters: 1, Replicas: 2, Sentinel: sim.SentinelConfig{Enabled: true, DownAfter: time.Second, DiscoveryDelay: 100 * time.Millisecond}}
	s := Spec{Design: SetPxLua, Topology: sentinel,
		Network: network.Config{Default: network.Latency{Min: time.Millisecond, Max: 3 * time.Millisecond},
			Links: []network.Link{{From: "sentinel", To: "*", Latency: network.Latency{Max: 7 * time.Millisecond}}}},
		Options: Options{TTL: 2 * time.Second, RetryMax: 150 * time.Millisecond, RetryJitter: 10 * time.Millisecond, CallTimeout: 300 * time.Millisecond}}
	cfg := s.WithDefaults().CheckConfig()
	want := time.Second + 7*time.Millisecond + 100*time.Millisecond + 3*(150+10+300)*time.Millisecond + 2*time.Second
	if !cfg.Failover || cfg.AvailableBound != want || cfg.Tolerate != 2 || strings.Join(cfg.Masters, ",") != "r1,r2,r3" {
		t.Errorf("set-px-lua on r1 with two replicas: failover %v, bound %v (want %v), tolerate %d (want 2), group %v (want r1,r2,r3)",
			cfg.Failover, cfg.AvailableBound, want, cfg.Tolerate, cfg.Masters)
	}
	defaultDown := s
	defaultDown.Topology.Sentinel.DownAfter = 0
	if got := defaultDown.WithDefaults().CheckConfig().AvailableBound; got != want-time.Second+sim.DefaultDownAfter {
		t.Errorf("down-after 0 (Sentinel's 30s): bound %v, want %v", got, want-time.Second+sim.DefaultDownAfter)
	}
	fair := s
	fair.Design, fair.Options.QueueWait = FairLock, 700*time.Millisecond
	if got := fair.WithDefaults().CheckConfig().AvailableBound; got != want+700*time.Millisecond {
		t.Errorf("fair-lock: bound %v, want %v (the queue wait added)", got, want+700*time.Millisecond)
	}
	for _, d := range []string{SetPxGetdel, Watchdog, Fenced, ReentrantHash, SetIfeq, FairLock, ReadWriteLock, ExplicitLease} {
		d2 := s
		d2.Design = d
		if !d2.WithDefaults().CheckConfig().Failover {
			t.Errorf("%s on a Sentinel setup: no failover claim", d)
		}
	}
	no := map[string]func(*Spec){
		"setnx-expire (the broken baseline)":                       func(s *Spec) { s.Design = SetnxExpire },
		"wait-replica (WAIT needs the replica the failover takes)": func(s *Spec) { s.Design = WaitReplica },
		"redlock (its claim is a minority of masters)":             func(s *Spec) { s.Design = Redlock; s.Topology.Masters = 5 },
		"no replicas":                 func(s *Spec) { s.Topology.Replicas = 0 },
		"no Sentinel":                 func(s *Spec) { s.Topology.Sentinel = sim.SentinelConfig{} },
		"two groups":                  func(s *Spec) { s.Topology.Masters = 2 },
		"min-replicas-to-write":       func(s *Spec) { s.Topology.MinReplicasToWrite = 1 },
		"a replica never promoted":    func(s *Spec) { s.Topology.Priorities = map[string]int{"r2": sim.NeverPromote} },
		"random loss":                 func(s *Spec) { s.Network.LossPPM = 1000 },
		"random loss on a link":       func(s *Spec) { s.Network.Links = []network.Link{{From: "*", To: "r1", LossPPM: 10}} },
		"a real client with no bound": func(s *Spec) { s.Design = RealClientPrefix + "x" },
	}
	for name, change := range no {
		s2 := s
		change(&s2)
		cfg := s2.WithDefaults().CheckConfig()
		if cfg.Failover {
			t.Errorf("%s: a failover claim (bound %v), want none", name, cfg.AvailableBound)
		}
	}
	real := s
	real.Design, real.Options.AcquireBound = RealClientPrefix+"x", 4*time.Second
	if cfg := real.WithDefaults().CheckConfig(); !cfg.Failover || cfg.AvailableBound != 4*time.Second {
		t.Errorf("a real client with a bound on a Sentinel setup: failover %v, bound %v; want the declared 4s", cfg.Failover, cfg.AvailableBound)
	}
	// Without replicas the refusal to count available says where the
	// claim is made.
	bare := Spec{Design: SetPxLua}
	if err := bare.CanCount([]invariant.ID{invariant.Available}); err == nil || !strings.Contains(err.Error(), "--replicas") {
		t.Errorf("set-px-lua without replicas counting available: %v, want a refusal naming --replicas", err)
	}
}
