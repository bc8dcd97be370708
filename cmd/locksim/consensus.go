package main

import "locksim/consensus"

// The consensus designs (etcd-lease, etcd-lease-unfenced) live outside
// package model; this hook puts them in the catalogue the commands read.
func init() { consensus.Register() }
