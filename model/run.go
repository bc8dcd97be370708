package model

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/network"
	"locksim/sim"
)

// WithDefaults fills in a spec's defaults: clients A and B (and C for a
// fair design, whose order needs two waiters to be broken), the masters
// and replicas the design's traits ask for (one master; five for redlock,
// one replica for wait-replica), strict fencing for fenced designs and
// none for the others, one cycle per client, 50ms of work, 1-2ms latency.
func (s Spec) WithDefaults() Spec { return s.withDefaults(s.traits(nil)) }

// withDefaults is WithDefaults given the spec's traits.
func (s Spec) withDefaults(t Traits) Spec {
	if len(s.Clients) == 0 {
		s.Clients = []string{"A", "B"}
		if t.Fair {
			s.Clients = append(s.Clients, "C")
		}
	}
	if s.Topology.Masters == 0 {
		s.Topology.Masters = max(1, t.Masters)
		if s.Topology.Cluster {
			s.Topology.Masters = 3
		}
	}
	if s.Topology.Replicas == 0 {
		s.Topology.Replicas = t.Replicas
	}
	if s.Topology.Persistence == "" {
		s.Topology.Persistence = sim.PersistNone
	}
	if s.Topology.MinReplicasToWrite > 0 && s.Topology.MinReplicasMaxLag == 0 {
		s.Topology.MinReplicasMaxLag = DefaultMinReplicasMaxLag
	}
	if s.Fencing == "" {
		s.Fencing = FenceOff
		if t.Fenced {
			s.Fencing = FenceStrict
		}
	}
	if s.Workload.Cycles == 0 && s.Workload.Duration == 0 {
		s.Workload.Cycles = 1
	}
	if s.Workload.Work == 0 {
		s.Workload.Work = 50 * time.Millisecond
	}
	if s.Network.Default == (network.Latency{}) {
		s.Network.Default = network.Latency{Min: time.Millisecond, Max: 2 * time.Millisecond}
	}
	if t.AllMasters && s.Options.Quorum == 0 {
		s.Options.Quorum = s.lockMasters() // every master (multi-lock)
	}
	if t.Shared && s.Workload.Readers == 0 {
		s.Workload.Readers = len(s.Clients) / 2
	}
	s.Options = s.Options.WithDefaults(s.lockMasters())
	if s.Limits.MaxTime == 0 {
		// Leases of minutes need runs of hours of virtual time.
		s.Limits.MaxTime = min(max(time.Hour, 100*s.Options.TTL), MaxRunTime)
	}
	return s
}

// lockMasters is how many masters the lock is taken on: a Lua design may
// use the first Options.LuaMasters of them; the quorum is a majority of
// these.
func (s Spec) lockMasters() int {
	if s.Design == LuaDesignID && s.Options.LuaMasters > 0 && s.Options.LuaMasters < s.Topology.Masters {
		return s.Options.LuaMasters
	}
	return s.Topology.Masters
}

// design returns the spec's design.
func (s Spec) design() (Design, error) {
	if s.Custom != nil {
		return s.Custom, nil
	}
	if s.Design == LuaDesignID {
		if s.Lua == nil {
			return nil, errors.New("design lua needs scripts (Spec.Lua)")
		}
		if err := s.Lua.Validate(); err != nil {
			return nil, err
		}
		return NewLuaDesign(s.Lua, s.Fencing.Tokens()), nil
	}
	return LookupDesign(s.Design)
}

// NodeName returns the name of node j (0 = primary) of group g (from 0)
// in a topology with the given replicas per group: r1, r2, ...
func NodeName(g, j, replicas int) string {
	return "r" + strconv.Itoa(g*(replicas+1)+j+1)
}

// GroupName returns the name of group g (from 0): m1, m2, ...
func GroupName(g int) string { return "m" + strconv.Itoa(g+1) }

