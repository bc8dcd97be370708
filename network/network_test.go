package network

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newNet(t *testing.T, cfg Config) *Network {
	t.Helper()
	n, err := New(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFIFOPerLink(t *testing.T) {
	n := newNet(t, Config{Default: Latency{Min: time.Millisecond, Max: 10 * time.Millisecond}})
	var last time.Duration
	for i := 0; i < 1000; i++ {
		f := n.Send("A", "r1", time.Duration(i)*100*time.Microsecond, false)
		if !f.Delivered {
			t.Fatalf("message %d lost: %s", i, f.Why)
		}
		if f.At < last {
			t.Fatalf("message %d arrives at %v before the previous one at %v", i, f.At, last)
		}
		last = f.At
	}
}

// TestFIFOPerLinkManyLinks keeps FIFO on more links than Network.links
// lists (the rest are kept in its map), messages interleaved across them;
// and a link's order is its own: another link's late message does not
// hold it back.
func TestFIFOPerLinkManyLinks(t *testing.T) {
	n := newNet(t, Config{Default: Latency{Min: time.Millisecond, Max: 50 * time.Millisecond}})
	names := []string{"A", "B", "C", "D", "E", "F", "r1", "r2"}
	last := map[linkKey]time.Duration{}
	for i := 0; i < 4000; i++ {
		from, to := names[i%len(names)], names[(i/len(names)+i)%len(names)]
		if from == to {
			continue
		}
		at := time.Duration(i) * 100 * time.Microsecond
		f := n.Send(from, to, at, false)
		if !f.Delivered {
			t.Fatalf("message %d lost: %s", i, f.Why)
		}
		k := linkKey{from, to}
		if f.At < last[k] {
			t.Fatalf("message %d on %s->%s arrives at %v before the link's previous one at %v", i, from, to, f.At, last[k])
		}
		last[k] = f.At
	}
	if len(last) <= maxListedLinks {
		t.Fatalf("%d links: the test must use more than the %d listed", len(last), maxListedLinks)
	}
	if len(n.links) != maxListedLinks || len(n.last) != len(last)-maxListedLinks {
		t.Fatalf("%d links listed and %d in the map, want %d and %d", len(n.links), len(n.last), maxListedLinks, len(last)-maxListedLinks)
	}
	// A fresh link is not held back by the others.
	if f := n.Send("r1", "X", 0, false); f.At > 50*time.Millisecond {
		t.Errorf("a new link's first message arrives at %v: held back by another link", f.At)
	}
}

func TestSameSeedSameFates(t *testing.T) {
	cfg := Config{Default: Latency{Min: 0, Max: time.Millisecond}, LossPPM: 100_000}
	run := func() []Fate {
		n := newNet(t, cfg)
		var out []Fate
		for i := 0; i < 200; i++ {
			out = append(out, n.Send("A", "r1", time.Duration(i)*time.Millisecond, false))
		}
		return out
	}
	if diff := cmp.Diff(run(), run()); diff != "" {
		t.Errorf("fates differ (-first +second):\n%s", diff)
	}
}

func TestPartitionDropsOrHolds(t *testing.T) {
	n := newNet(t, Config{Default: Latency{Min: time.Millisecond, Max: time.Millisecond}})
	n.AddPartition(Partition{A: []string{"r1"}, B: []string{"r2"}, Start: time.Second, End: 3 * time.Second})
	if f := n.Send("r2", "r1", 2*time.Second, false); f.Delivered || f.Why != "partition" {
		t.Errorf("unreliable message across a two-way partition: %+v", f)
	}
	if f := n.Send("r1", "r2", 2*time.Second, true); !f.Delivered || f.At != 3*time.Second+time.Millisecond {
		t.Errorf("reliable message held by a partition: %+v, want delivery at 3.001s", f)
	}
	if f := n.Send("r1", "r2", 3*time.Second, false); !f.Delivered {
		t.Errorf("message after heal lost: %+v", f)
	}
}

func TestOneWayPartition(t *testing.T) {
	n := newNet(t, Config{})
	n.AddPartition(Partition{A: []string{"A"}, B: []string{"r1"}, OneWay: true, Start: 0, End: Forever})
	if f := n.Send("A", "r1", 0, false); f.Delivered {
		t.Error("A -> r1 delivered through a one-way partition")
	}
	if f := n.Send("r1", "A", 0, false); !f.Delivered {
		t.Error("r1 -> A lost, but the partition is one-way A -> r1")
	}
}

func TestDropAndDelay(t *testing.T) {
	n := newNet(t, Config{Default: Latency{Min: time.Millisecond, Max: time.Millisecond}})
	n.AddDrop(Drop{From: "r1", To: "A", Count: 1, Start: 0, End: Forever})
	n.AddDelay(Delay{From: "A", To: "res", Extra: 2 * time.Second, Start: 0, End: time.Second})
	if f := n.Send("r1", "A", 0, false); f.Delivered || f.Why != "drop" {
		t.Errorf("first reply not dropped: %+v", f)
	}
	if f := n.Send("r1", "A", 0, false); !f.Delivered {
		t.Errorf("second reply dropped, Count was 1: %+v", f)
	}
	if f := n.Send("A", "res", 0, false); f.At != 2*time.Second+time.Millisecond || f.Why != "delay" {
		t.Errorf("delayed message: %+v, want arrival 2.001s", f)
	}
}

func TestValidate(t *testing.T) {
	for _, cfg := range []Config{
		{Default: Latency{Min: -1}},
		{Default: Latency{Min: 2, Max: 1}},
		{LossPPM: 2_000_000},
		{Links: []Link{{From: "A", To: "r1", Latency: Latency{Min: -5}}}},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted a bad config", cfg)
		}
	}
}
