package locksim

import "locksim/consensus"

// The consensus designs (etcd-lease, etcd-lease-unfenced) live outside
// package model; this hook puts them in the catalogue that Check and the
// other entry points read.
func init() { consensus.Register() }
