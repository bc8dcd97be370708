package sim

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"locksim/sim/resp"
)

// memoryRun runs one client's commands, 10ms apart, on one node with
// maxmemory 300 and policy pol, and returns the replies and the keys
// evicted in order. By the formula (64 + key + value per key) a, b and c
// take 66 bytes each and big 187: 385 bytes, over 300, once big is set.
func memoryRun(t *testing.T, pol EvictionPolicy, cmds [][]string) (replies []string, evicted []string, h History) {
	t.Helper()
	main := func(c *Ctx) error {
		for _, cmd := range cmds {
			r, err := c.Call("m1", 50*ms, cmd...)
			if err != nil {
				return err
			}
			replies = append(replies, r.String())
			c.Sleep(10 * ms)
		}
		return nil
	}
	cfg := oneNode(ClientConfig{Name: "A", Main: main})
	cfg.Nodes[0].MaxMemory, cfg.Nodes[0].Policy = 300, pol
	h = mustRun(t, cfg, 1)
	for _, e := range kinds(h, "r1", KindEvict) {
		evicted = append(evicted, e.Key)
	}
	return replies, evicted, h
}

var big = strings.Repeat("x", 120)

// TestEvictionPolicies: each policy evicts the candidates it defines, in
// its order, until the node is back under maxmemory: b and c have TTLs (c
// the nearer expiry), a has none and is read again before big is set.
func TestEvictionPolicies(t *testing.T) {
	cmds := [][]string{
		{"SET", "a", "1"}, {"SET", "b", "1", "PX", "10000"}, {"SET", "c", "1", "PX", "5000"},
		{"GET", "a"}, {"GET", "a"}, {"GET", "a"},
		{"SET", "big", big}, {"PING"}, {"GET", "a"},
	}
	for _, tc := range []struct {
		pol  EvictionPolicy
		want []string // nil: any two keys but a
	}{
		{AllKeysLRU, []string{"b", "c"}},  // the two idlest: a was read after them
		{VolatileLRU, []string{"b", "c"}}, // the only candidates
		{VolatileTTL, []string{"c", "b"}}, // nearest expiry first
		{VolatileLFU, []string{"b", "c"}}, // counters equal: by name
		{VolatileRandom, nil},
		{AllKeysLFU, nil}, // a was read three times: its counter is above the others'
		{AllKeysRandom, nil},
	} {
		replies, evicted, h := memoryRun(t, tc.pol, cmds)
		if tc.want != nil && !slices.Equal(evicted, tc.want) {
			t.Errorf("%s evicted %q, want %q\n%s", tc.pol, evicted, tc.want, h.Text())
		}
		if tc.pol == AllKeysRandom {
			if len(evicted) == 0 {
				t.Errorf("%s evicted nothing", tc.pol)
			}
			continue
		}
		if len(evicted) != 2 || slices.Contains(evicted, "a") {
			t.Errorf("%s evicted %q: want two keys, not a (read more often and more recently)\n%s", tc.pol, evicted, h.Text())
		}
		if strings.HasPrefix(string(tc.pol), "volatile-") && slices.Contains(evicted, "big") {
			t.Errorf("%s evicted big, which has no TTL", tc.pol)
		}
		if got := replies[len(replies)-1]; got != `"1"` {
			t.Errorf("%s: GET a after the evictions = %s", tc.pol, got)
		}
	}
}

// TestNoEvictionRefusesWritesServesReads: under noeviction, and under a
// volatile policy with no key that has a TTL, a node over maxmemory
// evicts nothing; SET gets Redis's OOM error, GET and DEL are served, and
// once DEL brought it back under maxmemory SET is served again. A script
// is refused at its first write, not after one (a DEL first lets it on).
func TestNoEvictionRefusesWritesServesReads(t *testing.T) {
	cmds := [][]string{
		{"SET", "a", "1"}, {"SET", "b", "1"}, {"SET", "c", "1"}, {"SET", "big", big},
		{"SET", "d", "1"}, {"INCR", "n"}, {"GET", "a"},
		{"EVAL", "return redis.call('SET', 'd', '1')", "0"},
		{"EVAL", "redis.call('DEL', 'c') return redis.call('SET', 'd', '1')", "0"},
		{"DEL", "b", "d"}, {"SET", "d", "1"},
	}
	for _, pol := range []EvictionPolicy{NoEviction, VolatileLRU, VolatileTTL, VolatileRandom, ""} {
		replies, evicted, h := memoryRun(t, pol, cmds)
		if len(evicted) != 0 {
			t.Errorf("%q evicted %q: nothing is a candidate", pol, evicted)
		}
		oom := "(error) " + MsgOOM
		want := []string{"OK", "OK", "OK", "OK", oom, oom, `"1"`, "", "OK", "(integer) 2", "OK"}
		if len(replies) != len(want) {
			t.Fatalf("%q: replies %q\n%s", pol, replies, h.Text())
		}
		for i, w := range want {
			if w == "" {
				if !strings.Contains(replies[i], "OOM command not allowed") {
					t.Errorf("%q: %v got %s, want the OOM error", pol, cmds[i], replies[i])
				}
				continue
			}
			if replies[i] != w {
				t.Errorf("%q: %v got %s, want %s\n%s", pol, cmds[i], replies[i], w, h.Text())
			}
		}
	}
}

