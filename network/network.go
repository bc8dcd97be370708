package network

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/pkg/errors"
)

// Forever is the End of a fault that never heals.
const Forever = time.Duration(1<<63 - 1)

// Latency is a uniform distribution of one-way message latency.
type Latency struct {
	// Min and Max bound the one-way latency; Min <= Max, both >= 0.
	Min, Max time.Duration
}

// Link overrides the default latency and loss for messages From -> To.
// "*" matches any endpoint.
type Link struct {
	From, To string
	Latency  Latency
	// LossPPM is the probability of losing a message, parts per million.
	LossPPM int64
}

// Partition blocks messages between two sets of endpoints while
// Start <= sent < End. OneWay blocks only A -> B.
//
// How a stream (TCP) sees one that never heals (End Forever): by default
// its messages are lost and the stream resets at once (a reset, as a
// firewall that rejects); with Blackhole they vanish and the stream stays
// up, so a client notices only by its own timeouts (Fate.Silent). A
// partition that heals delays a stream's messages to the heal either way
// (TCP retransmits them).
type Partition struct {
	A, B       []string
	OneWay     bool
	Blackhole  bool
	Start, End time.Duration
}

// Delay adds Extra to every message From -> To sent in [Start, End).
type Delay struct {
	From, To   string
	Extra      time.Duration
	Start, End time.Duration
	// Hits counts the messages the window delayed (set by the network).
	Hits int
}

// Drop loses the first Count messages From -> To sent in [Start, End).
type Drop struct {
	From, To   string
	Count      int
	Start, End time.Duration
	// Hits counts the messages the window lost (set by the network).
	Hits int
}

// Config is the network's static description. Faults may also be added
// during a run with Add*.
type Config struct {
	// Default is the latency of every link not listed in Links.
	Default Latency
	// LossPPM is the default loss probability, parts per million.
	LossPPM int64
	Links   []Link
}

// Validate checks the configuration and names the bad field.
func (c Config) Validate() error {
	if err := c.Default.validate("network.default"); err != nil {
		return err
	}
	if c.LossPPM < 0 || c.LossPPM > 1_000_000 {
		return errors.Errorf("network.loss_ppm %d out of range [0, 1000000]", c.LossPPM)
	}
	for i, l := range c.Links {
		if err := l.Latency.validate("network.links[" + strconv.Itoa(i) + "]"); err != nil {
			return err
		}
		if l.LossPPM < 0 || l.LossPPM > 1_000_000 {
			return errors.Errorf("network.links[%d].loss_ppm %d out of range", i, l.LossPPM)
		}
	}
	return nil
}

func (l Latency) validate(field string) error {
	if l.Min < 0 || l.Max < 0 {
		return errors.Errorf("%s: latency must not be negative (min %v, max %v)", field, l.Min, l.Max)
	}
	if l.Max < l.Min {
		return errors.Errorf("%s: latency max %v is below min %v", field, l.Max, l.Min)
	}
	return nil
}

// Fate is what happens to one message.
type Fate struct {
	// Delivered is false when the message is lost.
	Delivered bool
	// At is the true arrival time when Delivered.
	At time.Duration
	// Why names the cause of a loss or of extra delay: "partition", "loss",
	// "drop", "delay"; empty for an ordinary delivery.
	Why string
	// Silent: a stream message lost to a blackhole partition that never
	// heals; the stream does not break, the message just never arrives.
	Silent bool
}

type linkKey struct{ from, to string }

// Network is the fault state and FIFO bookkeeping of one run.
type Network struct {
	cfg        Config
	rng        *rand.Rand
	partitions []Partition
	delays     []Delay
	drops      []*Drop
	// links is the last arrival per directed link, searched in order: a
	// run has a few links, and comparing names (the same strings each
	// time) is cheaper than hashing two of them per message. Past
	// maxListedLinks the rest go in last.
	links []linkLast
	last  map[linkKey]*time.Duration // the links past maxListedLinks (a pointer: one map lookup per message)
}

// linkLast is one directed link's last arrival.
type linkLast struct {
	from, to string
	last     time.Duration
}

// maxListedLinks is how many links Network.links holds before the map.
const maxListedLinks = 16

// lastArrival returns where the last arrival on from -> to is kept, and
// whether the link carried a message before.
func (n *Network) lastArrival(from, to string) (*time.Duration, bool) {
	for i := range n.links {
		if l := &n.links[i]; l.from == from && l.to == to {
			return &l.last, true
		}
	}
	k := linkKey{from, to}
	if last := n.last[k]; last != nil {
		return last, true
	}
	if len(n.links) < maxListedLinks {
		if n.links == nil {
			n.links = make([]linkLast, 0, maxListedLinks) // never moved: lastArrival's pointers stay valid
		}
		n.links = append(n.links, linkLast{from: from, to: to})
		return &n.links[len(n.links)-1].last, false
	}
	last := new(time.Duration)
	n.last[k] = last
	return last, false
}

// New returns a network using rng for every random decision.
func New(cfg Config, rng *rand.Rand) (*Network, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Network{cfg: cfg, rng: rng, last: map[linkKey]*time.Duration{}}, nil
}

