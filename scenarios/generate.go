package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"
	"pgregory.net/rapid"

	"locksim/internal/bounded"
	"locksim/model"
	"locksim/sim"
)

// Gen says what generated runs draw: the one schedule generator behind
// `locksim check` (seeded draws, independent runs) and locksim.Check and
// the module's properties (rapid draws, which shrink). The zero value draws
// the defaults.
//
// A run's configuration comes from the base spec; with Swarm, every field
// the base leaves zero is drawn per run (swarm testing over
// configurations, not only over fault kinds): 2-4 clients, work short,
// about the TTL or (for designs that renew) longer than it, 1-3 cycles,
// latency, the call timeout, the clients' start stagger, for a reentrant
// design 0-2 nested holds inside each section (Workload.Reentry), and,
// with replicas, Sentinel's down-after relative to the TTL. Sentinel is on
// whenever there are replicas, so failover happens in generated runs.
//
// The faults, 1 to MaxFaults of them, each of a kind the run did not leave
// out (every run leaves out a random subset of the kinds):
//
//   - pause: of a client, placed inside acquire (after a request left,
//     before its reply is read), in the critical section, between the
//     client's lease check and its write, inside release (after its own
//     checks, before the command that gives the key back), in the watchdog
//     (inside a renewal), or at a random time; lasting a few ms, about the
//     call timeout, just under or just over the TTL, or much longer;
//   - crash: of a client, placed as pauses are, restarting or not;
//   - partition: in Jepsen's shapes: one node isolated, one client
//     isolated, the masters split majority/minority with clients on both
//     sides, the primaries isolated from their replicas and the sentinel
//     (a minority-side primary keeps serving its clients); one-way at
//     times; long enough to outlast down-after;
//   - delay: of one link, a Redis link or the resource's (Links), below or
//     above the call timeout, bounded by DelayMax; at a random time, after a
//     write (a delayed write), or after a renewal (the watchdog's next
//     request is late);
//   - drop: a lost reply (the ambiguous outcome) or a lost request;
//   - node-crash: short, around down-after (a failover), or long, at times
//     forever; a primary's crash may come with its replication to every
//     replica lagging, so the promoted replica lacks the latest writes;
//   - clock-jump: a node's clock steps by about the TTL, mostly forward;
//   - clock-drift: a node or client runs fast or slow by about the
//     design's drift factor, or by 5-30%;
//   - evict: a node evicts the lock key.
//   - node-stall (only when Kinds names it): a node's thread blocks about
//     the call timeout, past down-after, or past the TTL.
//   - starve (only when Kinds names it): one task of a client, its
//     watchdog (when the design renews) or its main task, runs late by a
//     pause's length, placed as pauses are; the rest of the process runs.
//   - slot-migrate (only when Kinds names it, on a cluster): the lock
//     key's slot moves to another shard, legacy (ASK for 0.5-3 TTLs) or
//     atomic (a write pause of 0.3-2 TTLs).
//   - cluster-failover (only when Kinds names it, on a cluster with
//     replicas): CLUSTER FAILOVER to a replica, FORCE one time in three.
//   - memory-pressure (only when Kinds names it, Redis nodes): a burst of
//     other data on a primary, 10%-150% of the topology's maxmemory, or
//     one to eight keys' worth on a node without one, capped at what it
//     holds under a drawn policy; its keys for 0.5-3 TTLs or for good.
//
// Draws are biased toward small and boundary values (see RandDraws), and
// rapid shrinks them toward fewer, shorter, earlier faults.
type Gen struct {
	// Kinds are the fault kinds to draw from; nil means DefaultKinds, and
	// an empty non-nil list no faults at all.
	Kinds []sim.FaultKind
	// PauseAt restricts where pauses and client crashes are placed; nil
	// means every place.
	PauseAt []Place
	// DelayMax bounds generated network delays; 0 means 2 x TTL.
	DelayMax time.Duration
	// Links chooses which links delays and drops hit; "" means all.
	Links Links
	// MaxFaults bounds the faults per run; 0 means 3.
	MaxFaults int
	// Swarm draws the configuration fields the base spec leaves zero.
	Swarm bool
	// Horizon bounds absolute fault times; 0 derives it from the
	// configuration (the time the workload takes, at least 4 x TTL).
	Horizon time.Duration
	// Blackhole makes every partition drawn a blackhole (sim.Fault
	// .Blackhole): a real client's connection cut for good is not reset,
	// its packets vanish and only its own timeouts tell it. No draw
	// decides it, so setting it moves no other choice.
	Blackhole bool
	// NodeClocksOnly draws clock faults for nodes only: the clients are
	// real processes in one bubble with one clock (package realclient).
	NodeClocksOnly bool
	// Wire places pauses at the events a real client's driver records on
	// the wire (history.KindAcquireSend, KindReleaseSend before each
	// command of Unlock, KindExtendSend) instead of a model's calls
	// (package realclient).
	Wire bool
	// ClientClocksOnly draws clock faults for clients only, whatever the
	// design reads: a step of a node's clock breaks every lease, so this
	// tells whether a client's own clock decides (the wall-clock option
	// against the monotonic one).
	ClientClocksOnly bool
}

