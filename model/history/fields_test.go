package history

import (
	"testing"

	"locksim/sim"
)

// TestHoldFlagsRoundTrip: the flags an acquired event is written with are
// the flags its view reads back, in the stored form case files and goldens
// already hold ("shared wall").
func TestHoldFlagsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		f    HoldFlags
		note string
	}{
		{HoldFlags{}, ""},
		{HoldFlags{Shared: true}, "shared"},
		{HoldFlags{Wall: true}, "wall"},
		{HoldFlags{Shared: true, Wall: true}, "shared wall"},
	} {
		if got := tc.f.Note(); got != tc.note {
			t.Errorf("%+v.Note() = %q, want %q", tc.f, got, tc.note)
		}
		a := Acquired(sim.Event{Kind: KindAcquired, Note: tc.f.Note()})
		if got := (HoldFlags{Shared: a.Shared(), Wall: a.Wall()}); got != tc.f {
			t.Errorf("note %q reads back as %+v, want %+v", tc.note, got, tc.f)
		}
	}
}
