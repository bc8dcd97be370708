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
// A file is a header of directives, one per line, then optionally a line
// `----` and the teaching text (free prose, to the end of the file). A
// directive is a word and its arguments separated by spaces. `#` starts a
// comment when it begins a line or follows a space, except that `#` right
// before a digit is a trigger's event count (`#2`). Times and durations
// use Go syntax (`1.5s`, `250ms`, `2m`) and are at most 24h. Directives may
// come in any order; those marked (many) may repeat, the others appear at
// most once. name, title and clients are required.
//
//	name ID                 the scenario ID (letters, digits, . _ -)
//	title TEXT              one line for lists
//	design ID               the default design (a catalogue ID); default
//	                        set-px-lua if allowed, else the first design
//	                        `designs` names that fits
//	designs * | ID...       the designs the scenario applies to (default *)
//	topology masters=N replicas=N persistence=none|aof-everysec|aof-always
//	                        giving masters or replicas fixes the layout
//	                        (the other one defaults to 1 or 0) for every
//	                        design; without them each design takes model's
//	                        default (redlock 5 masters, wait-replica 1
//	                        replica, others 1 master)
//	sentinel [down-after=D] [discovery=D]   Sentinel failover on
//	priority NODE=N...      (many) replica priority, lower wins, N >= 1
//	clients NAME...         the client processes, in start order
//	ttl D                   the lease (default 1s)
//	work D                  time between read and write (default 50ms)
//	think D                 pause between cycles
//	cycles N                lock cycles per client (default 1)
//	duration D              or: cycle until D of client time has passed
//	reentry N               nested re-acquires (reentrant-hash)
//	stagger D               client i starts i*D later
//	latency MIN MAX         one-way latency, uniform (default 1ms 2ms)
//	loss Nppm               message loss, parts per million
//	fencing strict|nonstrict|off|strict-reads   the resource's rule (default: strict
//	                        for fenced, off for the others)
//	option KEY=VALUE...     (many) design options: deadline=true|false, extend=true|false (redlock extends from a watchdog),
//	                        margin, acquire-wait, retry-min, retry-max,
//	                        call-timeout, node-timeout, wait-timeout,
//	                        renew-every (durations), drift-factor (in
//	                        [0, 1)), quorum, wait-replicas (counts)
//	clock NAME [offset=±D] [rate=±Nppm]   (many) a node's or client's clock
//	until D                 end the run at this true time
//	limits [events=N] [time=D]   bound the run
//	fault FAULT             (many) see below
//	expect breaks|survives TEXT   (many) the catalogue's words
//
// Names: clients as listed; Redis groups m1..mN, each a primary and its
// replicas; nodes r1, r2, ... numbered group by group, primary first (with
// replicas=2, m1 is r1 r2 r3 and m2 is r4 r5 r6); the protected service
// `resource`; the `sentinel` (with a sentinel line); `*` for any endpoint
// in a link. A file may name nodes only if it fixes the layout.
//
// # Faults
//
//	fault KIND ARGS [FLAG] at T [for D]
//	fault KIND ARGS [FLAG] [for D] after ACTOR EVENT [#N] [+DELAY]
//
// `at T` is an absolute true time; absolute faults must be listed in time
// order. `after ACTOR EVENT #N +DELAY` starts the fault DELAY after the Nth
// (default first) event of that kind recorded by ACTOR (see EventKinds:
// model's acquired, read, write, release..., sim's call, reply, exec...); a
// fault right after (no delay) an actor's own event takes effect before
// that actor's next step. A client's events include those of its
// background tasks (the watchdog's calls and replies count as A's), and
// counts run over the whole run, so pick #N with the design's requests in
// mind (catalogue/stale-release.txt shows how). `for D` is how long the fault lasts; 0 or absent
// means forever where that makes sense. The kinds:
//
//	pause CLIENT for D           the whole process freezes (D required)
//	crash CLIENT [restart]       stops; with restart, starts afresh after D
//	node-crash NODE              stops; restarts after D with what its
//	                             persistence kept (never if no D)
//	partition A,B | C,D [oneway] cuts the two sides (oneway: A->B only)
//	delay FROM->TO +EXTRA        adds EXTRA to messages sent within D
//	drop FROM->TO count=N        loses the next N messages sent within D
//	clock-jump NAME by=±D        steps a node's or client's wall clock
//	clock-drift NAME rate=±Nppm  changes a clock's rate
//	evict NODE key=KEY           evicts a key with a TTL
//
// FormatFault writes this syntax and ParseFault reads it; ParseFault also
// reads sim.Fault.String's form.
//
// Example, catalogue/gc-pause.txt:
//
//	# gc-pause: a stop-the-world pause longer than the lease.
//	name gc-pause
//	title A GC pause between the lease check and the write outlives the lease
//	design set-px-lua
//	designs *
//	clients A B
//	ttl 1s
//	work 50ms
//	stagger 10ms
//	latency 1ms 2ms
//	fault pause A for 1.5s after A write
//	expect breaks mutual exclusion for every design; the resource for all unfenced ones
//	expect survives fenced: resource safe (A's token is stale), mutual exclusion still broken
//	----
//	A takes the lock with a 1s lease, reads the counter, works, ...
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
//	for _, d := range scenarios.KnownDesigns {
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
