package model

import (
	"strings"
	"testing"
	"time"

	"locksim/sim"
)

// The table of limits holds for every spec, whatever it came from (a case
// file, the Go API): each error names its limit, before anything runs.
func TestSpecLimits(t *testing.T) {
	many := make([]sim.Fault, MaxFaults+1)
	for i := range many {
		many[i] = sim.Fault{Kind: sim.FaultPause, Target: "A", Dur: time.Millisecond, At: time.Duration(i) * time.Millisecond}
	}
	for _, tc := range []struct {
		name string
		s    Spec
		want string
	}{
		{"huge ttl", Spec{Design: SetPxLua, Options: Options{TTL: 1708301 * time.Hour}}, "(limits: ttl)"},
		{"masters", Spec{Design: Redlock, Topology: Topology{Masters: 100000}}, "(limits: masters)"},
		{"replicas", Spec{Design: SetPxLua, Topology: Topology{Replicas: 100000}}, "(limits: replicas)"},
		{"clients", Spec{Design: SetPxLua, Clients: strings.Fields(strings.Repeat("c ", MaxClients+1))}, "(limits: clients)"},
		{"faults", Spec{Design: SetPxLua, Faults: many}, "(limits: faults)"},
		{"events", Spec{Design: SetPxLua, Limits: sim.Limits{MaxEvents: 1_000_000_000}}, "(limits: events)"},
		{"run time", Spec{Design: SetPxLua, Workload: Workload{Duration: 25 * time.Hour}}, "(limits: run-time)"},
		{"cycles", Spec{Design: SetPxLua, Workload: Workload{Cycles: MaxCycles + 1}}, "(limits: cycles)"},
		{"fault time", Spec{Design: SetPxLua, Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 100 * time.Hour}}}, "(limits: run-time)"},
		{"trigger count", Spec{Design: SetPxLua, Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: time.Second,
			After: &sim.Trigger{Actor: "A", Kind: sim.KindCall, Nth: MaxCount + 1}}}}, "(limits: count)"},
		{"min-replicas-to-write", Spec{Design: SetPxLua, Topology: Topology{Replicas: 1, MinReplicasToWrite: MaxReplicas + 1}}, "(limits: replicas)"},
		{"min-replicas-max-lag", Spec{Design: SetPxLua, Topology: Topology{Replicas: 1, MinReplicasToWrite: 1, MinReplicasMaxLag: 25 * time.Hour}}, "(limits: run-time)"},
		{"negative trigger", Spec{Design: SetPxLua, Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: time.Second,
			After: &sim.Trigger{Actor: "A", Kind: sim.KindCall, Nth: -1}}}}, "trigger counts must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(tc.s, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
