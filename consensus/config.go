package consensus

import (
	"time"

	"github.com/pkg/errors"

	"locksim/sim"
)

// Config sets the timing of a consensus cluster. The defaults are etcd's:
// a 100ms heartbeat and a 1000ms election timeout.
type Config struct {
	// Tick is one raft tick on a node's monotonic clock. Default 100ms;
	// at least 1ms.
	Tick time.Duration
	// ElectionTicks is the election timeout in ticks: a follower that
	// hears nothing from a leader for a draw in [ElectionTicks,
	// 2*ElectionTicks) ticks campaigns. Default 10; must be greater than
	// HeartbeatTicks.
	ElectionTicks int
	// HeartbeatTicks is how many ticks pass between a leader's
	// heartbeats. Default 1.
	HeartbeatTicks int
}

// WithDefaults fills zero fields with the defaults.
func (c Config) WithDefaults() Config {
	if c.Tick == 0 {
		c.Tick = 100 * time.Millisecond
	}
	if c.ElectionTicks == 0 {
		c.ElectionTicks = 10
	}
	if c.HeartbeatTicks == 0 {
		c.HeartbeatTicks = 1
	}
	return c
}

// Validate checks a config with its defaults applied.
func (c Config) Validate() error {
	switch {
	case c.Tick < time.Millisecond:
		return errors.Errorf("consensus tick %v is under 1ms", c.Tick)
	case c.HeartbeatTicks < 1:
		return errors.Errorf("consensus heartbeat ticks %d must be at least 1", c.HeartbeatTicks)
	case c.ElectionTicks <= c.HeartbeatTicks:
		return errors.Errorf("consensus election ticks %d must be greater than heartbeat ticks %d", c.ElectionTicks, c.HeartbeatTicks)
	case c.ElectionTicks > 1000:
		return errors.Errorf("consensus election ticks %d is over 1000", c.ElectionTicks)
	}
	return nil
}

// Cluster is one run's consensus cluster: a Node per name, each a
// sim.Machine to put on the sim node of that name. A Cluster holds the
// nodes' state (their disks too) and serves one run only.
type Cluster struct {
	cfg   Config
	names []string
	nodes []*Node

	// recorded is the highest log index whose key changes are in the
	// history; seen is, per member, the key values recorded (apply.go).
	recorded uint64
	seen     map[string]map[string]string
	// committed is the state machine as of the highest index applied
	// anywhere: what a member that has caught up holds (Node.Value).
	committed *kv
}

// MaxNodes bounds a cluster's size.
const MaxNodes = 9

// NewCluster builds a cluster of the named nodes (raft IDs 1, 2, ... in
// this order), every one a voter.
func NewCluster(names []string, cfg Config) (*Cluster, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(names) == 0 || len(names) > MaxNodes {
		return nil, errors.Errorf("a consensus cluster has 1 to %d nodes, not %d", MaxNodes, len(names))
	}
	cl := &Cluster{cfg: cfg, names: append([]string(nil), names...), seen: map[string]map[string]string{}, committed: newKV()}
	for _, name := range names {
		cl.seen[name] = map[string]string{}
	}
	voters := make([]uint64, len(names))
	for i := range names {
		voters[i] = uint64(i + 1)
	}
	for i, name := range names {
		cl.nodes = append(cl.nodes, &Node{cl: cl, name: name, id: uint64(i + 1), disk: newDisk(voters)})
	}
	return cl, nil
}

// Names returns the nodes' names in raft ID order.
func (cl *Cluster) Names() []string { return append([]string(nil), cl.names...) }

// Node returns the named node, nil if there is none.
func (cl *Cluster) Node(name string) *Node {
	for _, n := range cl.nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}

// NodeConfigs returns the sim nodes that run the cluster, each with the
// clock clocks gives it (nil: perfect clocks).
func (cl *Cluster) NodeConfigs(clocks func(name string) sim.NodeConfig) []sim.NodeConfig {
	out := make([]sim.NodeConfig, len(cl.nodes))
	for i, n := range cl.nodes {
		nc := sim.NodeConfig{Name: n.name}
		if clocks != nil {
			nc = clocks(n.name)
		}
		nc.Name, nc.Machine = n.name, n
		out[i] = nc
	}
	return out
}
