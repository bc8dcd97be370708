package sim

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// pressureRun runs one client that sets lock (with a TTL) and INCRs
// token, reads lock every 10ms, with a memory-pressure fault f at 100ms on
// r1 (maxmemory and policy as given), and returns the keys evicted, the
// replies of the reads after the fault, the fault's outcome and the run.
func pressureRun(t *testing.T, maxmemory int64, pol EvictionPolicy, f Fault) (evicted, after []string, out FaultOutcome, h History) {
	t.Helper()
	main := func(c *Ctx) error {
		for _, cmd := range [][]string{{"SET", "lock", "v", "PX", "10000"}, {"INCR", "token"}} {
			if _, err := c.Call("m1", 50*ms, cmd...); err != nil {
				return err
			}
		}
		for i := range 15 {
			r, err := c.Call("m1", 50*ms, "GET", "lock")
			if err != nil {
				return err
			}
			if i >= 12 {
				after = append(after, r.String())
			}
			c.Sleep(10 * ms)
		}
		r, err := c.Call("m1", 50*ms, "INCR", "token")
		if err != nil {
			return err
		}
		after = append(after, r.String())
		return nil
	}
	cfg := oneNode(ClientConfig{Name: "A", Main: main})
	cfg.Network.Default.Max = cfg.Network.Default.Min
	cfg.Nodes[0].MaxMemory, cfg.Nodes[0].Policy = maxmemory, pol
	f.Kind, f.Target, f.At = FaultMemoryPressure, "r1", 100*ms
	cfg.Faults = []Fault{f}
	w, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if h, err = w.Run(); err != nil {
		t.Fatal(err)
	}
	for _, e := range kinds(h, "r1", KindEvict) {
		if !strings.HasPrefix(e.Key, FillKeyPrefix) {
			evicted = append(evicted, e.Key)
		}
	}
	return evicted, after, w.FaultOutcomes()[0], h
}

// TestMemoryPressure: a burst of other data makes the node evict by its
// policy. A node without maxmemory is capped at what it holds at the
// fault's time under the fault's policy: allkeys-lru takes the idle
// counter and then the lock key (both older than the burst); volatile-lru
// only the lock key (the counter has no TTL), and the next INCR then gets
// OOM (nothing left with a TTL: the burst's keys stay for good);
// allkeys-lfu the burst's own key (the lock key, read often, counts more).
// A node with room for the burst evicts nothing: the fault never fired.
func TestMemoryPressure(t *testing.T) {
	for _, tc := range []struct {
		name      string
		maxmemory int64
		pol       EvictionPolicy
		f         Fault
		evicted   []string
		incr      string // the last INCR's reply
		fired     bool
	}{
		{"capped allkeys-lru", 0, "", Fault{Size: 100, Policy: AllKeysLRU}, []string{"token", "lock"}, "(integer) 1", true},
		{"capped, keys expire", 0, "", Fault{Size: 100, Policy: AllKeysLRU, Dur: 2 * time.Second}, []string{"token", "lock"}, "(integer) 1", true},
		{"its own limit, keys expire", 400, AllKeysLRU, Fault{Size: 300, Dur: 2 * time.Second}, []string{"token", "lock"}, "(integer) 1", true},
		{"capped volatile-lru", 0, "", Fault{Size: 100, Policy: VolatileLRU}, []string{"lock"}, "(error) " + MsgOOM, true},
		{"capped allkeys-lfu", 0, "", Fault{Size: 100, Policy: AllKeysLFU}, nil, "(integer) 2", true},
		{"room for it", 5000, AllKeysLRU, Fault{Size: 1000}, nil, "(integer) 2", false},
		{"its own limit", 400, AllKeysLRU, Fault{Size: 300}, []string{"token", "lock"}, "(integer) 1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evicted, after, out, h := pressureRun(t, tc.maxmemory, tc.pol, tc.f)
			if !slices.Equal(evicted, tc.evicted) {
				t.Errorf("evicted %q, want %q\n%s", evicted, tc.evicted, h.Text())
			}
			if got := after[len(after)-1]; got != tc.incr {
				t.Errorf("the INCR after the burst got %s, want %s\n%s", got, tc.incr, h.Text())
			}
			if out.Fired() != tc.fired || !tc.fired && out != FaultNoPressure {
				t.Errorf("fired %v (%s), want %v", out.Fired(), out, tc.fired)
			}
			ev := kinds(h, "r1", KindMemoryPressure)
			if len(ev) != 1 || ev[0].N != tc.f.Size {
				t.Fatalf("memory-pressure events %v", ev)
			}
			if capped := strings.Contains(ev[0].Note, ", capped at its use"); capped != (tc.maxmemory == 0) {
				t.Errorf("note %q: capped %v, want %v", ev[0].Note, capped, tc.maxmemory == 0)
			}
			// The pressure lasts as long as its keys on a node with its
			// own limit; a cap stays: for good (liveness is not judged
			// after the keys expire on a node still capped).
			if lasts := tc.f.Dur * time.Duration(min(tc.maxmemory, 1)); ev[0].Dur != lasts {
				t.Errorf("the event lasts %v, want %v", ev[0].Dur, lasts)
			}
		})
	}
}

// TestMemoryPressureRefusals: a node without maxmemory needs the fault's
// policy; a node with one evicts by its own; size and for are bounded;
// a down node takes nothing (no target).
func TestMemoryPressureRefusals(t *testing.T) {
	for _, tc := range []struct {
		maxmemory int64
		pol       EvictionPolicy
		f         Fault
		want      string
	}{
		{0, "", Fault{Size: 100}, "has no maxmemory"},
		{2000, AllKeysLRU, Fault{Size: 100, Policy: VolatileLRU}, "would change it"},
		{2000, "", Fault{Size: 100, Policy: AllKeysLRU}, "policy noeviction"},
		{0, "", Fault{Size: 0, Policy: AllKeysLRU}, "size 0 out of range"},
		{0, "", Fault{Size: MaxPressureBytes + 1, Policy: AllKeysLRU}, "out of range"},
		{0, "", Fault{Size: 100, Policy: "most-lru"}, "unknown policy"},
		{0, "", Fault{Size: 100, Policy: AllKeysLRU, Dur: 10}, "at least 1ms"},
	} {
		cfg := oneNode(ClientConfig{Name: "A", Main: func(c *Ctx) error { return nil }})
		cfg.Nodes[0].MaxMemory, cfg.Nodes[0].Policy = tc.maxmemory, tc.pol
		tc.f.Kind, tc.f.Target = FaultMemoryPressure, "r1"
		cfg.Faults = []Fault{tc.f}
		if _, err := New(cfg, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v on maxmemory %d %q: err %v, want %q", tc.f, tc.maxmemory, tc.pol, err, tc.want)
		}
	}
	cfg := oneNode(ClientConfig{Name: "A", Main: func(c *Ctx) error { c.Sleep(300 * ms); return nil }})
	cfg.Faults = []Fault{{Kind: FaultNodeCrash, Target: "r1", At: 10 * ms},
		{Kind: FaultMemoryPressure, Target: "r1", At: 20 * ms, Size: 100, Policy: AllKeysLRU}}
	w, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Run(); err != nil {
		t.Fatal(err)
	}
	if got := w.FaultOutcomes()[1]; got != FaultNoTarget {
		t.Errorf("memory pressure on a down node: %s, want no target", got)
	}
}
