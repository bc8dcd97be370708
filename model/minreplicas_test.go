package model

import (
	"testing"
	"time"
)

// min-replicas-to-write reaches every node, with Redis's default lag; the
// impossible settings are errors that say why.
func TestMinReplicasTopology(t *testing.T) {
	s := Spec{Design: SetPxLua, Topology: Topology{Masters: 2, Replicas: 2, MinReplicasToWrite: 1}}.WithDefaults()
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range cfg.Nodes {
		if n.MinReplicasToWrite != 1 || n.MinReplicasMaxLag != 10*time.Second {
			t.Errorf("node %s: min-replicas %d, lag %v; want 1, 10s", n.Name, n.MinReplicasToWrite, n.MinReplicasMaxLag)
		}
	}
	for _, tc := range []struct {
		t    Topology
		want string
	}{
		{Topology{Replicas: 1, MinReplicasToWrite: 2}, "min-replicas-to-write 2 with 1 replica(s) per group: every write would be refused (give 0 to 1)"},
		{Topology{Replicas: 1, MinReplicasToWrite: -1}, "min-replicas-to-write -1 is negative"},
		{Topology{Replicas: 1, MinReplicasMaxLag: time.Second}, "min-replicas-max-lag 1s needs min-replicas-to-write"},
		{Topology{Replicas: 1, MinReplicasToWrite: 1, MinReplicasMaxLag: 1500 * time.Millisecond}, "min-replicas-max-lag 1.5s: Redis takes whole seconds"},
		{Topology{Replicas: 1, MinReplicasToWrite: 1, MinReplicasMaxLag: -time.Second}, "min-replicas-max-lag -1s is negative"},
	} {
		_, err := Spec{Design: SetPxLua, Topology: tc.t}.WithDefaults().Config()
		if err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %s", tc.t, err, tc.want)
		}
	}
}
