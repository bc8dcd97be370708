package consensus

import (
	"strconv"
	"time"

	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/model"
	"locksim/sim"
	"locksim/sim/resp"
)

// The consensus design IDs.
const (
	// EtcdLease is etcd's lease lock: put-if-absent of the lock key under
	// a lease, a keep-alive watchdog, the key's revision as the fencing
	// token the resource checks.
	EtcdLease = "etcd-lease"
	// EtcdLeaseUnfenced is the same lock whose writes carry no token: what
	// most users of an etcd mutex do.
	EtcdLeaseUnfenced = "etcd-lease-unfenced"
)

// leaseDesign is a lock on the consensus cluster (model.Design and
// model.Deployer). TryAcquire grants a lease of Options.TTL and puts the
// lock key under it if absent; the lease is trusted for TTL minus the
// margin from before the grant, on the client's monotonic clock, and a
// keep-alive every Options.RenewEvery moves that budget on. Release
// revokes the lease, which deletes the key.
type leaseDesign struct {
	fenced bool
	cfg    Config
}

func (d leaseDesign) Name() string {
	if d.fenced {
		return EtcdLease
	}
	return EtcdLeaseUnfenced
}

// Traits: three members by default (etcd's smallest fault-tolerant
// cluster); a key is lost when a majority of members no longer hold it
// (Quorum), so the stale-write checker reads the members' applied keys.
func (d leaseDesign) Traits() model.Traits {
	return model.Traits{Masters: 3, MinMasters: 1, Quorum: true, Renews: true, Validity: true, Fenced: d.fenced, OwnNodes: true}
}

// Deploy builds a fresh cluster for one run (model.Deployer).
func (d leaseDesign) Deploy(names []string, clocks map[string]clock.Config) ([]sim.NodeConfig, error) {
	cl, err := NewCluster(names, d.cfg)
	if err != nil {
		return nil, err
	}
	return cl.NodeConfigs(func(name string) sim.NodeConfig { return sim.NodeConfig{Clock: clocks[name]} }), nil
}

// LivenessBound is how long a free lock may stay out of reach after the
// last fault (model.LivenessBounder): a leader lost in that fault is
// replaced within two election timeouts (the longest draw), the new
// leader gives every lease a full TTL from its promotion, and the TTL is
// at least etcd's minimum; then twice that, and a third of the acquire
// wait, as for every design.
func (d leaseDesign) LivenessBound(o model.Options) time.Duration {
	c := d.cfg.WithDefaults()
	election := 2 * time.Duration(c.ElectionTicks) * c.Tick
	ttl := max(o.TTL, (&Cluster{cfg: c}).minTTL())
	return 2*(election+ttl) + o.AcquireWait/3
}

// call sends a command to the members in order until one answers; a
// timeout, a refusal or "no leader" moves on to the next. It returns the
// last error when none answered.
func call(c *model.Client, args ...string) (resp.Reply, error) {
	var last error
	for _, n := range c.Nodes() {
		r, err := c.Call(n, args...)
		switch {
		case err != nil:
			last = err
		case r.IsError() && r.Str == ErrNoLeader:
			last = errors.New(r.Str)
		default:
			return r, nil
		}
	}
	if last == nil {
		last = errors.New("the run has no consensus nodes")
	}
	return resp.Reply{}, last
}

func (d leaseDesign) TryAcquire(c *model.Client, value string) (model.Lease, bool, error) {
	o := c.Options()
	start := c.Now()
	g, err := call(c, opGrant, c.TTLms())
	if err != nil {
		return model.Lease{}, false, err
	}
	if g.IsError() || len(g.Elems) != 2 {
		return model.Lease{}, false, errors.Errorf("the consensus grant answered %s", g.String())
	}
	id, ttl := g.Elems[0].Int, time.Duration(g.Elems[1].Int)*time.Millisecond
	p, err := call(c, opPutNX, c.Key, value, strconv.FormatInt(id, 10))
	if err != nil {
		return model.Lease{}, false, err
	}
	if p.IsNil() {
		_, _ = call(c, opRevoke, strconv.FormatInt(id, 10)) // our lease has no key: give it back
		return model.Lease{}, false, nil
	}
	if p.IsError() || len(p.Elems) != 2 {
		return model.Lease{}, false, errors.Errorf("the consensus put answered %s", p.String())
	}
	l := model.Lease{Key: c.Key, Value: value, Nodes: c.Nodes(), Start: start,
		Validity: min(ttl, o.TTL) - o.Margin, ID: p.Elems[1].Int}
	if c.Now()-start >= l.Validity {
		// The lease was spent before the put came back (a pause, a slow
		// commit): give it back rather than hold a lease already over on
		// the client's clock, as redlock does with a validity <= 0.
		_, _ = call(c, opRevoke, strconv.FormatInt(l.ID, 10))
		return model.Lease{}, false, nil
	}
	if d.fenced {
		l.Token = p.Elems[0].Int
	}
	return l, true, nil
}

// Renew keeps the lease alive: false once the lease is gone.
func (d leaseDesign) Renew(c *model.Client, l *model.Lease) (bool, error) {
	r, err := call(c, opKeepAlive, strconv.FormatInt(l.ID, 10))
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Int && r.Int > 0, nil
}

// Release revokes the lease, deleting the key bound to it.
func (d leaseDesign) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := call(c, opRevoke, strconv.FormatInt(l.ID, 10))
	return err
}