// Config builds the simulation configuration of a spec (defaults applied).
func (s Spec) Config() (sim.Config, error) {
	d, err := s.design()
	if err != nil {
		return sim.Config{}, err
	}
	return s.config(d, s.traits(d), s.Roster())
}

// config is Config given the spec's design, traits and roster (Resolve).
func (s Spec) config(d Design, traits Traits, roster Roster) (sim.Config, error) {
	if err := s.checkLimits(); err != nil {
		return sim.Config{}, err
	}
	t := s.Topology
	if t.Masters < 1 {
		return sim.Config{}, errors.Errorf("masters %d must be at least 1", t.Masters)
	}
	if t.Replicas < 0 {
		return sim.Config{}, errors.Errorf("replicas %d is negative", t.Replicas)
	}
	if err := t.validateMinReplicas(); err != nil {
		return sim.Config{}, err
	}
	if err := s.Options.Validate(s.lockMasters()); err != nil {
		return sim.Config{}, err
	}
	if s.Workload.Cycles < 0 || s.Workload.Duration < 0 || s.Workload.Work < 0 || s.Workload.Think < 0 || s.Workload.Start < 0 || s.Workload.Reentry < 0 || s.Workload.Readers < 0 {
		return sim.Config{}, errors.New("workload cycles, duration, work, think, start, reentry and readers must not be negative")
	}
	if !slices.Contains(Fencings, s.Fencing) {
		return sim.Config{}, errors.Errorf("unknown fencing %s (want %s)", bounded.Q(s.Fencing), FencingNames())
	}
	il, err := sim.ParseInterleave(s.Interleave)
	if err != nil {
		return sim.Config{}, err
	}
	server, err := s.serverVersion(traits)
	if err != nil {
		return sim.Config{}, err
	}
	res := &Resource{Fencing: s.Fencing}
	cfg := sim.Config{
		Server:     server.String(),
		Interleave: il,
		Network:    s.Network,
		Sentinel:   t.Sentinel,
		Faults:     s.Faults,
		Until:      s.Until,
		Limits:     s.Limits,
		Services:   []sim.ServiceConfig{{Name: ResourceName, Handler: res}},
	}
	if t.Cluster {
		if err := s.checkCluster(d, traits); err != nil {
			return sim.Config{}, err
		}
		cfg.Cluster.Enabled = true
		cfg.Cluster.NodeTimeout = t.ClusterNodeTimeout
	}
	dep, deploys := d.(Deployer)
	if deploys {
		if t.Replicas > 0 || t.Sentinel.Enabled {
			return sim.Config{}, errors.Errorf("design %s deploys its own nodes: it takes no replicas and no sentinel", d.Name())
		}
		if cfg.Nodes, err = dep.Deploy(roster.Nodes, t.NodeClocks); err != nil {
			return sim.Config{}, err
		}
	} else {
		for _, name := range roster.Nodes {
			cfg.Nodes = append(cfg.Nodes, sim.NodeConfig{Name: name, Clock: t.NodeClocks[name],
				Persistence: t.Persistence, Priority: t.Priorities[name],
				MinReplicasToWrite: t.MinReplicasToWrite, MinReplicasMaxLag: t.MinReplicasMaxLag,
				MaxMemory: t.MaxMemory, Policy: t.Policy, Fill: t.Fill})
		}
		cfg.Groups = roster.Groups
	}
	readers := 0
	if traits.Shared {
		readers = min(s.Workload.Readers, len(s.Clients)) // more readers than clients: all read
	}
	for i, name := range s.Clients {
		cfg.Clients = append(cfg.Clients, sim.ClientConfig{Name: name, Clock: t.ClientClocks[name],
			Main: clientMain(d, s.Options, s.Workload, s.Fencing, i, i >= len(s.Clients)-readers)})
	}
	for name := range t.NodeClocks {
		if !slices.ContainsFunc(cfg.Nodes, func(n sim.NodeConfig) bool { return n.Name == name }) {
			return sim.Config{}, errors.Errorf("a clock names unknown node %s", bounded.Q(name))
		}
	}
	for name := range t.ClientClocks {
		if !slices.ContainsFunc(cfg.Clients, func(c sim.ClientConfig) bool { return c.Name == name }) {
			return sim.Config{}, errors.Errorf("a clock names unknown client %s", bounded.Q(name))
		}
	}
	return cfg, nil
}

