package sim

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
)

// TestKeySlotVectors checks the slot function against the values Redis
// publishes: the CRC16 check value of the cluster specification, the
// CLUSTER KEYSLOT examples of its command page, the hash-tag rules of the
// specification, and the first slots of the keys-per-slot table that
// client authors use (gist mp911de/5f9890496faca01b0ff9).
func TestKeySlotVectors(t *testing.T) {
	if got := crc16("123456789"); got != 0x31C3 {
		t.Fatalf("crc16(123456789) = %#x, want 0x31c3 (CRC-16/XMODEM check value)", got)
	}
	for _, c := range []struct {
		key  string
		want int
	}{
		{"somekey", 11058}, {"foo{hash_tag}", 2515}, {"bar{hash_tag}", 2515},
		{"fyimk7v1CgnBo", 0}, {"8HMdi", 1}, {"IQhHSeAVHI", 2},
		{"{user1000}.following", KeySlot("user1000")}, {"{user1000}.followers", KeySlot("user1000")},
		{"foo{}{bar}", int(crc16("foo{}{bar}")) % ClusterSlots}, // empty tag: the whole key
		{"foo{{bar}}zap", KeySlot("{bar")},                      // the tag is "{bar"
		{"foo{bar}{zap}", KeySlot("bar")},                       // the first tag only
		{"foo{bar", int(crc16("foo{bar")) % ClusterSlots},       // no closing brace
	} {
		if got := KeySlot(c.key); got != c.want {
			t.Errorf("KeySlot(%q) = %d, want %d", c.key, got, c.want)
		}
	}
}

func TestEvenSlots(t *testing.T) {
	want := []SlotRange{{"m1", 0, 5460}, {"m2", 5461, 10922}, {"m3", 10923, 16383}}
	if d := cmp.Diff(want, EvenSlots([]string{"m1", "m2", "m3"})); d != "" {
		t.Errorf("EvenSlots: redis-cli's split of 3 (-want +got):\n%s", d)
	}
}

// clusterConfig is three shards, each a primary and a replica, with the
// slot split of redis-cli: m1 (r1, r1b) serves 0-5460, m2 (r2, r2b)
// 5461-10922, m3 (r3, r3b) 10923-16383.
func clusterConfig(main func(*Ctx) error) Config {
	var cfg Config
	for _, g := range []string{"1", "2", "3"} {
		cfg.Nodes = append(cfg.Nodes, NodeConfig{Name: "r" + g}, NodeConfig{Name: "r" + g + "b"})
		cfg.Groups = append(cfg.Groups, GroupConfig{Name: "m" + g, Primary: "r" + g, Replicas: []string{"r" + g + "b"}})
	}
	cfg.Cluster.Enabled = true
	cfg.Clients = []ClientConfig{{Name: "A", Main: main}}
	return cfg
}

