package model

import "github.com/pkg/errors"

// checkCluster refuses what a cluster topology (Topology.Cluster) cannot
// run: a design that locks on several masters (on a cluster its calls to
// m1..mN would all reach the one node serving the key's slot), a design
// that deploys its own nodes, and a sentinel (a cluster fails over by
// itself).
func (s Spec) checkCluster(d Design, t Traits) error {
	switch {
	case s.Topology.ClusterNodeTimeout < 0:
		return errors.Errorf("cluster node-timeout %v is negative", s.Topology.ClusterNodeTimeout)
	case s.Topology.Sentinel.Enabled:
		return errors.New("a cluster topology takes no sentinel: Redis Cluster fails over by itself")
	case s.lockMasters() > 1 && (t.Quorum || t.AllMasters || t.Masters > 1):
		return errors.Errorf("design %s locks on %d masters; on a cluster its calls would all reach the node serving the key's slot, so only designs that lock on one master run on a cluster", d.Name(), s.lockMasters())
	}
	if _, ok := d.(Deployer); ok {
		return errors.Errorf("design %s deploys its own nodes and cannot run on a cluster", d.Name())
	}
	return nil
}