// CheckConfig returns what the checkers judge a run of the spec by
// (defaults applied).
func (s Spec) CheckConfig() invariant.Config {
	d, _ := s.design()
	return s.checkConfig(d, s.traits(d), s.Roster())
}

// checkConfig is CheckConfig given the spec's design (nil when it cannot
// be built), traits and roster (Resolve).
func (s Spec) checkConfig(d Design, t Traits, roster Roster) invariant.Config {
	rule := invariant.NoFencing
	switch s.Fencing {
	case FenceVersion:
		rule = invariant.VersionCheck
	case FenceStrict, FenceStrictReads:
		rule = invariant.TokenAbove
	case FenceNonstrict:
		rule = invariant.TokenAtLeast
	}
	masters, tolerate, bound := s.availabilityClaim(t, roster)
	failover := false
	if bound == 0 {
		masters, tolerate, bound = s.failoverClaim(t, roster)
		failover = bound > 0
	}
	return invariant.Config{
		AvailableBound: bound,
		Masters:        masters,
		Tolerate:       tolerate,
		Failover:       failover,
		Fencing:        rule,
		Quorum:         quorumOf(s, t),
		LivenessBound:  s.livenessBound(d),
		Tokens:         t.Fenced || s.Fencing.Tokens(),
		Reentrant:      t.Reentrant,
		Fair:           t.Fair,
		Shared:         t.Shared,
		// A real client's holder is promised what its library reports
		// (Until) or declares (the deadline option): a section with
		// neither has no deadline, which premature-loss does not judge.
		Validity: t.Validity || s.IsRealClient(),
		NoWrites: t.Shared && len(s.Clients) > 0 && s.Workload.Readers >= len(s.Clients),
		// The workload gives every acquisition its acquire wait; what may
		// cross the deadline is one backoff sleep (at most RetryMax plus
		// RetryJitter) or the tail of a request, which is left out (one
		// call timeout).
		AcquireTolerance: max(s.Options.CallTimeout, s.Options.RetryMax+s.Options.RetryJitter),
		ClientWall:       t.ReadsWall,
	}
}

// availabilityClaim is what a quorum lock on independent masters claims
// (Traits.ToleratesMinority, invariant.Available): it keeps working while at most masters-quorum of
// its masters are down, slow or cut off, acquiring a wanted, free lock
// within three tries, each a retry delay (RetryMax plus RetryJitter) and a call timeout,
// plus a TTL for the keys a failed try or a crashed holder left. A design
// without the claim (one master, replicas, a lock that needs every master,
// its own nodes) returns a zero bound.
func (s Spec) availabilityClaim(t Traits, roster Roster) (masters []string, tolerate int, bound time.Duration) {
	n := s.lockMasters()
	// A real client states its claim with its bound (Options.AcquireBound).
	declared := s.IsRealClient() && s.Options.AcquireBound > 0
	if !(t.ToleratesMinority || declared) || t.Keys > 1 || t.OwnNodes || s.Topology.Replicas > 0 || n < 3 || n-s.Options.Quorum < 1 {
		return nil, 0, 0
	}
	for _, g := range roster.Groups[:n] {
		masters = append(masters, g.Primary)
	}
	if declared {
		return masters, n - s.Options.Quorum, s.Options.AcquireBound
	}
	return masters, n - s.Options.Quorum, 3*(s.Options.RetryMax+s.Options.RetryJitter+s.Options.CallTimeout) + s.Options.TTL
}

