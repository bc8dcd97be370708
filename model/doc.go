// Package model is what runs in the simulated world on top of package sim:
// the lock designs, the framework that drives them, the fenced resource,
// and the spec of a run.
//
// Its files, by layer:
//
//   - design.go, traits.go: the Design contract a lock implements
//     (TryAcquire, Release; optionally Renewer, Extender, Waiter,
//     Reentrant, Abandoner), the Client a design talks to Redis through,
//     and the Traits a design declares once (masters, quorum, replicas,
//     renews, validity, fenced, reentrant, shared, fair, all masters,
//     keys, reads the wall clock) that every command asks instead of
//     comparing IDs.
//   - designs.go, scripts.go: the catalogue designs, as ordinary
//     sequential code, with their Lua scripts verbatim from their sources;
//     designs_redisson.go, scripts_redisson.go: Redisson's fair lock,
//     read-write lock and explicit lease, their scripts in
//     our own words after Redisson's; designs_multi.go: the lock of several
//     locks, on independent masters or on one instance (one failure
//     domain).
//   - designs_registry.go: RegisterDesign, for designs that live outside
//     this package (package consensus's etcd-lease, registered from
//     consensus's own init; model never imports it), and
//     Deployer, for a design that brings its own nodes instead of Redis
//     groups.
//   - lua.go: a user's design written as Redis Lua scripts.
//   - workload.go: the framework: a fresh lock value per acquisition,
//     bounded retries with exponential backoff and jitter, the
//     client-deadline option (on the monotonic clock, or the wall clock),
//     the watchdog, and the read-modify-write critical section against
//     the resource (a reader only reads). It records the protocol's
//     events (model/history.Kinds).
//   - resource.go: the fenced resource (strict, nonstrict, strict-reads,
//     off, and version: a row version compared and set instead of a token),
//     a service endpoint of the world.
//   - spec.go, options.go, run.go: a run's Spec (design, options, workload,
//     topology, network, faults), its defaults and limits, and Run and
//     Verdict, which build the world, run it and judge its history.
//   - resolved.go: Resolved, a spec resolved once (Spec.Resolve: defaults
//     applied, design built, traits, roster, the checkers' configuration
//     and bounds), which Run and Verdict build their world and judge
//     their history from without looking the design up again, and which
//     the code downstream of a spec's entry point is handed instead of
//     applying the defaults again (its Settings, ServerVersion, LockKeys
//     and CanCount; Spec.Resolution for a design that cannot be built).
//   - limits.go: the limits of a spec, the one table every entry point
//     shares; settings.go: ValidateSettings and the server release a
//     spec's nodes model; minreplicas.go: min-replicas-to-write and its
//     lag; options_words.go: the options as a scenario's key=value words.
//   - options_table.go: OptionTable, every design option as one row (its
//     word, flag, type, limit, default, doc line and field of Options):
//     the scenario option line, the CLI's option flags, the limits,
//     ValidateSettings and docs/options.md all read it.
//   - roster.go: a deployment's names (nodes, groups, clients), computed
//     once from a spec.
//   - luamap.go: what a Lua script takes in KEYS and ARGV (ArgMap).
//   - cluster.go: what a Redis Cluster topology (Topology.Cluster) refuses
//     to run: designs that lock on several masters or deploy their own
//     nodes, and a sentinel.
//
// Two subpackages read what a run left: model/history, the contract of a
// history and its one reading (critical sections, leases, writes), and
// model/invariant, the checkers.
//
// Invariant: a Design keeps no state outside its Lease and the fields set
// at its construction; one Design value serves every client of every run,
// also concurrently across runs.
//
// Example:
//
//	r, err := model.Run(model.Spec{Design: model.Fenced,
//		Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond,
//			After: &sim.Trigger{Actor: "A", Kind: history.KindWrite}}}}, 1)
//	// r.History is the run; r.Violations what the checkers found.
package model
