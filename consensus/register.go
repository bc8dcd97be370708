package consensus

import (
	"slices"
	"sync"

	"locksim/model"
	"locksim/scenarios"
)

var registerOnce sync.Once

// Register adds the consensus designs to model's catalogue and to the
// designs scenario files may name. cmd/locksim
// and package locksim call it; package model never imports this one.
// Calling it again does nothing.
func Register() {
	registerOnce.Do(func() {
		model.RegisterDesign(EtcdLease, "etcd-style lease on a raft cluster (go.etcd.io/raft): put-if-absent under a lease, keep-alive, the revision fences every write", func() model.Design { return leaseDesign{fenced: true} })
		model.RegisterDesign(EtcdLeaseUnfenced, "etcd-lease without fencing: the lease alone guards the writes", func() model.Design { return leaseDesign{} })
		// Scenario files may name them (and `designs *` covers them) once
		// they are known to the parser, which reads this list lazily.
		for _, id := range []string{EtcdLease, EtcdLeaseUnfenced} {
			if !slices.Contains(scenarios.KnownDesigns, id) {
				scenarios.KnownDesigns = append(scenarios.KnownDesigns, id)
			}
		}
	})
}