// failoverClaim is what a design on one primary under Sentinel claims
// (Traits.ToleratesFailover, invariant.Config.Failover): while Sentinel
// replaces a primary that crashed, stalled or was cut off from it, and
// nothing else acts, a wanted, free lock is acquired within the bound
// from the onset of the fault:
//
//   - down-after, until Sentinel promotes a replica;
//   - the announcement's way to the clients (the network's longest
//     latency) and the discovery delay, until they call the new primary;
//   - three tries, each a retry delay (RetryMax plus RetryJitter) and a
//     call timeout (the first is the call to the old primary that times
//     out);
//   - a TTL, for the keys the old primary's last writes left on the
//     promoted replica (a holder's, a try whose reply was lost);
//   - for a fair lock, the queue wait: a waiter that gave up while the old
//     primary was away could not take its place out of the queue the
//     promoted replica keeps, and the others wait until it runs out.
//
// Tolerate is the group's replicas: at least one node of the group stays
// for Sentinel to promote. The claim needs one group (Topology.Masters 1)
// with at least one replica, Sentinel on, every replica promotable, no
// min-replicas-to-write (after a failover the new primary has a replica
// fewer, which may stop every write) and no random message loss. A real
// client states its claim with its bound (Options.AcquireBound), which
// replaces the derived one. Otherwise it returns a zero bound.
func (s Spec) failoverClaim(t Traits, roster Roster) (group []string, tolerate int, bound time.Duration) {
	declared := s.IsRealClient() && s.Options.AcquireBound > 0
	top := s.Topology
	switch {
	case !(t.ToleratesFailover || declared), t.Quorum, t.AllMasters, t.Keys > 1, t.OwnNodes, t.Replicas > 0:
		return nil, 0, 0
	case !top.Sentinel.Enabled, top.Cluster, top.Masters != 1, top.Replicas < 1, top.MinReplicasToWrite > 0:
		return nil, 0, 0
	case s.Network.LossPPM > 0 || slices.ContainsFunc(s.Network.Links, func(l network.Link) bool { return l.LossPPM > 0 }):
		return nil, 0, 0
	}
	for _, p := range top.Priorities {
		if p < 0 { // sim.NeverPromote: Sentinel may have no replica to promote
			return nil, 0, 0
		}
	}
	g := roster.Groups[0]
	group = append([]string{g.Primary}, g.Replicas...)
	if declared {
		return group, top.Replicas, s.Options.AcquireBound
	}
	downAfter := top.Sentinel.DownAfter
	if downAfter == 0 {
		downAfter = sim.DefaultDownAfter
	}
	latency := s.Network.Default.Max
	for _, l := range s.Network.Links {
		latency = max(latency, l.Latency.Max)
	}
	o := s.Options
	bound = downAfter + latency + top.Sentinel.DiscoveryDelay + 3*(o.RetryMax+o.RetryJitter+o.CallTimeout) + o.TTL
	if t.Fair {
		// A waiter that gave up while the old primary was away could not
		// remove its place in the queue, which the promoted replica keeps
		// until it runs out.
		bound += o.QueueWait
	}
	return group, top.Replicas, bound
}

// RealClientPrefix starts the design name of a real client's spec
// (package realclient: "real:" + its name): a Go lock library run in the
// simulated world, not a design of the catalogue.
const RealClientPrefix = "real:"

// IsRealClient reports whether the spec is a real client's
// (RealClientPrefix).
func (s Spec) IsRealClient() bool { return strings.HasPrefix(s.Design, RealClientPrefix) }

// livenessBound is how long after the last fault a wanted, free lock may
// take to be acquired: two TTLs and a third of the acquire wait, or what
// the design says it needs (a LivenessBounder).
func (s Spec) livenessBound(d Design) time.Duration {
	if lb, ok := d.(LivenessBounder); ok {
		return lb.LivenessBound(s.Options)
	}
	return 2*s.Options.TTL + s.Options.AcquireWait/3
}

// CanCount refuses a list of invariants to count when one of them cannot
// apply to the spec's design and resource (defaults applied;
// invariant.Config.Unjudged): counting it would pass without judging
// anything.
func (s Spec) CanCount(ids []invariant.ID) error { return s.Resolution().CanCount(ids) }

