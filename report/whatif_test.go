package report

import (
	"strings"
	"testing"
	"time"

	"locksim/model"
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
