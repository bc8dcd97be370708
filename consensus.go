package locksim

import "locksim/consensus"

// consensusRegistered puts the consensus designs (etcd-lease,
// etcd-lease-unfenced), which live outside package model, in the catalogue
// that Check and the other entry points read. It is a variable rather than
// an init function so that it runs before the package's other variables
// that read the catalogue (Go initializes variables before init functions).
var consensusRegistered = registerConsensus()

func registerConsensus() bool {
	consensus.Register()
	return true
}