// canCount is CanCount of a resolved spec with its checkers'
// configuration and traits (Resolved.CanCount).
func (s Spec) canCount(cfg invariant.Config, t Traits, ids []invariant.ID) error {
	id, why := cfg.Unjudged(ids)
	if id == "" {
		return nil
	}
	name := s.Design
	if s.Custom != nil {
		name = s.Custom.Name()
	}
	if id == invariant.Fencing && slices.Contains(ids, invariant.TokenUnique) {
		why += "; on this resource ask for token-unique alone (token-order means token-unique,fencing)"
	}
	if id == invariant.Available && t.ToleratesFailover {
		why += "; it claims to tolerate a failover on one master with replicas under Sentinel (--nodes 1 --replicas 1 or more), with no min-replicas-to-write"
	}
	return errors.Errorf("invariant %s cannot apply to design %s (%s): counting it would pass without judging anything", id, name, why)
}

// quorumOf is how many of a lease's grants must still hold it for no other
// client to gather the grants it needs: for a lock that needs q of n
// grants, n-q+1 (a majority of an odd n: redlock; one for a lock that
// needs all n: multi-lock); for a single-grant lock, 1.
func quorumOf(s Spec, t Traits) int {
	switch n := s.lockMasters(); {
	case t.Keys > 1:
		return t.Keys - (t.Keys/2 + 1) + 1 // a majority of keys on one node
	case n > 1 && t.Quorum:
		return n - s.Options.Quorum + 1
	}
	return 1
}

// Run runs one spec with one seed and checks the history. The error is
// for a spec that cannot run (bad input); a run that stopped at a limit
// returns a Result with Err set and its history checked as far as it got.
func Run(s Spec, seed uint64) (*Result, error) { return RunObserved(s, seed, nil) }

// RunObserved is Run with observe called on every event as the world
// records it (sim.Config.Observe): a caller that needs what the history
// does not hold, such as which scheduler step recorded an event.
func RunObserved(s Spec, seed uint64, observe sim.Observer) (*Result, error) {
	rs, err := s.Resolve()
	if err != nil {
		return nil, err
	}
	s = rs.Spec
	cfg, err := rs.Config()
	if err != nil {
		return nil, err
	}
	cfg.Observe = observe
	w, err := sim.New(cfg, seed)
	if err != nil {
		return nil, err
	}
	h, runErr := w.Run()
	r := &Result{Spec: s, Seed: seed, History: h, Err: runErr, FaultOutcomes: w.FaultOutcomes(), Interleave: w.InterleaveStats()}
	if runErr == nil {
		r.Violations = invariant.Check(h, rs.Check)
	}
	return r, nil
}

// histPool holds history buffers for Verdict, whose callers keep no history.
var histPool = sync.Pool{New: func() any { return new(sim.History) }}

// indexPool holds history indexes for Verdict to rebuild (Index.Reuse):
// building one anew allocated about half of a standard run's bytes.
var indexPool = sync.Pool{New: func() any { return history.New(nil) }}

// Outcome is what a run ended with, without its history.
type Outcome struct {
	// Violations are what the checkers found; nil when Err is set.
	Violations []invariant.Violation
	// Err is set when the run stopped early (a limit, a design error):
	// such a run has no verdicts.
	Err error
	// Failovers counts the promotions in the run.
	Failovers int
	// WriteAccepted: the resource applied at least one write (a run with
	// none protected nothing, whatever its verdicts).
	WriteAccepted bool
	// Vacuous: the run finished with no violation and no client ever
	// acquired (Result.Vacuous): it judged nothing.
	Vacuous bool
	// NoneAcquired: no client ever acquired. With no counted violation
	// such a run judged nothing that counts (a lock that never grants
	// breaks only liveness).
	NoneAcquired bool
	// Undecided are the invariants the run judged without a verdict:
	// liveness when a fault never healed or the history ended before the
	// bound was reached (invariant.LivenessUndecided), the write
	// invariants when nothing was written (WritesUndecidedOf). Such a run
	// is no evidence that the invariant held.
	Undecided []invariant.ID
	// FaultOutcomes says, for each fault of the spec, whether it took
	// effect (Result.FaultOutcomes).
	FaultOutcomes []sim.FaultOutcome
	// Interleave is what the same-instant scheduler saw (its choice
	// points and competing lanes); zero under the fixed order.
	Interleave sim.InterleaveStats
}