// Place is where a pause (or client crash) takes hold.
type Place string

// The placement classes.
const (
	PlaceAcquire  Place = "acquire"  // inside acquire: after a request left, before its reply is read
	PlaceCritical Place = "critical" // in the critical section, after acquiring
	PlaceWrite    Place = "write"    // between the lease check and the write
	PlaceRelease  Place = "release"  // inside release, before the key is given back
	PlaceWatchdog Place = "watchdog" // inside a watchdog renewal
	PlaceTime     Place = "time"     // at a random instant
)

// Places lists the placement classes.
var Places = []Place{PlaceAcquire, PlaceCritical, PlaceWrite, PlaceRelease, PlaceWatchdog, PlaceTime}

// Links selects the links delays and drops hit.
type Links string

// The link choices.
const (
	LinksRedis    Links = "redis"    // client <-> Redis node
	LinksResource Links = "resource" // client <-> the fenced resource
	LinksAll      Links = "all"
)

// DefaultKinds are the fault kinds drawn by default: every kind but
// evict, which only an operator's misconfiguration causes, and node-stall,
// starve and memory-pressure, drawn when Kinds names them (adding one here
// would change the draws of every seed of the default generator).
var DefaultKinds = []sim.FaultKind{sim.FaultPause, sim.FaultCrash, sim.FaultPartition, sim.FaultDelay,
	sim.FaultDrop, sim.FaultNodeCrash, sim.FaultClockJump, sim.FaultClockDrift}

// ParsePlaces parses a comma-separated list of places ("any" is all).
func ParsePlaces(list string) ([]Place, error) {
	var out []Place
	for _, w := range strings.Split(list, ",") {
		p := Place(strings.TrimSpace(w))
		switch {
		case p == "":
		case p == "any":
			return slices.Clone(Places), nil
		case slices.Contains(Places, p):
			out = append(out, p)
		default:
			return nil, errors.Errorf("unknown place %s (want acquire, critical, write, release, watchdog, time or any)", bounded.Q(p))
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the place list names none")
	}
	return out, nil
}

// Validate reports a generator option no run could honour.
func (g Gen) Validate() error {
	switch {
	case g.DelayMax < 0:
		return errors.Errorf("delay-max %v is negative", g.DelayMax)
	case g.MaxFaults < 0 || g.MaxFaults > 20:
		return errors.Errorf("max faults %d out of range [0, 20]", g.MaxFaults)
	case g.Links != "" && g.Links != LinksRedis && g.Links != LinksResource && g.Links != LinksAll:
		return errors.Errorf("unknown links %s (want redis, resource or all)", bounded.Q(g.Links))
	}
	for _, k := range g.Kinds {
		if !slices.Contains(sim.FaultKinds, k) {
			return errors.Errorf("unknown fault kind %s", bounded.Q(k))
		}
	}
	// A misspelt place ("wirte") was taken silently: its pauses and
	// crashes went to no place the caller asked for.
	for _, p := range g.PauseAt {
		if !slices.Contains(Places, p) {
			return errors.Errorf("unknown pause place %s (want acquire, critical, write, release, watchdog or time)", bounded.Q(p))
		}
	}
	return nil
}

// Run draws one run from a seeded generator: the configuration (base with
// its zero fields drawn, under Swarm) and the faults.
func (g Gen) Run(r *rand.Rand, base model.Spec) model.Spec {
	return g.RunDraws(RandDraws(r), base)
}

// RunDraws draws one run from any source of draws (ByteDraws for Go's
// fuzzer), as Run does from a seeded generator.
func (g Gen) RunDraws(d Draws, base model.Spec) model.Spec {
	rs := g.config(d, base)
	s := rs.Spec
	if g.none() {
		s.Faults = nil
		return s
	}
	s.Faults = g.faults(d, g.shapeOf(rs), intIn(d, 1, g.maxFaults(), "faults"))
	return s
}

// RunRapid draws one run from a rapid test case; rapid can then delete
// whole faults while shrinking.
func (g Gen) RunRapid(t *rapid.T, base model.Spec) model.Spec {
	rs := g.config(RapidDraws(t), base)
	s := rs.Spec
	if g.none() {
		s.Faults = nil
		return s
	}
	kinds := g.enabled(RapidDraws(t))
	sh := g.shapeOf(rs)
	one := rapid.Custom(func(t *rapid.T) []sim.Fault {
		return g.fault(RapidDraws(t), sh, pick(RapidDraws(t), kinds, "kind"))
	})
	s.Faults = nil
	for _, fs := range rapid.SliceOfN(one, 0, g.maxFaults()).Draw(t, "faults") {
		s.Faults = append(s.Faults, fs...)
	}
	return s
}

// Rand returns run seed's generator of schedules, the one check uses.
func Rand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x10c5)) }

