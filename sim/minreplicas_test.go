package sim

import (
	"testing"
	"time"
)

// minReplicas is one primary r1 with replicas r2 (and r3 with two), every
// node with min-replicas-to-write toWrite and min-replicas-max-lag 1s.
func minReplicas(replicas, toWrite int) Config {
	cfg := replicated(replicas, nil)
	cfg.Sentinel.Enabled = false
	for i := range cfg.Nodes {
		cfg.Nodes[i].MinReplicasToWrite, cfg.Nodes[i].MinReplicasMaxLag = toWrite, time.Second
	}
	return cfg
}

// TestMinReplicasBoundsAPartitionedPrimary: cut off from its replica, r1
// keeps accepting writes until the replica's last acknowledgement is older
// than min-replicas-max-lag, then refuses every write, from a script and at
// MULTI's queue time too, with Redis's NOREPLICAS text, and serves reads.
// Once the partition heals, the held acknowledgements arrive and r1 takes
// writes again.
func TestMinReplicasBoundsAPartitionedPrimary(t *testing.T) {
	cfg := minReplicas(1, 1)
	cfg.Faults = []Fault{{Kind: FaultPartition, A: []string{"r1", "A"}, B: []string{"r2"}, At: 0, Dur: 3 * time.Second}}
	set := "return redis.call('SET', KEYS[1], 'x')"
	runSteps(t, cfg, []step{
		{args: cmdArgs("SET", "k", "early"), want: "OK", sleep: 900 * ms},
		{args: cmdArgs("SET", "k", "late"), wantErr: msgNoReplicas, sleep: 200 * ms},
		{args: cmdArgs("DEL", "k"), wantErr: msgNoReplicas},
		{args: cmdArgs("EVAL", set, "1", "k"), wantErr: "NOREPLICAS"},
		{args: cmdArgs("MULTI"), want: "OK"},
		{args: cmdArgs("INCR", "n"), wantErr: msgNoReplicas},
		{args: cmdArgs("EXEC"), wantErr: "EXECABORT"},
		{args: cmdArgs("GET", "k"), want: `"early"`},
		{args: cmdArgs("SET", "k", "healed"), want: "OK", sleep: 2 * time.Second},
	})
}

// TestMinReplicasIdleReplicaStaysGood: with no writes for far longer than
// the lag, a connected replica still counts, because replicas acknowledge
// every second as Redis's do; and a dead replica stops counting.
func TestMinReplicasIdleReplicaStaysGood(t *testing.T) {
	runSteps(t, minReplicas(2, 2), []step{
		{args: cmdArgs("SET", "k", "v"), want: "OK", sleep: 5 * time.Second},
		{args: cmdArgs("SET", "k", "w"), want: "OK", sleep: 5 * time.Second},
	})
	cfg := minReplicas(2, 2)
	cfg.Faults = []Fault{{Kind: FaultNodeCrash, Target: "r3", At: 100 * ms}}
	runSteps(t, cfg, []step{
		{args: cmdArgs("SET", "k", "v"), want: "OK"},
		{args: cmdArgs("SET", "k", "w"), wantErr: msgNoReplicas, sleep: 2 * time.Second},
	})
}

// TestMinReplicasOffSendsNoHeartbeats: without the setting, a run has the
// events it always had: replicas acknowledge only what they apply.
func TestMinReplicasOffSendsNoHeartbeats(t *testing.T) {
	count := func(cfg Config) int {
		cfg.Clients = []ClientConfig{{Name: "A", Main: func(c *Ctx) error {
			c.Call("m1", time.Second, "SET", "k", "v")
			c.Sleep(5 * time.Second)
			return nil
		}}}
		w, err := New(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Run(); err != nil {
			t.Fatal(err)
		}
		return w.Events()
	}
	off, on := count(minReplicas(1, 0)), count(minReplicas(1, 1))
	if on <= off {
		t.Errorf("events with min-replicas-to-write %d, without %d: want heartbeats only with it", on, off)
	}
}

func TestMinReplicasConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		toWrite int
		lag     time.Duration
		want    string
	}{
		{-1, time.Second, "nodes[0] (r1): min-replicas-to-write -1 is negative"},
		{1, -time.Second, "nodes[0] (r1): min-replicas-max-lag -1s is negative"},
		{1, 0, "nodes[0] (r1): min-replicas-to-write 1 needs a positive min-replicas-max-lag"},
	} {
		cfg := replicated(1, func(*Ctx) error { return nil })
		cfg.Nodes[0].MinReplicasToWrite, cfg.Nodes[0].MinReplicasMaxLag = tc.toWrite, tc.lag
		if err := cfg.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("Validate = %v, want %s", err, tc.want)
		}
	}
}