// Unfired returns the indexes of the faults that never took effect.
func (o Outcome) Unfired() []int { return unfired(o.FaultOutcomes) }

// UndecidedOf returns the invariants a run judged without a verdict
// (Outcome.Undecided): liveness, when it did not break and
// invariant.LivenessUndecided says the run could not decide it.
func UndecidedOf(ix *history.Index, cfg invariant.Config, vs []invariant.Violation) []invariant.ID {
	if cfg.LivenessBound <= 0 || slices.ContainsFunc(vs, func(v invariant.Violation) bool { return v.Invariant == invariant.Liveness }) {
		return nil // not judged, or broken: decided either way
	}
	if _, undecided := invariant.LivenessUndecided(ix, cfg); undecided {
		return []invariant.ID{invariant.Liveness}
	}
	return nil
}

// WritesUndecidedOf returns the invariants that judge the resource's
// writes (lost-update, stale-write) that a run which wrote nothing (no
// write accepted) judged without a verdict: such a run could not break
// them, so it is no evidence that they held. Those not judged by the
// config, or broken, are left out. A check's tally counts them with
// Outcome.Undecided; a single run's verdict still shows them held.
func WritesUndecidedOf(ix *history.Index, cfg invariant.Config, vs []invariant.Violation) []invariant.ID {
	if ix.WriteAccepted() {
		return nil
	}
	var out []invariant.ID
	for _, id := range WriteInvariants {
		if ok, _ := cfg.Judged(id); ok && !slices.ContainsFunc(vs, func(v invariant.Violation) bool { return v.Invariant == id }) {
			out = append(out, id)
		}
	}
	return out
}

// WriteInvariants are the invariants judged on the resource's writes.
var WriteInvariants = []invariant.ID{invariant.StaleWrite, invariant.LostUpdate}

// Verdict runs a spec and returns only its outcome, reusing history
// memory across calls: the path for sweeps, `check` and property tests,
// which run many worlds and keep none of their histories. The error is for
// a spec that cannot run.
func Verdict(s Spec, seed uint64) (Outcome, error) {
	rs, err := s.Resolve()
	if err != nil {
		return Outcome{}, err
	}
	cfg, err := rs.Config()
	if err != nil {
		return Outcome{}, err
	}
	buf := histPool.Get().(*sim.History)
	cfg.HistoryBuf = *buf
	w, err := sim.New(cfg, seed)
	if err != nil {
		histPool.Put(buf)
		return Outcome{}, err
	}
	h, runErr := w.Run()
	o := Outcome{Err: runErr, FaultOutcomes: w.FaultOutcomes(), Interleave: w.InterleaveStats()}
	if runErr == nil {
		ix := indexPool.Get().(*history.Index).Reuse(h)
		cc := rs.Check
		o.Violations = invariant.CheckIndex(ix, cc)
		o.Failovers = len(ix.Promotions)
		o.WriteAccepted = ix.WriteAccepted()
		o.Vacuous = len(o.Violations) == 0 && len(ix.Acquisitions) == 0
		o.NoneAcquired = len(ix.Acquisitions) == 0
		o.Undecided = append(UndecidedOf(ix, cc, o.Violations), WritesUndecidedOf(ix, cc, o.Violations)...)
		indexPool.Put(ix)
	}
	clear(h) // drop references into the run before the memory is reused
	*buf = h[:0]
	histPool.Put(buf)
	return o, nil
}
