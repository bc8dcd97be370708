package consensus

import (
	"sync"

	"locksim/model"
)

var registerOnce sync.Once

// Register adds the consensus designs to model's catalogue. cmd/locksim
// and package locksim call it; package model never imports this one.
// Calling it again does nothing.
func Register() {
	registerOnce.Do(func() {
		model.RegisterDesign(EtcdLease, "etcd-style lease on a raft cluster (go.etcd.io/raft): put-if-absent under a lease, keep-alive, the revision fences every write", func() model.Design { return leaseDesign{fenced: true} })
		model.RegisterDesign(EtcdLeaseUnfenced, "etcd-lease without fencing: the lease alone guards the writes", func() model.Design { return leaseDesign{} })
	})
}
