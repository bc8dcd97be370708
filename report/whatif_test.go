package report

import (
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/sim"
)

// TestWhatIfLongerTTLSaysWhyItHeld: gc-pause with --ttl 3s holds because
// A's key outlived its 1.5s pause (A's own release deleted it), and the
// header names the acquire wait that follows the TTL.
func TestWhatIfLongerTTLSaysWhyItHeld(t *testing.T) {
	sc := lookup(t, "gc-pause")
	spec, err := sc.SpecFor(sc.Design)
	if err != nil {
		t.Fatal(err)
	}
	spec.Options.TTL = 3 * time.Second
	r, err := model.Run(spec, 1)
	if err != nil || r.Err != nil || len(r.Violations) > 0 {
		t.Fatalf("run: %v %v, %d violations", err, r.Err, len(r.Violations))
	}
	var tx strings.Builder
	if err := Text(&tx, r, TextOptions{Meta: Meta{Teaching: sc.Text, WhatIf: []string{"--ttl 3s"}}}); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(tx.String()), " ")
	for _, want := range []string{
		"what if --ttl 3s (the acquire wait, 3 × the TTL by default, follows it: 9s)",
		"A's key on r1 never expired while A held the lock, though A was paused 1.5s of that hold: A's own release deleted it at 1.560721s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, tx.String())
		}
	}
}

// TestWhatIfPersistenceSaysWhyItHeld: redsync-186 with --persistence
// aof-always holds because r3 came back from its crash with A's key; why
// it held names that restart (it said only that B was not granted), and
// the run as written, whose r3 restarts empty, breaks.
func TestWhatIfPersistenceSaysWhyItHeld(t *testing.T) {
	sc := lookup(t, "redsync-186")
	spec, err := sc.SpecFor(sc.Design)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := model.Run(spec, 1); err != nil || r.Err != nil || len(r.Violations) == 0 {
		t.Fatalf("the scenario as written: %v %v, %d violations; want it broken", err, r.Err, len(r.Violations))
	}
	spec.Topology.Persistence = sim.PersistAlways
	r, err := model.Run(spec, 1)
	if err != nil || r.Err != nil || len(r.Violations) > 0 {
		t.Fatalf("run: %v %v, %d violations", err, r.Err, len(r.Violations))
	}
	var tx strings.Builder
	if err := Text(&tx, r, TextOptions{Meta: Meta{Teaching: sc.Text, WhatIf: []string{"--persistence aof-always"}}}); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(tx.String()), " ")
	want := "r3 crashed at 1.110054s while A held the lock and restarted at 1.120054s with A's key (persistence aof-always): the grant there outlived the crash, so r3 could not be taken from under A"
	if !strings.Contains(out, want) {
		t.Errorf("the report lacks %q:\n%s", want, tx.String())
	}
}

// TestTokenRegressionFixIsHonest: token-regression's text says
// --min-replicas-to-write 1 keeps token-unique only by stopping B: check
// the run says so (token-unique held, B granted nothing, A's write stale).
func TestTokenRegressionFixIsHonest(t *testing.T) {
	sc := lookup(t, "token-regression")
	spec, err := sc.SpecFor(sc.Design)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := model.Run(spec, 1)
	if err != nil || plain.Err != nil {
		t.Fatal(err, plain.Err)
	}
	spec.Topology.MinReplicasToWrite = 1
	r, err := model.Run(spec, 1)
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	broke := func(r *model.Result, id string) bool {
		for _, v := range r.Violations {
			if string(v.Invariant) == id {
				return true
			}
		}
		return false
	}
	if !broke(plain, "token-unique") || broke(r, "token-unique") || !broke(r, "stale-write") {
		t.Errorf("token-unique broken %v without, %v with min-replicas-to-write; stale-write with it %v", broke(plain, "token-unique"), broke(r, "token-unique"), broke(r, "stale-write"))
	}
	for _, e := range r.History {
		if e.Kind == "acquired" && e.Actor == "B" {
			t.Errorf("B acquired at %v: the text says the promoted r2 refuses every later acquire", e.At)
		}
	}
	if !strings.Contains(sc.Text, "only by\nstopping B") && !strings.Contains(strings.Join(strings.Fields(sc.Text), " "), "only by stopping B") {
		t.Errorf("the text no longer says what min-replicas-to-write does here")
	}
}

// TestStrictReadsNamesTheRead: under strict-reads, what still held names
// B's read as what raised the bar against A's stale write.
func TestStrictReadsNamesTheRead(t *testing.T) {
	sc := lookup(t, "clock-jump")
	spec, err := sc.SpecFor(model.Fenced)
	if err != nil {
		t.Fatal(err)
	}
	spec.Fencing = model.FenceStrictReads
	r, err := model.Run(spec, 1)
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	tl := build(r)
	var all []string
	for _, it := range tl.stillHeld(r) {
		all = append(all, it.Text)
	}
	if !strings.Contains(strings.Join(all, "\n"), "B's read with token 2 at 0.015066s had raised the bar") {
		t.Errorf("what still held does not name B's read:\n%s", strings.Join(all, "\n"))
	}
}

// TestStaleReleaseNamesTheCost: in stale-release with set-px-lua A's
// release arrives late; its key outlives the release, and why it held
// says what that cost (no holder from the release to the next grant).
func TestStaleReleaseNamesTheCost(t *testing.T) {
	sc := lookup(t, "stale-release")
	spec, err := sc.SpecFor(model.SetPxLua)
	if err != nil {
		t.Fatal(err)
	}
	r, err := model.Run(spec, 1)
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	var all []string
	for _, it := range build(r).whyHeld(r) {
		all = append(all, it.Text)
	}
	want := "the cost: from A's release at 0.509667s the lock had no holder until 2.035433s: A's key on r1 lived on until it expired at 2.001109s and kept B and C waiting"
	if !strings.Contains(strings.Join(all, "\n"), want) {
		t.Errorf("why it held lacks %q:\n%s", want, strings.Join(all, "\n"))
	}
}