// AddPartition adds a partition.
func (n *Network) AddPartition(p Partition) { n.partitions = append(n.partitions, p) }

// AddDelay adds an extra-delay window and returns its index for
// DelayHits.
func (n *Network) AddDelay(d Delay) int {
	n.delays = append(n.delays, d)
	return len(n.delays) - 1
}

// AddDrop adds a drop window and returns its index for DropHits.
func (n *Network) AddDrop(d Drop) int {
	n.drops = append(n.drops, &d)
	return len(n.drops) - 1
}

// DelayHits returns how many messages delay window i (AddDelay's index)
// delayed so far.
func (n *Network) DelayHits(i int) int { return n.delays[i].Hits }

// DropHits returns how many messages drop window i (AddDrop's index) lost
// so far.
func (n *Network) DropHits(i int) int { return n.drops[i].Hits }

// Partitions returns the partitions added so far, in order.
func (n *Network) Partitions() []Partition { return n.partitions }

func match(pattern, name string) bool { return pattern == "*" || pattern == name }

// Blocked reports whether a partition blocks from -> to at true time t, and
// the earliest time it heals (Forever if some blocking partition never does).
func (n *Network) Blocked(from, to string, t time.Duration) (bool, time.Duration) {
	blocked, heal := false, time.Duration(0)
	for _, p := range n.partitions {
		if t < p.Start || t >= p.End {
			continue
		}
		ab := slices.Contains(p.A, from) && slices.Contains(p.B, to)
		ba := !p.OneWay && slices.Contains(p.B, from) && slices.Contains(p.A, to)
		if ab || ba {
			blocked = true
			heal = max(heal, p.End)
		}
	}
	return blocked, heal
}

// blackholed reports whether a blackhole partition that never heals
// blocks from -> to at t.
func (n *Network) blackholed(from, to string, t time.Duration) bool {
	for _, p := range n.partitions {
		if !p.Blackhole || p.End != Forever || t < p.Start {
			continue
		}
		if slices.Contains(p.A, from) && slices.Contains(p.B, to) || !p.OneWay && slices.Contains(p.B, from) && slices.Contains(p.A, to) {
			return true
		}
	}
	return false
}

func (n *Network) link(from, to string) (Latency, int64) {
	for _, l := range n.cfg.Links {
		if match(l.From, from) && match(l.To, to) {
			return l.Latency, l.LossPPM
		}
	}
	return n.cfg.Default, n.cfg.LossPPM
}

// Send decides the fate of a message from -> to sent at true time `at`.
// reliable messages wait out partitions instead of being lost, and are
// never lost to random loss or drops (they model a TCP stream that is
// retransmitted).
func (n *Network) Send(from, to string, at time.Duration, reliable bool) Fate {
	return n.send(from, to, at, reliable, false)
}

// SendStream decides the fate of a message on a TCP-like stream from ->
// to sent at `at`: partitions delay it as for a reliable message, and random
// loss and drop windows lose it as for an unreliable one. A lost stream
// message breaks the stream (the caller resets it); its Fate.At is still the
// time it would have arrived, when both ends learn of the break.
func (n *Network) SendStream(from, to string, at time.Duration) Fate {
	return n.send(from, to, at, true, true)
}

func (n *Network) send(from, to string, at time.Duration, reliable, stream bool) Fate {
	lat, loss := n.link(from, to)
	// Draw latency first, always, so the random stream does not depend on
	// which faults are active.
	d := lat.Min
	if lat.Max > lat.Min {
		d += time.Duration(n.rng.Int64N(int64(lat.Max-lat.Min) + 1))
	}
	lost := loss > 0 && n.rng.Int64N(1_000_000) < loss
	why := ""
	departs := at
	if blocked, heal := n.Blocked(from, to, at); blocked {
		if !reliable || heal == Forever {
			if stream && heal == Forever && n.blackholed(from, to, at) {
				return Fate{Why: "partition (blackhole)", Silent: true}
			}
			return Fate{Why: "partition"}
		}
		departs, why = heal, "partition"
	}
	if !reliable || stream {
		lostWhy := ""
		if lost {
			lostWhy = "loss"
		} else {
			for _, dr := range n.drops {
				if dr.Count > 0 && at >= dr.Start && at < dr.End && match(dr.From, from) && match(dr.To, to) {
					dr.Count--
					dr.Hits++
					lostWhy = "drop"
					break
				}
			}
		}
		if lostWhy != "" {
			if stream {
				return Fate{At: departs + d, Why: lostWhy}
			}
			return Fate{Why: lostWhy}
		}
	}
	for i := range n.delays {
		dl := &n.delays[i]
		if at >= dl.Start && at < dl.End && match(dl.From, from) && match(dl.To, to) {
			d += dl.Extra
			dl.Hits++
			why = "delay"
		}
	}
	arrive := departs + d
	last, seen := n.lastArrival(from, to)
	if seen && *last > arrive {
		arrive = *last // FIFO: never overtake an earlier message
	}
	*last = arrive
	return Fate{Delivered: true, At: arrive, Why: why}
}
