package scenarios_test

import (
	"fmt"
	"time"

	"locksim/scenarios"
	"locksim/sim"
)

func ExampleParse() {
	s, err := scenarios.Parse("mine.txt", []byte(`
name mine
title A pauses right after acquiring
clients A B
ttl 1s
fault pause A for 1.5s after A acquired   # the first acquired event of A
----
A freezes holding the lock; B takes it when the key expires.
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := s.SpecFor("fenced")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(spec.Design, spec.Clients, spec.Options.TTL)
	fmt.Println(scenarios.FormatFault(spec.Faults[0]))
	// Output:
	// fenced [A B] 1s
	// pause A for 1.5s after A acquired
}

func ExampleParse_error() {
	_, err := scenarios.Parse("mine.txt", []byte("name mine\ntitle t\nclients A\nfaul pause A for 1s at 0s\n"))
	fmt.Println(err)
	// Output:
	// mine.txt:4: unknown directive "faul" (did you mean "fault"?)
}

func ExampleScenario_Applies() {
	s, _ := scenarios.Lookup("stale-release")
	ok, why := s.Applies("redlock")
	fmt.Println(ok, why)
	// Output:
	// false scenario stale-release applies to designs setnx-expire, set-px-getdel, set-px-lua, watchdog, reentrant-hash, fenced only; not redlock
}

func ExampleSeq() {
	pause := sim.Fault{Kind: sim.FaultPause, Target: "A", At: 100 * time.Millisecond, Dur: 200 * time.Millisecond}
	crash := sim.Fault{Kind: sim.FaultNodeCrash, Target: "r1", Dur: time.Second}
	// Two pauses a second apart, then the node crash once they are over.
	s := scenarios.Seq(scenarios.Repeat(2, scenarios.Fixed{pause}, time.Second), scenarios.Fixed{crash})
	for _, f := range scenarios.Generate(s, 1) {
		fmt.Println(scenarios.FormatFault(f))
	}
	// Output:
	// pause A at 100ms for 200ms
	// pause A at 1.1s for 200ms
	// node-crash r1 at 1.3s for 1s
}
