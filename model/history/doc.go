// Package history is the contract of a run's history and its one reading.
//
// A history (sim.History) is the list of events a run recorded. Every
// event kind has one meaning and one set of fields, documented in two
// tables: sim.Kinds for the simulator's own kinds (calls, replies, key
// changes on nodes, faults) and Kinds here for the lock protocol's
// (acquire-start, acquired, write, release, the resource's res-write...).
// Nothing else decodes sim.Event: the checkers (package model/invariant),
// the reports (package report) and the scenario tests read a history
// through an Index.
//
// An Index, built in one pass, holds:
//
//   - critical sections (Section, whose doc is the definition every
//     checker and report uses; CONTRIBUTING.md, "The critical section",
//     says it in words): each shared (a read hold) or exclusive, with its
//     grants (a key on a node, several keys of one node for the
//     one-instance "Redlock");
//   - acquisitions and acquisition attempts, with their outcomes, when
//     each attempt's request first reached a node and where a node granted
//     it (the order a fair lock's queue follows);
//   - each client's pauses (pause to resume or crash) and crashes;
//   - each key's changes on each node and each node's down intervals, with
//     what its restart brought back, and failovers;
//   - the resource's reads and writes, each write from the moment the
//     client prepared it to the moment the resource applied or rejected it.
//
// Leases: Holds, Alive and LossOf say whether a lease is still alive on a
// granting node's group and when it was lost. A node that is down holds
// what it will come back with, since nobody can take the lock on it
// meanwhile; after a failover the promoted node answers for the group.
//
// Invariant: the index only reads the history; a history saved as JSON
// and loaded again gives the same index.
package history