// clusterSteps runs commands in order, each on a named node, and returns
// "node: command -> reply" lines; a step {"sleep", "1s"} sleeps, and the
// lines of replies that took longer than 100ms say when they came.
func clusterSteps(t *testing.T, cfg func(func(*Ctx) error) Config, steps [][]string) []string {
	t.Helper()
	var got []string
	_, err := Run(cfg(func(c *Ctx) error {
		for _, s := range steps {
			if s[0] == "sleep" {
				d, err := time.ParseDuration(s[1])
				if err != nil {
					return err
				}
				c.Sleep(d)
				continue
			}
			start := c.Now()
			r, err := c.Call(s[0], 10*time.Second, s[1:]...)
			line := s[0] + ": " + strings.Join(s[1:], " ") + " -> " + r.String()
			if c.Now()-start > 100*time.Millisecond {
				line += " (at " + c.Now().String() + ")"
			}
			if err != nil {
				line += " err " + err.Error()
			}
			got = append(got, line)
			c.Sleep(10 * time.Millisecond) // replication catches up
		}
		return nil
	}), 1)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestClusterRouting checks the replies a cluster node gives by slot:
// served, MOVED to the owner's primary, CROSSSLOT, a replica's MOVED and
// its READONLY reads, scripts that reach beyond their slot, transactions
// across slots, and the cluster commands clients read.
func TestClusterRouting(t *testing.T) {
	// "somekey" is slot 11058 (m3), "foo{hash_tag}" 2515 (m1), "{a}x" and
	// "{a}y" share slot 15495 (m3).
	got := clusterSteps(t, clusterConfig, [][]string{
		{"r3", "SET", "somekey", "v", "NX", "PX", "1000"},
		{"r1", "GET", "somekey"},
		{"r2", "SET", "somekey", "w"},
		{"r3b", "GET", "somekey"},
		{"r3b", "READONLY"},
		{"r3b", "GET", "somekey"},
		{"r3b", "SET", "somekey", "w"},
		{"r3", "MSET", "somekey", "1", "foo{hash_tag}", "2"},
		{"r3", "MSET", "{a}x", "1", "{a}y", "2"},
		{"r3", "EVAL", "return redis.call('GET', KEYS[1])", "2", "somekey", "foo{hash_tag}"},
		{"r3", "EVAL", "return redis.call('GET', KEYS[1])", "1", "foo{hash_tag}"},
		{"r3", "EVAL", "return redis.call('GET', ARGV[1])", "0", "foo{hash_tag}"},
		{"r3", "EVAL", "redis.call('GET', KEYS[1]) return redis.call('GET', ARGV[1])", "1", "somekey", "{a}x"},
		{"r3", "EVAL", "return redis.call('GET', KEYS[1])", "1", "somekey"},
		{"r3", "MULTI"}, {"r3", "SET", "somekey", "1"}, {"r3", "SET", "{a}x", "2"}, {"r3", "EXEC"},
		{"r3", "MULTI"}, {"r3", "SET", "foo{hash_tag}", "1"}, {"r3", "EXEC"},
		{"r3", "MULTI"}, {"r3", "SET", "somekey", "3"}, {"r3", "INCR", "{a}x"}, {"r3", "EXEC"},
		{"r1", "SELECT", "1"},
		{"r1", "PING"},
		{"r1", "CLUSTER", "KEYSLOT", "somekey"},
		{"r1", "CLUSTER", "MYID"},
		{"r2", "CLUSTER", "SLOTS"},
		{"r2", "CLUSTER", "COUNTKEYSINSLOT", "11058"},
		{"r3", "CLUSTER", "GETKEYSINSLOT", "15495", "10"},
		{"r3", "CLUSTER", "NOPE"},
		{"r3", "OBJECT", "ENCODING", "somekey"},
	})
	want := []string{
		`r3: SET somekey v NX PX 1000 -> OK`,
		`r1: GET somekey -> (error) MOVED 11058 r3:6379`,
		`r2: SET somekey w -> (error) MOVED 11058 r3:6379`,
		`r3b: GET somekey -> (error) MOVED 11058 r3:6379`,
		`r3b: READONLY -> OK`,
		`r3b: GET somekey -> "v"`,
		`r3b: SET somekey w -> (error) MOVED 11058 r3:6379`,
		`r3: MSET somekey 1 foo{hash_tag} 2 -> (error) CROSSSLOT Keys in request don't hash to the same slot`,
		`r3: MSET {a}x 1 {a}y 2 -> OK`,
		`r3: EVAL return redis.call('GET', KEYS[1]) 2 somekey foo{hash_tag} -> (error) CROSSSLOT Keys in request don't hash to the same slot`,
		`r3: EVAL return redis.call('GET', KEYS[1]) 1 foo{hash_tag} -> (error) MOVED 2515 r1:6379`,
		// The script engine wraps a redis.call error as miniredis does
		// (sim/script lists this difference from Redis 7).
		`r3: EVAL return redis.call('GET', ARGV[1]) 0 foo{hash_tag} -> (error) ERR Error compiling script (new function): :1: ERR Script attempted to access a non local key in a cluster node stack traceback:  [G]: in function 'call'  :1: in main chunk  [G]: ?`,
		`r3: EVAL redis.call('GET', KEYS[1]) return redis.call('GET', ARGV[1]) 1 somekey {a}x -> (error) ERR Error compiling script (new function): :1: ERR Script attempted to access keys that do not hash to the same slot stack traceback:  [G]: in function 'call'  :1: in main chunk  [G]: ?`,
		`r3: EVAL return redis.call('GET', KEYS[1]) 1 somekey -> "v"`,
		`r3: MULTI -> OK`, `r3: SET somekey 1 -> QUEUED`, `r3: SET {a}x 2 -> QUEUED`,
		`r3: EXEC -> (error) CROSSSLOT Keys in request don't hash to the same slot`,
		`r3: MULTI -> OK`, `r3: SET foo{hash_tag} 1 -> (error) MOVED 2515 r1:6379`,
		`r3: EXEC -> (error) EXECABORT Transaction discarded because of previous errors.`,
		`r3: MULTI -> OK`, `r3: SET somekey 3 -> QUEUED`, `r3: INCR {a}x -> QUEUED`,
		`r3: EXEC -> (error) CROSSSLOT Keys in request don't hash to the same slot`,
		`r1: SELECT 1 -> (error) ERR SELECT is not allowed in cluster mode`,
		`r1: PING -> PONG`,
		`r1: CLUSTER KEYSLOT somekey -> (integer) 11058`,
		`r1: CLUSTER MYID -> "` + nodeID("r1") + `"`,
		`r2: CLUSTER SLOTS -> [[(integer) 0, (integer) 5460, ["r1", (integer) 6379, "` + nodeID("r1") + `", []], ["r1b", (integer) 6379, "` + nodeID("r1b") + `", []]], ` +
			`[(integer) 5461, (integer) 10922, ["r2", (integer) 6379, "` + nodeID("r2") + `", []], ["r2b", (integer) 6379, "` + nodeID("r2b") + `", []]], ` +
			`[(integer) 10923, (integer) 16383, ["r3", (integer) 6379, "` + nodeID("r3") + `", []], ["r3b", (integer) 6379, "` + nodeID("r3b") + `", []]]]`,
		`r2: CLUSTER COUNTKEYSINSLOT 11058 -> (integer) 0`,
		`r3: CLUSTER GETKEYSINSLOT 15495 10 -> ["{a}x", "{a}y"]`,
		`r3: CLUSTER NOPE -> (error) ERR unknown subcommand 'NOPE'. Try CLUSTER HELP.`,
		`r3: OBJECT ENCODING somekey -> (error) ERR locksim's cluster nodes do not know where the keys of 'object' are, so they cannot route it`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cluster replies (-want +got):\n%s", d)
	}
}

// TestClusterLegacyMigration moves slot 11058 ("somekey") from m3 to m1
// the legacy way: while it moves, the owner answers ASK for the key it no
// longer has, the importer serves it only after ASKING, CLUSTER NODES
// shows the slot migrating; after the hand-over the old owner answers
// MOVED.
func TestClusterLegacyMigration(t *testing.T) {
	cfg := func(main func(*Ctx) error) Config {
		c := clusterConfig(main)
		c.Faults = []Fault{{Kind: FaultSlotMigrate, Target: "r1", Key: "somekey", At: time.Second, Dur: 2 * time.Second}}
		return c
	}
	got := clusterSteps(t, cfg, [][]string{
		{"r3", "SET", "somekey", "v", "PX", "60000"},
		{"r3", "SET", "{somekey}2", "w", "PX", "60000"},
		{"sleep", "1500ms"},
		{"r3", "GET", "somekey"},
		{"r3", "PTTL", "somekey"},
		{"r1", "GET", "somekey"},
		{"r1", "ASKING"}, {"r1", "GET", "somekey"},
		{"r1", "GET", "somekey"},
		{"r1", "ASKING"}, {"r1", "SET", "somekey", "x", "NX"},
		{"r1", "ASKING"}, {"r1", "MGET", "somekey", "{somekey}3"},
		{"r3", "CLUSTER", "COUNTKEYSINSLOT", "11058"},
		{"sleep", "2s"},
		{"r3", "GET", "somekey"},
		{"r1", "GET", "somekey"},
		{"r1", "PTTL", "somekey"},
		{"r2", "CLUSTER", "SLOTS"},
	})
	var short []string
	for _, l := range got {
		if !strings.Contains(l, "CLUSTER SLOTS") {
			short = append(short, l)
		}
	}
	want := []string{
		`r3: SET somekey v PX 60000 -> OK`,
		`r3: SET {somekey}2 w PX 60000 -> OK`,
		`r3: GET somekey -> (error) ASK 11058 r1:6379`,
		`r3: PTTL somekey -> (error) ASK 11058 r1:6379`,
		`r1: GET somekey -> (error) MOVED 11058 r3:6379`,
		`r1: ASKING -> OK`, `r1: GET somekey -> "v"`,
		`r1: GET somekey -> (error) MOVED 11058 r3:6379`, // ASKING held for one command
		`r1: ASKING -> OK`, `r1: SET somekey x NX -> (nil)`,
		`r1: ASKING -> OK`, `r1: MGET somekey {somekey}3 -> (error) TRYAGAIN Multiple keys request during rehashing of slot`,
		`r3: CLUSTER COUNTKEYSINSLOT 11058 -> (integer) 0`,
		`r3: GET somekey -> (error) MOVED 11058 r1:6379`,
		`r1: GET somekey -> "v"`,
		`r1: PTTL somekey -> (integer) 56350`,
	}
	if d := cmp.Diff(want, short); d != "" {
		t.Errorf("legacy migration (-want +got):\n%s", d)
	}
	if s := got[len(got)-1]; !strings.Contains(s, `[(integer) 10923, (integer) 11057, ["r3"`) || !strings.Contains(s, `[(integer) 11058, (integer) 11058, ["r1"`) {
		t.Errorf("CLUSTER SLOTS after the hand-over does not give slot 11058 to r1: %s", s)
	}
}

// TestClusterAtomicMigrationPausesWrites moves slot 11058 with Redis 8.4's
// atomic migration: for the 2s pause the owner serves reads and holds
// writes; at the hand-over the held write is answered MOVED and the key,
// with its TTL, is on the importer.
func TestClusterAtomicMigrationPausesWrites(t *testing.T) {
	cfg := func(main func(*Ctx) error) Config {
		c := clusterConfig(main)
		c.Faults = []Fault{{Kind: FaultSlotMigrate, Target: "r1", Key: "somekey", At: time.Second, Dur: 2 * time.Second, Atomic: true}}
		return c
	}
	got := clusterSteps(t, cfg, [][]string{
		{"r3", "SET", "somekey", "v", "PX", "60000"},
		{"sleep", "1500ms"},
		{"r3", "GET", "somekey"},
		{"r3", "PEXPIRE", "somekey", "60000"},
		{"r1", "GET", "somekey"},
		{"r1", "PTTL", "somekey"},
	})
	want := []string{
		`r3: SET somekey v PX 60000 -> OK`,
		`r3: GET somekey -> "v"`,
		`r3: PEXPIRE somekey 60000 -> (error) MOVED 11058 r1:6379 (at 3s)`,
		`r1: GET somekey -> "v"`,
		`r1: PTTL somekey -> (integer) 56980`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("atomic migration (-want +got):\n%s", d)
	}
}

// TestClusterClientFollowsRedirects: a simulated process calling a group
// of a cluster reaches the node serving the key's slot, follows ASK
// (with ASKING) while the slot moves and MOVED after it moved, and then
// goes straight to the new owner.
func TestClusterClientFollowsRedirects(t *testing.T) {
	var got []string
	cfg := clusterConfig(func(c *Ctx) error {
		for _, at := range []time.Duration{0, 1500 * time.Millisecond, 3500 * time.Millisecond, 3600 * time.Millisecond} {
			c.Sleep(at - c.Now())
			r, err := c.Call("m1", time.Second, "INCR", "somekey")
			if err != nil {
				return err
			}
			got = append(got, r.String())
		}
		return nil
	})
	cfg.Faults = []Fault{{Kind: FaultSlotMigrate, Target: "r1", Key: "somekey", At: time.Second, Dur: 2 * time.Second}}
	h, err := Run(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"(integer) 1", "(integer) 2", "(integer) 3", "(integer) 4"}, got); d != "" {
		t.Errorf("INCR through the cluster client (-want +got):\n%s", d)
	}
	var calls []string
	for _, e := range h {
		if e.Kind == KindCall && e.Actor == "A" {
			calls = append(calls, e.Peer+" "+strings.Join(e.Args, " "))
		}
	}
	want := []string{
		"r3 INCR somekey",                                 // the slot map read at the start
		"r3 INCR somekey", "r1 ASKING", "r1 INCR somekey", // migrating: ASK
		"r3 INCR somekey", "r1 INCR somekey", // moved: MOVED, the map learns it
		"r1 INCR somekey", // straight to the new owner
	}
	if d := cmp.Diff(want, calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
}

// TestClusterFailover: with node timeout 2s, r3 (m3's primary) cut off
// from the other nodes: after 2s r3 refuses keyed commands (minority
// side), m3's replica r3b is elected without the write r3 took while cut
// off (asynchronous replication loses it), the other nodes then redirect
// to r3b, and at the heal r3 rejoins as r3b's replica.
func TestClusterFailover(t *testing.T) {
	cfg := func(main func(*Ctx) error) Config {
		c := clusterConfig(main)
		c.Cluster.NodeTimeout = 2 * time.Second
		c.Faults = []Fault{{Kind: FaultPartition, A: []string{"r3"}, B: []string{"r1", "r1b", "r2", "r2b", "r3b"}, At: time.Second, Dur: 5 * time.Second}}
		return c
	}
	got := clusterSteps(t, cfg, [][]string{
		{"r3", "SET", "somekey", "v1"},
		{"sleep", "1500ms"},
		{"r3", "SET", "somekey", "v2"}, // r3 still serves: the partition is younger than the node timeout
		{"sleep", "1600ms"},
		{"r3", "GET", "somekey"}, // 3.1s: r3 has been in the minority for 2s
		{"sleep", "1s"},
		{"r1", "GET", "somekey"}, // 4.1s: r3b was elected (FAIL at 3s, election within 1s)
		{"r3b", "GET", "somekey"},
		{"r3b", "SET", "somekey", "v3"},
		{"sleep", "3s"},
		{"r3", "GET", "somekey"}, // healed at 6s: r3 is r3b's replica
		{"r3", "READONLY"}, {"r3", "GET", "somekey"},
	})
	want := []string{
		`r3: SET somekey v1 -> OK`,
		`r3: SET somekey v2 -> OK`,
		`r3: GET somekey -> (error) CLUSTERDOWN The cluster is down`,
		`r1: GET somekey -> (error) MOVED 11058 r3b:6379`,
		`r3b: GET somekey -> "v1"`,
		`r3b: SET somekey v3 -> OK`,
		`r3: GET somekey -> (error) MOVED 11058 r3b:6379`,
		`r3: READONLY -> OK`, `r3: GET somekey -> "v3"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cluster failover (-want +got):\n%s", d)
	}
}

// TestClusterManualFailover: CLUSTER FAILOVER on a replica promotes it
// once it has applied what its primary sent, and demotes the primary.
func TestClusterManualFailover(t *testing.T) {
	got := clusterSteps(t, clusterConfig, [][]string{
		{"r1", "SET", "foo{hash_tag}", "v"},
		{"r1", "CLUSTER", "FAILOVER"},
		{"r1b", "CLUSTER", "FAILOVER", "NOW"},
		{"r1b", "CLUSTER", "FAILOVER"},
		{"sleep", "100ms"},
		{"r1", "GET", "foo{hash_tag}"},
		{"r1b", "GET", "foo{hash_tag}"},
		{"r2", "CLUSTER", "SHARDS"},
	})
	want := []string{
		`r1: SET foo{hash_tag} v -> OK`,
		`r1: CLUSTER FAILOVER -> (error) ERR You should send CLUSTER FAILOVER to a replica`,
		`r1b: CLUSTER FAILOVER NOW -> (error) ERR syntax error`,
		`r1b: CLUSTER FAILOVER -> OK`,
		`r1: GET foo{hash_tag} -> (error) MOVED 2515 r1b:6379`,
		`r1b: GET foo{hash_tag} -> "v"`,
	}
	if d := cmp.Diff(want, got[:len(got)-1]); d != "" {
		t.Errorf("manual failover (-want +got):\n%s", d)
	}
	if s := got[len(got)-1]; !strings.Contains(s, `"r1b", "endpoint", "r1b", "role", "master"`) || !strings.Contains(s, `"r1", "endpoint", "r1", "role", "replica"`) {
		t.Errorf("CLUSTER SHARDS after the failover: %s", s)
	}
}

// TestClusterDeterministic: a cluster run with a failover, a migration
// and two routed clients gives one history per seed, under the fixed and
// the random same-instant order.
func TestClusterDeterministic(t *testing.T) {
	cfg := func(policy InterleavePolicy) Config {
		main := func(c *Ctx) error {
			for i := range 40 {
				if _, err := c.Call("m1", 200*time.Millisecond, "SET", "somekey", c.Name()+strconv.Itoa(i), "PX", "500"); err != nil && !errors.Is(err, ErrTimeout) && !errors.Is(err, ErrRefused) {
					return err
				}
				c.Sleep(time.Duration(50+c.Rand().IntN(50)) * time.Millisecond)
			}
			return nil
		}
		c := clusterConfig(main)
		c.Clients = append(c.Clients, ClientConfig{Name: "B", Main: main})
		c.Cluster.NodeTimeout = 500 * time.Millisecond
		c.Interleave = Interleave{Policy: policy}
		c.Faults = []Fault{
			{Kind: FaultSlotMigrate, Target: "r1", Key: "somekey", At: 300 * time.Millisecond, Dur: 300 * time.Millisecond},
			{Kind: FaultNodeCrash, Target: "r1", At: time.Second, Dur: 2 * time.Second},
		}
		return c
	}
	for _, policy := range []InterleavePolicy{InterleaveFixed, InterleaveRandom} {
		var hashes []string
		var promoted bool
		for range 2 {
			h, err := Run(cfg(policy), 5)
			if err != nil {
				t.Fatal(err)
			}
			hashes = append(hashes, h.Hash())
			for _, e := range h {
				promoted = promoted || e.Kind == KindPromote && e.Actor == "r1b"
			}
		}
		if hashes[0] != hashes[1] {
			t.Errorf("interleave %q: two runs of seed 5 gave hashes %v", policy, hashes)
		}
		if !promoted {
			t.Errorf("interleave %q: r1b was not promoted after r1 crashed with the migrated slot", policy)
		}
	}
}

// TestClusterFailoverFault: the cluster-failover fault promotes the
// replica it names (with the key it had replicated), and the old primary
// redirects to it.
func TestClusterFailoverFault(t *testing.T) {
	cfg := func(main func(*Ctx) error) Config {
		c := clusterConfig(main)
		c.Faults = []Fault{{Kind: FaultClusterFailover, Target: "r3b", At: time.Second}}
		return c
	}
	got := clusterSteps(t, cfg, [][]string{
		{"r3", "SET", "somekey", "v"},
		{"sleep", "1500ms"},
		{"r3", "GET", "somekey"},
		{"r3b", "GET", "somekey"},
	})
	want := []string{
		`r3: SET somekey v -> OK`,
		`r3: GET somekey -> (error) MOVED 11058 r3b:6379`,
		`r3b: GET somekey -> "v"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cluster-failover fault (-want +got):\n%s", d)
	}
}
