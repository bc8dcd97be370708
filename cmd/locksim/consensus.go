package main

// The consensus designs (etcd-lease, etcd-lease-unfenced) live outside
// package model; package consensus registers them in the catalogue the
// commands read from its own init, which linking it runs.
import _ "locksim/consensus"
