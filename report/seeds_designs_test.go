package report

import (
	"html"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/scenarios"
	"locksim/sim"
)

// TestWallClockBeliefAfterAStep: a lease budgeted on the wall clock, whose
// clock steps back after the acquire, is told with both moments: where the
// wall clock would have ended it, and where the step moved it.
func TestWallClockBeliefAfterAStep(t *testing.T) {
	r := runStory(t, lookup(t, "wall-clock-jump"), model.SetPxLua)
	var b strings.Builder
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "on its wall clock, until 0.978000s, but a later step of that clock makes it 2.978000s"; !strings.Contains(b.String(), want) {
		t.Errorf("the acquired event does not say %q:\n%s", want, b.String())
	}
}

// TestKeysOfOneNodeAreDrawn: a lock of three keys on one node draws each
// key's row (the one-node-restart story is that all three go at once).
func TestKeysOfOneNodeAreDrawn(t *testing.T) {
	r := runStory(t, lookup(t, "one-node-restart"), model.RedlockOneNode)
	var b strings.Builder
	if err := TimelineText(&b, r, 80); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"r1       lock1 ", "         lock2 ", "         lock3 "} {
		if !strings.Contains(b.String(), row) {
			t.Errorf("no row %q:\n%s", row, b.String())
		}
	}
	if strings.Contains(b.String(), "r1       lock  ") {
		t.Errorf("a row for the key lock, which no node held:\n%s", b.String())
	}
}

// TestVersionReadsAndWritesSayTheirVersion: under a version resource the
// reads say the version they returned and the accepted writes the version
// they carried, so version-check's story can be followed from the events.
func TestVersionReadsAndWritesSayTheirVersion(t *testing.T) {
	r := runStory(t, lookup(t, "version-check"), model.SetPxLua)
	var b strings.Builder
	if err := HTML(&b, r, Meta{}); err != nil { // the page describes every event
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	for _, want := range []string{"the resource served A a read (value 1, version 1)", "the resource accepted A's write of 2: version 1, the row's; now 2"} {
		if !strings.Contains(page, want) {
			t.Errorf("the events do not say %q", want)
		}
	}
}

// neverLock never gets the lock: nobody holds it, everyone waits.
type neverLock struct{}

func (neverLock) Name() string { return "never" }
func (neverLock) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	return model.Lease{}, false, nil
}
func (neverLock) Release(*model.Client, *model.Lease) error { return nil }

// TestLivenessWithoutAVerdictSaysSo: when the lock is wanted and free at
// the end of the run for less than the bound, liveness has no verdict; the
// report says so, never "held".
func TestLivenessWithoutAVerdictSaysSo(t *testing.T) {
	// A pause that ends at 0.21s: the gap after it ends with the run,
	// before the 3s bound (with no fault the same run breaks liveness).
	pause := sim.Fault{Kind: sim.FaultPause, Target: "A", At: 200 * time.Millisecond, Dur: 10 * time.Millisecond}
	r, err := model.Run(model.Spec{Custom: neverLock{}, Faults: []sim.Fault{pause}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "liveness          no verdict (the lock was wanted and free from") {
		t.Errorf("liveness is not 'no verdict':\n%s", b.String())
	}
}

// TestLivenessAfterTheRunHasNoVerdict: faults that end after the run
// leave nothing after the heal to judge.
func TestLivenessAfterTheRunHasNoVerdict(t *testing.T) {
	r := runStory(t, story(t, "until.txt", `name until
title the partition outlasts the run
design set-px-lua
topology masters=1 replicas=0
clients A B
ttl 1s
work 50ms
latency 1ms 2ms
until 2s
fault partition B | r1 at 0s for 10s
option acquire-wait=1s
`), model.SetPxLua)
	var b strings.Builder
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "liveness          no verdict (the faults were over only at 10.000000s, after the run ended") {
		t.Errorf("liveness is not 'no verdict':\n%s", b.String())
	}
}

// TestKeysOfAnUnacquiredLockAreDrawn: nobody acquires (a partition cuts
// the replies), yet r1 held A's lock1 for a second: its row is drawn.
func TestKeysOfAnUnacquiredLockAreDrawn(t *testing.T) {
	r := runStory(t, story(t, "rlon.txt", `name rlon
title one node's keys, nobody acquires
design redlock-one-node
topology masters=1 replicas=0
clients A B
ttl 1s
work 50ms
stagger 10ms
latency 1ms 2ms
fault partition A,B | r1 after r1 exec for 10s
`), model.RedlockOneNode)
	var b strings.Builder
	if err := TimelineText(&b, r, 80); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "r1  lock1  A") || strings.Contains(b.String(), "r1  lock ") {
		t.Errorf("r1's row is not lock1:\n%s", b.String())
	}
}

// lookup returns a catalogue scenario.
func lookup(t *testing.T, id string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// story reads a scenario file's text.
func story(t *testing.T, name, text string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runStory runs the scenario with design in it, seed 1.
func runStory(t *testing.T, sc *scenarios.Scenario, design string) *model.Result {
	t.Helper()
	spec, err := sc.SpecFor(design)
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Run(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLockValueFencing: antirez's check-and-set on the lock's random value
// (--fencing lock-value) refuses gc-pause's stale write, since B's read
// marked B's value, but not version-check's, where A reads (and marks its
// own value again) after B: the report says why from the reads.
func TestLockValueFencing(t *testing.T) {
	spec, err := lookup(t, "gc-pause").SpecFor(model.SetPxLua)
	if err != nil {
		t.Fatal(err)
	}
	spec.Fencing = model.FenceLockValue
	r, err := model.Run(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(invariantViolations(r, "stale-write")); n != 0 {
		t.Errorf("gc-pause under lock-value: %d stale writes, want 0 (B's read marked B)", n)
	}
	spec, err = lookup(t, "version-check").SpecFor(model.SetPxLua)
	if err != nil {
		t.Fatal(err)
	}
	spec.Fencing = model.FenceLockValue
	r, err = model.Run(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(invariantViolations(r, "stale-write")); n != 1 {
		t.Errorf("version-check under lock-value: %d stale writes, want 1 (A's late read marks A again)", n)
	}
	var b strings.Builder
	if err := Text(&b, r, TextOptions{Wrap: 1000}); err != nil {
		t.Fatal(err)
	}
	if want := "because A's own read at 1.304131s marked its lock value again, after B's read at 1.060529s had marked B's"; !strings.Contains(b.String(), want) {
		t.Errorf("the report does not say %q:\n%s", want, b.String())
	}
}

func invariantViolations(r *model.Result, id string) []int {
	var out []int
	for i, v := range r.Violations {
		if string(v.Invariant) == id {
			out = append(out, i)
		}
	}
	return out
}
