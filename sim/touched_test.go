package sim_test

import (
	"strconv"
	"testing"
	"time"

	"locksim/engine"
	"locksim/model"
	"locksim/network"
	"locksim/scenarios"
	"locksim/sim"
)

// Following the keys commands touched records exactly what reading the
// whole keyspace after every write records: for every design of the
// catalogue under random faults (swarm: crashes, failovers, clock jumps,
// stalls, evictions, ...), the same history, event for event.
func TestTouchedKeysMatchTheWholeKeyspace(t *testing.T) {
	runs := 12
	if testing.Short() {
		runs = 4
	}
	for _, d := range model.DesignIDs() {
		c := engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: d}, Gen: scenarios.Gen{Swarm: true}, Seed: 11}}
		for i := range runs {
			s, seed := c.RunSpec(i)
			touched, err := model.Run(s, seed)
			if err != nil {
				t.Fatalf("%s run %d: %v", d, i, err)
			}
			old := sim.SetFullRescan(true)
			whole, err := model.Run(s, seed)
			sim.SetFullRescan(old)
			if err != nil {
				t.Fatalf("%s run %d: %v", d, i, err)
			}
			if touched.History.Hash() != whole.History.Hash() {
				t.Errorf("%s run %d (seed %d): the histories differ (%d events following touched keys, %d reading the whole keyspace)",
					d, i, seed, len(touched.History), len(whole.History))
			}
		}
	}
}

// The same with random commands of every kind the tracking treats
// differently: keys named first, every argument, every other one, inside
// scripts and MULTI, commands it does not follow (RENAME, FLUSHALL, EXEC),
// hash-field TTLs that expire with no command naming their hash, keys
// expiring between commands; on two clients, so that keys change between
// one client's writes.
func TestTouchedKeysMatchTheWholeKeyspaceRandomCommands(t *testing.T) {
	keys := []string{"a", "b", "c", "h"}
	cmds := []func(k, k2, v string) []string{
		func(k, _, v string) []string { return []string{"SET", k, v, "PX", "7"} },
		func(k, _, v string) []string { return []string{"SET", k, v} },
		func(k, k2, _ string) []string { return []string{"DEL", k, k2} },
		func(k, k2, v string) []string { return []string{"MSET", k, v, k2, v} },
		func(k, _, _ string) []string { return []string{"PEXPIRE", k, "3"} },
		func(k, _, _ string) []string { return []string{"GET", k} },
		func(k, k2, _ string) []string { return []string{"RENAME", k, k2} },
		func(_, _, v string) []string { return []string{"HSET", "h", "f", v, "g", v} },
		func(_, _, _ string) []string { return []string{"HEXPIRE", "h", "1", "FIELDS", "1", "f"} },
		func(k, _, v string) []string {
			return []string{"EVAL", "redis.call('SET', KEYS[1], ARGV[1], 'PX', 5) return redis.call('INCR', KEYS[2])", "2", k, "n", v}
		},
		func(_, _, _ string) []string { return []string{"FLUSHALL"} },
	}
	client := func(name string) sim.ClientConfig {
		return sim.ClientConfig{Name: name, Main: func(c *sim.Ctx) error {
			for i := range 60 {
				r := c.Rand()
				k, k2, v := keys[r.IntN(len(keys))], keys[r.IntN(len(keys))], name+strconv.Itoa(i)
				if r.IntN(8) == 0 {
					c.Call("m1", time.Second, "MULTI")
					c.Call("m1", time.Second, cmds[r.IntN(len(cmds))](k, k2, v)...)
					c.Call("m1", time.Second, "EXEC")
				} else {
					c.Call("m1", time.Second, cmds[r.IntN(len(cmds))](k, k2, v)...)
				}
				c.Sleep(time.Duration(r.IntN(3)+r.IntN(2)*r.IntN(60)) * time.Millisecond)
			}
			return nil
		}}
	}
	cfg := sim.Config{
		Nodes:   []sim.NodeConfig{{Name: "r1"}},
		Groups:  []sim.GroupConfig{{Name: "m1", Primary: "r1"}},
		Clients: []sim.ClientConfig{client("A"), client("B")},
		Server:  "redis-8.4", // hash-field TTLs
		Network: network.Config{Default: network.Latency{Min: time.Millisecond, Max: 2 * time.Millisecond}},
	}
	for seed := range uint64(20) {
		touched, err := sim.Run(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		old := sim.SetFullRescan(true)
		whole, err := sim.Run(cfg, seed)
		sim.SetFullRescan(old)
		if err != nil {
			t.Fatal(err)
		}
		if touched.Hash() != whole.Hash() {
			t.Errorf("seed %d: the histories differ (%d events following touched keys, %d reading the whole keyspace)", seed, len(touched), len(whole))
		}
	}
}

// A hash field that expires changes its hash with no command naming it:
// the next write anywhere records the hash's new value, as a reading of
// the whole keyspace does.
func TestTouchedKeysSeeExpiredHashFields(t *testing.T) {
	cfg := sim.Config{
		Server: "redis-8.4",
		Nodes:  []sim.NodeConfig{{Name: "r1"}},
		Groups: []sim.GroupConfig{{Name: "m1", Primary: "r1"}},
		Clients: []sim.ClientConfig{{Name: "A", Main: func(c *sim.Ctx) error {
			c.Call("m1", time.Second, "HSET", "h", "f", "1", "g", "2")
			c.Call("m1", time.Second, "HEXPIRE", "h", "1", "FIELDS", "1", "f")
			c.Call("m1", time.Second, "SET", "y", "1")
			c.Sleep(1500 * time.Millisecond)
			c.Call("m1", time.Second, "SET", "x", "1")
			return nil
		}}},
		Network: network.Config{Default: network.Latency{Min: time.Millisecond, Max: 2 * time.Millisecond}},
	}
	h, err := sim.Run(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range h {
		if e.Kind == sim.KindKey && e.Key == "h" && e.Value == "g=2" {
			return
		}
	}
	t.Errorf("the expired field was never recorded:\n%s", h.Text())
}
