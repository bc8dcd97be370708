package consensus

import (
	"sync"

	"locksim/model"
)

var registerOnce sync.Once

// init registers the consensus designs where they belong, once, in the
// package that defines them: a program that links package consensus (the
// CLI, package locksim, a test that imports it) has etcd-lease and
// etcd-lease-unfenced in model's catalogue before any of its own
// variables are set, and no other package calls a hook for it. Package
// model never imports this one; the scenario parser reads model's
// catalogue (scenarios.Designs), so scenario files may name them too.
func init() { Register() }

// Register adds the consensus designs to model's catalogue
// (model.RegisterDesign). The package's init has done it already; calling
// it again does nothing.
func Register() {
	registerOnce.Do(func() {
		model.RegisterDesign(EtcdLease, "etcd-style lease on a raft cluster (go.etcd.io/raft): put-if-absent under a lease, keep-alive, the revision fences every write", func() model.Design { return leaseDesign{fenced: true} })
		model.RegisterDesign(EtcdLeaseUnfenced, "etcd-lease without fencing: the lease alone guards the writes", func() model.Design { return leaseDesign{} })
	})
}
