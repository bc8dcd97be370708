package sim

import (
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/network"
)

// Persistence is what a Redis node keeps across a crash.
type Persistence string

// The persistence modes of the catalogue.
const (
	// PersistNone restarts empty.
	PersistNone Persistence = "none"
	// PersistEverySec loses the writes since the last whole second of
	// true time (appendfsync everysec).
	PersistEverySec Persistence = "aof-everysec"
	// PersistAlways loses nothing (appendfsync always).
	PersistAlways Persistence = "aof-always"
)

// Persistences lists the persistence modes, in catalogue order: the one
// list flags, scenario files and Config validation accept.
var Persistences = []Persistence{PersistNone, PersistEverySec, PersistAlways}

// PersistenceNames renders Persistences for messages: "none, aof-everysec
// or aof-always".
func PersistenceNames() string {
	ws := make([]string, len(Persistences))
	for i, p := range Persistences {
		ws[i] = string(p)
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

// NodeConfig describes one Redis node.
type NodeConfig struct {
	// Name is unique among nodes, clients and services ("r1").
	Name string
	// Clock is the node's clock; key TTLs run on its wall clock.
	Clock clock.Config
	// Persistence is what survives a crash; "" means none.
	Persistence Persistence
	// Priority is the replica priority for failover: lower wins. 0 takes
	// the default, 100; NeverPromote (Redis's replica-priority 0) keeps the
	// node from ever being promoted.
	Priority int
	// MinReplicasToWrite is Redis's min-replicas-to-write: while the node
	// is a primary with fewer good replicas than this (acknowledged within
	// MinReplicasMaxLag), it refuses write commands with NOREPLICAS
	// (minreplicas.go). 0, the default, turns the check off (package
	// model bounds it by the replicas per group). Setting it on any node
	// makes replicas acknowledge every second: each second of the run costs
	// an event per node and one more per replica (a 60s run of one primary
	// and two replicas: 359 events instead of 9).
	MinReplicasToWrite int
	// MinReplicasMaxLag is Redis's min-replicas-max-lag, the oldest an
	// acknowledgement may be for its replica to count as good, on the
	// primary's wall clock. Required (positive) with MinReplicasToWrite;
	// Redis takes whole seconds and defaults to 10s.
	MinReplicasMaxLag time.Duration
	// MaxMemory is Redis's maxmemory in bytes of the documented memory
	// formula (evict.go); 0, the default, is no limit.
	MaxMemory int64 `json:",omitempty"`
	// Policy is Redis's maxmemory-policy; "" is noeviction, Redis's
	// default.
	Policy EvictionPolicy `json:",omitempty"`
	// Fill, when Fill.Every > 0, is another application filling the
	// node's memory (evict.go).
	Fill FillConfig `json:",omitempty"`
	// Machine, if set, runs this program on the node instead of Redis
	// (machine.go): a consensus node. Persistence, Priority and the
	// min-replicas settings do not apply to it, and it may not be in a
	// group.
	Machine Machine
}

// GroupConfig is one replicated Redis deployment: a primary and its
// replicas. Clients address a group by name; it resolves to the primary
// the client currently believes in.
type GroupConfig struct {
	// Name is unique ("m1").
	Name string
	// Primary is the initial primary node.
	Primary string
	// Replicas are nodes replicating asynchronously from the primary.
	Replicas []string
}

// SentinelConfig enables Sentinel-style failover for groups with replicas.
type SentinelConfig struct {
	// Enabled turns failover on. The sentinel is the endpoint "sentinel",
	// which partitions may name.
	Enabled bool
	// DownAfter is how long the primary must be unreachable from the
	// sentinel before a replica is promoted. Default 30s, as in Redis.
	DownAfter time.Duration
	// DiscoveryDelay is how long after a promotion clients learn of it,
	// on top of network latency from the sentinel. Default 0.
	DiscoveryDelay time.Duration
}

// ClientConfig describes one client process.
type ClientConfig struct {
	// Name is unique ("A").
	Name string
	// Clock is the process's clock.
	Clock clock.Config
	// Main is the process's program. It runs as a coroutine; it may start
	// background tasks with Ctx.Go. The process ends when Main returns.
	Main func(*Ctx) error
	// External makes the process's program run outside the world, driven
	// through World.External (external.go); Main must then be nil. Its
	// clock must be the nominal one; a crash ends its incarnation (EffectCrash).
	External bool
	// Process, for an external client, names the client process it is a
	// goroutine of (realclient.WithGoroutines: "A" for "A.2"). The external
	// clients of one process may send on each other's streams, as the
	// goroutines of a process share its connection pool: each command,
	// its node execution and its reply are the sender's, while the stream's
	// own news (a reset, a push) goes to its dialer, or to another live
	// client of the process once the dialer's program has returned. Empty:
	// a process of its own, whose streams only it uses.
	Process string
}

// ServiceConfig is a non-Redis endpoint, such as the fenced resource.
type ServiceConfig struct {
	Name    string
	Handler Service
}

// Limits bound a run. A run that reaches a limit stops with an error that
// says which.
type Limits struct {
	// MaxEvents bounds the events the loop processes. Default
	// DefaultMaxEvents.
	MaxEvents int
	// MaxTime bounds true time. Default 1h.
	MaxTime time.Duration
}

// Config is everything a run needs besides its seed.
type Config struct {
	Nodes    []NodeConfig
	Groups   []GroupConfig
	Clients  []ClientConfig
	Services []ServiceConfig
	Network  network.Config
	Sentinel SentinelConfig
	// Cluster makes the groups one Redis Cluster (cluster.go).
	Cluster ClusterConfig `json:",omitempty"`
	Faults  []Fault
	// Server is the Redis or Valkey release every node models
	// (ParseVersion: "redis-7.0", "redis-8.4", "valkey-9.0"); "" is
	// DefaultServer. It decides which commands and options the nodes
	// accept (version.go).
	Server string `json:",omitempty"`
	// RESP3 makes the nodes answer HELLO as Redis 7.0 does, so a
	// connection may switch to RESP3 and turn on CLIENT TRACKING, whose
	// invalidations travel its stream (tracking.go). Off, HELLO gets an
	// unknown-command error and clients speak RESP2, as with Redis 5.
	// Package realclient turns it on.
	RESP3 bool `json:",omitempty"`
	// Until ends the run at this true time even if clients are still
	// running (no error). Zero: the run ends when every client's Main has
	// returned.
	Until time.Duration
	// Drain is how long, after the last client's Main returned (Until
	// zero), events still in flight keep running: messages land, keys
	// expire. Default 10s; events beyond it are dropped without error.
	Drain time.Duration
	// DialTimeout is how long an external client's dial (External.Dial)
	// waits for the node's answer before it fails with ErrDialTimeout, as
	// a dialer with a connect timeout does: a dial whose SYN a blackhole
	// partition swallows, or that a partition holds back, is not answered.
	// Default 5s, go-redis's DialTimeout (TCP itself gives up after its SYN
	// retries, about 127s on Linux); it must not be negative.
	DialTimeout time.Duration
	Limits      Limits
	// Interleave orders the events due at the same instant (interleave.go);
	// the zero value is the fixed order.
	Interleave Interleave
	// Observe, if set, is called after every recorded event (see
	// Observer); it must only read the world.
	Observe Observer
	// Epoch is the wall-clock instant at true time zero for the nodes and
	// clients (the instant their clocks count from, before offsets, drift
	// and jumps); the zero value is clock.Epoch. Histories record wall
	// clocks as durations since it, so it changes only what the nodes'
	// Redis sees (TIME, EXPIREAT, SET PXAT) and what Ctx.Wall returns:
	// package realclient sets the synctest bubble's epoch, so that a
	// library's absolute times and the nodes' agree.
	Epoch time.Time
	// HistoryBuf, if non-nil, is memory the run's history is appended to
	// (from length 0). A caller that runs many worlds and keeps no history
	// passes the previous run's history back to avoid reallocating it.
	HistoryBuf History
}

// names indexes the configured names for validation.
type names struct {
	nodes, clients, services, groups map[string]bool
}

func (n *names) node(s string) bool   { return n.nodes[s] }
func (n *names) client(s string) bool { return n.clients[s] }
func (n *names) endpoint(s string) bool {
	return n.nodes[s] || n.clients[s] || n.services[s] || s == SentinelName
}
func (n *names) any(s string) bool { return n.endpoint(s) || s == FaultActor }

// checkTargets checks the names a fault of target class t acts on.
func (n *names) checkTargets(t Targets, f Fault) error {
	switch {
	case t.Has(TargetClient | TargetNode):
		if !n.client(f.Target) && !n.node(f.Target) {
			return errors.Errorf("unknown client or node %q", f.Target)
		}
	case t.Has(TargetClient):
		if !n.client(f.Target) {
			return errors.Errorf("unknown client %q", f.Target)
		}
	case t.Has(TargetNode):
		if !n.node(f.Target) {
			return errors.Errorf("unknown node %q", f.Target)
		}
	case t.Has(TargetSides):
		for _, e := range slices.Concat(f.A, f.B) {
			if !n.endpoint(e) {
				return errors.Errorf("partition names unknown node or client %q", e)
			}
		}
	case t.Has(TargetLink):
		for _, e := range []string{f.From, f.To} {
			if e != "*" && !n.endpoint(e) {
				return errors.Errorf("unknown endpoint %q", e)
			}
		}
	}
	return nil
}

// NeverPromote is the replica priority of a node failover never promotes.
const NeverPromote = -1

// DefaultDialTimeout is Config.DialTimeout's default: go-redis's.
const DefaultDialTimeout = 5 * time.Second

// DefaultDownAfter is SentinelConfig.DownAfter's default, Sentinel's own
// (down-after-milliseconds 30000).
const DefaultDownAfter = 30 * time.Second

// SentinelName is the endpoint name of the sentinel.
const SentinelName = "sentinel"

func (c *Config) withDefaults() {
	// Defaults go into copies: the caller's slices are not written, so
	// one Config can be shared by concurrent runs.
	c.Nodes = slices.Clone(c.Nodes)
	if c.Limits.MaxEvents == 0 {
		c.Limits.MaxEvents = DefaultMaxEvents
	}
	if c.Limits.MaxTime == 0 {
		c.Limits.MaxTime = time.Hour
	}
	if c.Drain == 0 {
		c.Drain = 10 * time.Second
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.Sentinel.DownAfter == 0 {
		c.Sentinel.DownAfter = DefaultDownAfter
	}
	for i := range c.Nodes {
		if c.Nodes[i].Persistence == "" {
			c.Nodes[i].Persistence = PersistNone
		}
		if c.Nodes[i].Priority == 0 {
			c.Nodes[i].Priority = 100
		}
	}
}

// Validate checks the configuration and returns an error naming the first
// bad field. It applies defaults first.
func (c *Config) Validate() error {
	c.withDefaults()
	n := names{nodes: map[string]bool{}, clients: map[string]bool{}, services: map[string]bool{}, groups: map[string]bool{}}
	seen := map[string]string{}
	claim := func(kind, name string) error {
		if name == "" {
			return errors.Errorf("a %s has an empty name", kind)
		}
		if name == SentinelName || name == FaultActor || name == "net" {
			return errors.Errorf("%s name %q is reserved", kind, name)
		}
		if prev, ok := seen[name]; ok {
			return errors.Errorf("%s name %q is already used by a %s", kind, name, prev)
		}
		seen[name] = kind
		return nil
	}
	if _, err := ParseVersion(c.Server); err != nil {
		return err
	}
	if c.Limits.MaxEvents < 0 {
		return errors.Errorf("limits.max_events %d is negative", c.Limits.MaxEvents)
	}
	if c.Limits.MaxTime < 0 {
		return errors.Errorf("limits.max_time %v is negative", c.Limits.MaxTime)
	}
	if c.Drain < 0 {
		return errors.Errorf("drain %v is negative", c.Drain)
	}
	if err := c.Interleave.validate(); err != nil {
		return err
	}
	if c.Until < 0 {
		return errors.Errorf("until %v is negative", c.Until)
	}
	if c.Until > c.Limits.MaxTime {
		return errors.Errorf("until %v is beyond limits.max_time %v", c.Until, c.Limits.MaxTime)
	}
	if c.Sentinel.DownAfter < 0 || c.Sentinel.DiscoveryDelay < 0 {
		return errors.Errorf("sentinel.down_after and discovery_delay must not be negative")
	}
	for i, nc := range c.Nodes {
		if err := claim("node", nc.Name); err != nil {
			return err
		}
		n.nodes[nc.Name] = true
		if _, err := clock.New(nc.Clock); err != nil {
			return errors.Wrapf(err, "nodes[%d] (%s)", i, nc.Name)
		}
		if !slices.Contains(Persistences, nc.Persistence) {
			return errors.Errorf("nodes[%d] (%s): unknown persistence %q (want %s)", i, nc.Name, nc.Persistence, PersistenceNames())
		}
		switch {
		case nc.MaxMemory < 0:
			return errors.Errorf("nodes[%d] (%s): maxmemory %d is negative", i, nc.Name, nc.MaxMemory)
		case nc.Policy != "" && !slices.Contains(EvictionPolicies, nc.Policy):
			return errors.Errorf("nodes[%d] (%s): unknown maxmemory-policy %q (want %s)", i, nc.Name, nc.Policy, EvictionPolicyNames())
		case nc.Fill.Every < 0 || nc.Fill.Size < 0 || nc.Fill.TTL < 0 || nc.Fill.Start < 0:
			return errors.Errorf("nodes[%d] (%s): fill: every, size, ttl and start must not be negative", i, nc.Name)
		case nc.Fill.TTL > 0 && nc.Fill.TTL < time.Millisecond:
			return errors.Errorf("nodes[%d] (%s): fill ttl %v: at least 1ms (PX takes milliseconds)", i, nc.Name, nc.Fill.TTL)
		case nc.Fill.Every > 0 && nc.Fill.Every < time.Millisecond:
			return errors.Errorf("nodes[%d] (%s): fill every %v: at least 1ms", i, nc.Name, nc.Fill.Every)
		case nc.Fill.Size > MaxValueBytes:
			return errors.Errorf("nodes[%d] (%s): fill size %d: at most %d bytes (limits: max-value-bytes)", i, nc.Name, nc.Fill.Size, MaxValueBytes)
		}
		if nc.Priority < 0 && nc.Priority != NeverPromote {
			return errors.Errorf("nodes[%d] (%s): priority %d is negative (use NeverPromote, -1, for never)", i, nc.Name, nc.Priority)
		}
		switch {
		case nc.MinReplicasToWrite < 0:
			return errors.Errorf("nodes[%d] (%s): min-replicas-to-write %d is negative", i, nc.Name, nc.MinReplicasToWrite)
		case nc.MinReplicasMaxLag < 0:
			return errors.Errorf("nodes[%d] (%s): min-replicas-max-lag %v is negative", i, nc.Name, nc.MinReplicasMaxLag)
		case nc.MinReplicasToWrite > 0 && nc.MinReplicasMaxLag == 0:
			return errors.Errorf("nodes[%d] (%s): min-replicas-to-write %d needs a positive min-replicas-max-lag", i, nc.Name, nc.MinReplicasToWrite)
		}
	}
	for i, cc := range c.Clients {
		if err := claim("client", cc.Name); err != nil {
			return err
		}
		n.clients[cc.Name] = true
		if _, err := clock.New(cc.Clock); err != nil {
			return errors.Wrapf(err, "clients[%d] (%s)", i, cc.Name)
		}
		switch {
		case cc.External && cc.Main != nil:
			return errors.Errorf("clients[%d] (%s) is external and has a Main; an external process's program runs outside the world", i, cc.Name)
		case cc.External && (cc.Clock.Offset != 0 || cc.Clock.RatePPM != 0 || len(cc.Clock.Jumps) > 0):
			return errors.Errorf("clients[%d] (%s) is external and has a clock; its driver owns its clock", i, cc.Name)
		case !cc.External && cc.Main == nil:
			return errors.Errorf("clients[%d] (%s) has no Main", i, cc.Name)
		}
	}
	for i, sc := range c.Services {
		if err := claim("service", sc.Name); err != nil {
			return err
		}
		n.services[sc.Name] = true
		if sc.Handler == nil {
			return errors.Errorf("services[%d] (%s) has no handler", i, sc.Name)
		}
	}
	inGroup := map[string]string{}
	for i, g := range c.Groups {
		if err := claim("group", g.Name); err != nil {
			return err
		}
		n.groups[g.Name] = true
		for _, m := range append([]string{g.Primary}, g.Replicas...) {
			if !n.nodes[m] {
				return errors.Errorf("groups[%d] (%s) names unknown node %q", i, g.Name, m)
			}
			if prev, ok := inGroup[m]; ok {
				return errors.Errorf("node %q is in groups %s and %s", m, prev, g.Name)
			}
			inGroup[m] = g.Name
		}
	}
	if err := c.Cluster.validate(c); err != nil {
		return err
	}
	machines := 0
	for _, nc := range c.Nodes {
		if nc.Machine == nil {
			continue
		}
		machines++
		if g, ok := inGroup[nc.Name]; ok {
			return errors.Errorf("node %q runs a machine and cannot be in group %s", nc.Name, g)
		}
	}
	if len(c.Groups) == 0 && len(c.Nodes) > machines {
		return errors.New("nodes are configured but no group uses them")
	}
	if err := c.Network.Validate(); err != nil {
		return err
	}
	for i, l := range c.Network.Links {
		for _, e := range []string{l.From, l.To} {
			if e != "*" && !n.endpoint(e) {
				return errors.Errorf("network.links[%d] names unknown endpoint %q", i, e)
			}
		}
	}
	end := c.Limits.MaxTime
	if c.Until > 0 {
		end = c.Until
	}
	for i, f := range c.Faults {
		if err := f.validate(i, &n, end); err != nil {
			return err
		}
		if err := validateExternalFault(c.Clients, i, f); err != nil {
			return err
		}
		if err := validatePressure(c.Nodes, i, f); err != nil {
			return err
		}
	}
	return nil
}

// sortedKeys returns the keys of m in order; map order never reaches
// scheduling or output.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// DefaultMaxEvents is the event limit of a run that sets none (package
// model's MaxEvents, the most a spec may ask for).
const DefaultMaxEvents = 250_000