// TestNoMaxMemoryNoLimit: without maxmemory nothing is evicted or refused.
func TestNoMaxMemoryNoLimit(t *testing.T) {
	main := func(c *Ctx) error {
		for range 50 {
			if r, _ := c.Call("m1", 50*ms, "SET", "k"+strconv.Itoa(c.Rand().IntN(1000)), big); r.Kind == resp.Error {
				t.Errorf("SET without maxmemory: %s", r)
			}
		}
		return nil
	}
	cfg := oneNode(ClientConfig{Name: "A", Main: main})
	cfg.Nodes[0].Policy = AllKeysLRU
	if h := mustRun(t, cfg, 1); len(kinds(h, "r1", KindEvict)) != 0 {
		t.Errorf("evictions without maxmemory")
	}
}

// TestLFUCounter: Redis's LFULogIncr and LFUDecrAndReturn. A new key
// starts at 5; the first access from 5 always counts; a counter of 105
// grows with probability 1/1001; one decrement per minute since the last.
func TestLFUCounter(t *testing.T) {
	n := &node{w: &World{seed: 1}, name: "r1"}
	km := &keyMeta{lfu: lfuInitVal}
	n.lfuIncr(km)
	if km.lfu != 6 {
		t.Fatalf("from 5: %d, want 6 (probability 1)", km.lfu)
	}
	km.lfu = 105
	grew := 0
	for range 10000 {
		k := &keyMeta{lfu: 105}
		n.lfuIncr(k)
		grew += int(k.lfu) - 105
	}
	if grew < 2 || grew > 30 { // expected 10
		t.Errorf("a counter of 105 grew %d times in 10000, want about 10", grew)
	}
	km = &keyMeta{lfu: 10, decayed: 0}
	n.lfuDecay(km, 3*time.Minute+30*time.Second)
	if km.lfu != 7 || km.decayed != 3*time.Minute {
		t.Errorf("after 3.5 minutes: counter %d (want 7), last decrement %v (want 3m)", km.lfu, km.decayed)
	}
	n.lfuDecay(km, time.Hour)
	if km.lfu != 0 {
		t.Errorf("after an hour: %d, want 0", km.lfu)
	}
}

// TestFillerEvictsDeterministically: the filler fills the node, the
// policy evicts; the same seed gives the same history, and following the
// touched keys records what reading the whole keyspace records (the
// evictions change miniredis directly: touched.go).
func TestFillerEvictsDeterministically(t *testing.T) {
	main := func(c *Ctx) error {
		c.Call("m1", 50*ms, "SET", "lock", "A", "PX", "5000")
		c.Call("m1", 50*ms, "INCR", "counter")
		for range 20 {
			c.Sleep(50 * ms)
			c.Call("m1", 50*ms, "GET", "counter")
		}
		return nil
	}
	for _, pol := range EvictionPolicies {
		cfg := oneNode(ClientConfig{Name: "A", Main: main})
		cfg.Nodes[0].MaxMemory, cfg.Nodes[0].Policy = 1000, pol
		cfg.Nodes[0].Fill = FillConfig{Every: 10 * ms, Size: 100, TTL: 3 * time.Second}
		h1 := mustRun(t, cfg, 7)
		h2 := mustRun(t, cfg, 7)
		old := SetFullRescan(true)
		h3 := mustRun(t, cfg, 7)
		SetFullRescan(old)
		if h1.Hash() != h2.Hash() || h1.Hash() != h3.Hash() {
			t.Errorf("%s: the same seed gave different histories (or touched keys differ from the whole keyspace)", pol)
		}
		ev := kinds(h1, "r1", KindEvict)
		fills := 0
		for _, e := range kinds(h1, "r1", KindExec) {
			if e.Peer == "filler" {
				fills++
			}
		}
		if fills < 90 {
			t.Errorf("%s: %d filler writes, want about 100 (every 10ms for 1s)", pol, fills)
		}
		if pol == NoEviction {
			if len(ev) != 0 {
				t.Errorf("noeviction evicted %d keys", len(ev))
			}
			continue
		}
		if len(ev) < 50 {
			t.Errorf("%s: %d evictions, want most of the filler's writes", pol, len(ev))
		}
		if strings.HasPrefix(string(pol), "volatile-") && slices.ContainsFunc(ev, func(e Event) bool { return e.Key == "counter" }) {
			t.Errorf("%s evicted the counter, which has no TTL", pol)
		}
	}
}
