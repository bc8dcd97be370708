package logcheck

import (
	"math"
	"slices"
	"time"
)

// Stats are the log's contention figures.
type Stats struct {
	Events   int            `json:"events"`
	Hosts    int            `json:"hosts"`
	Clients  int            `json:"clients"`
	Keys     int            `json:"keys"`
	Kinds    map[Kind]int   `json:"kinds"`
	Grants   map[string]int `json:"grants_per_client"`
	Latency  Dist           `json:"acquire_latency"`
	Refusals Dist           `json:"refused_after"`
	Holds    Dist           `json:"hold_times"`
	// Waiting counts acquisitions still waiting when the log ends.
	Waiting   int `json:"waiting_at_end"`
	tokens    int
	hosts     map[string]bool
	clients   map[string]bool
	latencies *sketch
	refusals  *sketch
	holds     *sketch
}

// Dist summarizes a distribution of durations (nanoseconds in JSON).
type Dist struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50_ns"`
	P90 time.Duration `json:"p90_ns"`
	P99 time.Duration `json:"p99_ns"`
	Max time.Duration `json:"max_ns"`
}

func newStats() Stats {
	return Stats{Kinds: map[Kind]int{}, Grants: map[string]int{}, hosts: map[string]bool{}, clients: map[string]bool{},
		latencies: newSketch(), refusals: newSketch(), holds: newSketch()}
}

func (s *Stats) count(e Event) {
	s.Events++
	s.Kinds[e.Kind]++
	s.hosts[e.Host] = true
	s.clients[e.Client] = true
}

func (s *Stats) latency(d time.Duration)      { s.latencies.add(d) }
func (s *Stats) refusedAfter(d time.Duration) { s.refusals.add(d) }
func (s *Stats) hold(d time.Duration)         { s.holds.add(d) }

func (s *Stats) finish(keys int) {
	s.Hosts, s.Clients, s.Keys = len(s.hosts), len(s.clients), keys
	s.Latency, s.Refusals, s.Holds = s.latencies.dist(), s.refusals.dist(), s.holds.dist()
}

// sketch keeps durations for quantiles in bounded memory: exact up to
// sketchExact values, then log-scale buckets (relative error under 1%).
type sketch struct {
	exact   []time.Duration
	buckets map[int]int
	n       int
	max     time.Duration
}

const sketchExact = 1 << 16

func newSketch() *sketch { return &sketch{} }

func (k *sketch) add(d time.Duration) {
	d = max(d, 0)
	k.n++
	k.max = max(k.max, d)
	if k.buckets == nil {
		k.exact = append(k.exact, d)
		if len(k.exact) > sketchExact {
			k.buckets = map[int]int{}
			for _, x := range k.exact {
				k.buckets[bucketOf(x)]++
			}
			k.exact = nil
		}
		return
	}
	k.buckets[bucketOf(d)]++
}

// bucketOf maps d to a bucket of width 1% of its value.
func bucketOf(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Log(float64(d))/math.Log(1.01)) + 1
}

func bucketValue(b int) time.Duration {
	if b == 0 {
		return 0
	}
	return time.Duration(math.Pow(1.01, float64(b)))
}

func (k *sketch) dist() Dist {
	d := Dist{N: k.n, Max: k.max}
	if k.n == 0 {
		return d
	}
	q := func(p float64) int { return min(k.n-1, int(p*float64(k.n))) }
	if k.buckets == nil {
		s := slices.Clone(k.exact)
		slices.Sort(s)
		d.P50, d.P90, d.P99 = s[q(0.5)], s[q(0.9)], s[q(0.99)]
		return d
	}
	bs := make([]int, 0, len(k.buckets))
	for b := range k.buckets {
		bs = append(bs, b)
	}
	slices.Sort(bs)
	at := func(rank int) time.Duration {
		for _, b := range bs {
			rank -= k.buckets[b]
			if rank < 0 {
				return min(bucketValue(b), k.max)
			}
		}
		return k.max
	}
	d.P50, d.P90, d.P99 = at(q(0.5)), at(q(0.9)), at(q(0.99))
	return d
}
