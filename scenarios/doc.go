// Package scenarios holds locksim's named scenarios as data: small text
// files, one per catalogue scenario, embedded in the binary (All, Lookup),
// and the same format for a user's own files (Load, Parse). A scenario
// file describes one run except its design: the clients, the workload, the
// Redis layout, the network, clocks, and a fault schedule; Scenario.SpecFor
// turns it into a model.Spec for a design. The package also has fault
// schedule combinators (Schedule, Seq, Merge, Repeat, Shift, RandomTimes,
// OneOf) for property tests and sweeps.
//
// A scenario's `expect` lines record what CATALOGUE.md says breaks and
// survives. They are documentation: no code decides a verdict from them. A
// verdict comes from running the scenario and checking the invariants on
// its history.
//
// # File format
//
// The format is in format.txt, embedded as FormatHelp and printed by
// `locksim help scenarios`: a header of directives (name, title, design,
// topology, clients, ttl, work, fault ...), then `----` and the teaching
// text. catalogue/*.txt are examples of every directive.
//
// # Errors
//
// Parse returns a *ParseError "file:line: problem" for the first problem:
// an unknown directive (with a suggestion), a missing required line
// (reported where the header ends), a repeated directive, a bad duration or
// number, absolute fault times going backwards, an unknown client, node or
// design, a node named without a fixed layout, a trigger on an unknown
// event kind or on an actor that never records it. Parse never panics.
//
// # Usage
//
//	s, err := scenarios.Lookup("gc-pause")
//	if err != nil { ... }
//	for _, d := range scenarios.Designs() {
//		spec, err := s.SpecFor(d) // error: the scenario does not apply
//		...
//	}
//
//	// 3 pauses of A at random times in the first 5s, then a partition.
//	sched := scenarios.Seq(
//		scenarios.RandomTimes(sim.Fault{Kind: sim.FaultPause, Target: "A", Dur: time.Second}, 3, 5*time.Second),
//		scenarios.Fixed{{Kind: sim.FaultPartition, A: []string{"A"}, B: []string{"r1"}, Dur: 2 * time.Second}},
//	)
//	spec.Faults = scenarios.Generate(sched, seed)
package scenarios