// none reports whether the generator draws no faults at all.
func (g Gen) none() bool { return g.Kinds != nil && len(g.Kinds) == 0 }

func (g Gen) maxFaults() int {
	if g.MaxFaults > 0 {
		return g.MaxFaults
	}
	return 3
}

func (g Gen) kinds() []sim.FaultKind {
	if len(g.Kinds) > 0 {
		return g.Kinds
	}
	return DefaultKinds
}

// enabled leaves out a random subset of the kinds (swarm testing). Drawn
// as "leave out", so a shrunk rapid case keeps every kind and its log
// reads consistently with the faults it shows.
func (g Gen) enabled(d Draws) []sim.FaultKind {
	var on []sim.FaultKind
	for _, k := range g.kinds() {
		if !flip(d, "leave out "+string(k)) {
			on = append(on, k)
		}
	}
	if len(on) == 0 {
		return g.kinds()
	}
	return on
}

func (g Gen) faults(d Draws, sh shape, n int) []sim.Fault {
	kinds := g.enabled(d)
	var out []sim.Fault
	// A kind that does not apply to the spec draws nothing (slot-migrate
	// off a cluster); maxEmptyDraws in a row end the drawing with fewer
	// faults instead of looping for ever when no enabled kind applies.
	for empty := 0; len(out) < n && empty < maxEmptyDraws; {
		f := g.fault(d, sh, pick(d, kinds, "kind"))
		if len(f) == 0 {
			empty++
			continue
		}
		empty = 0
		out = append(out, f...)
	}
	return out
}

// maxEmptyDraws bounds the draws in a row that give no fault.
const maxEmptyDraws = 64

// Describe says what a run's drawn configuration is, for failure reports:
// "clients A,B,C; work 900ms; 2 cycles; latency 1ms-3ms; call timeout
// 150ms; down-after 700ms".
func Describe(s model.Spec) string { return DescribeResolved(s.Resolution()) }

// DescribeResolved is Describe of a resolved spec.
func DescribeResolved(rs *model.Resolved) string {
	s := rs.Spec
	parts := []string{
		"clients " + strings.Join(s.Clients, ","),
		"ttl " + sim.FormatDuration(s.Options.TTL),
		"work " + sim.FormatDuration(s.Workload.Work),
		fmt.Sprintf("%d cycles", s.Workload.Cycles),
		"latency " + sim.FormatDuration(s.Network.Default.Min) + "-" + sim.FormatDuration(s.Network.Default.Max),
		"call timeout " + sim.FormatDuration(s.Options.CallTimeout),
	}
	if s.Workload.Start > 0 {
		parts = append(parts, "stagger "+sim.FormatDuration(s.Workload.Start))
	}
	if s.Workload.Reentry > 0 {
		parts = append(parts, fmt.Sprintf("reentry %d", s.Workload.Reentry))
	}
	t := s.Topology
	if t.Masters > 1 || t.Replicas > 0 {
		parts = append(parts, fmt.Sprintf("%d master(s) x %d replica(s)", t.Masters, t.Replicas))
	}
	if t.Sentinel.Enabled {
		parts = append(parts, "down-after "+sim.FormatDuration(t.Sentinel.DownAfter))
	}
	if t.Persistence != "" && t.Persistence != sim.PersistNone {
		parts = append(parts, "persistence "+string(t.Persistence))
	}
	if s.Interleave != "" && s.Interleave != "fixed" && s.Interleave != "preempt:" {
		parts = append(parts, "interleave "+s.Interleave)
	}
	if t.MinReplicasToWrite > 0 {
		parts = append(parts, fmt.Sprintf("min-replicas-to-write %d, max lag %s", t.MinReplicasToWrite, sim.FormatDuration(t.MinReplicasMaxLag)))
	}
	if s.Fencing != "" && s.Fencing != model.FenceOff {
		parts = append(parts, "fencing "+string(s.Fencing))
	}
	// The design options the spec changed (quorum=2, deadline=true): a
	// guarantee or a replay line that left them out would describe
	// another design.
	var set []string
	for _, w := range rs.Settings() {
		if !strings.HasPrefix(w, "call-timeout=") { // shown above
			set = append(set, w)
		}
	}
	if len(set) > 0 {
		parts = append(parts, "options "+strings.Join(set, " "))
	}
	return strings.Join(parts, "; ")
}

// SafeDrift draws up to two node clocks drifting within half a design's
// drift factor: the assumption redlock's safety argument makes.
func SafeDrift(t *rapid.T, nodes []string, factor float64) []sim.Fault {
	d := RapidDraws(t)
	limit := int64(factor * 1e6 / 2)
	var fs []sim.Fault
	for range intIn(d, 0, 2, "drifts") {
		fs = append(fs, sim.Fault{Kind: sim.FaultClockDrift, Target: pick(d, nodes, "node"), RatePPM: d.Int64Range(-limit, limit, "ppm")})
	}
	return fs
}
