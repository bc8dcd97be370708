package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// countingDesign is a catalogue design whose traits count how often a
// run reads them.
type countingDesign struct {
	Design
	reads *int
}

func (d countingDesign) Traits() Traits { *d.reads++; return TraitsOf(d.Design) }

// TestARunResolvesItsSpecOnce: a run (Run, Verdict) resolves its spec in
// one place (Spec.Resolve): the design's traits are read twice (before
// the defaults, which they decide, and after), not once per question
// (WithDefaults, Config, the server release, the checkers' fencing,
// quorum, availability and liveness bounds: a catalogue design was
// looked up 8 times per run before Resolved, once now); and the
// resolved spec, checker configuration and world are those the spec's
// own methods give.
func TestARunResolvesItsSpecOnce(t *testing.T) {
	for _, id := range []string{SetPxLua, Redlock, Fenced, FairLock} {
		inner, err := LookupDesign(id)
		if err != nil {
			t.Fatal(err)
		}
		reads := 0
		s := Spec{Custom: countingDesign{inner, &reads}, Design: id}
		if _, err := Verdict(s, 1); err != nil {
			t.Fatal(err)
		}
		if reads != 2 {
			t.Errorf("%s: a run read the design's traits %d times, want 2 (one resolution)", id, reads)
		}
		reads = 0
		if _, err := Run(s, 1); err != nil {
			t.Fatal(err)
		}
		if reads != 2 {
			t.Errorf("%s: Run read the design's traits %d times, want 2", id, reads)
		}
		plain := Spec{Design: id}
		rs, err := plain.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		want := plain.WithDefaults()
		if diff := cmp.Diff(want, rs.Spec, cmpopts.IgnoreUnexported(Spec{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: Resolve's spec is not WithDefaults' (-want +got):\n%s", id, diff)
		}
		if diff := cmp.Diff(want.CheckConfig(), rs.Check, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: Resolve's checker configuration is not CheckConfig's (-want +got):\n%s", id, diff)
		}
		if diff := cmp.Diff(want.Traits(), rs.Traits); diff != "" {
			t.Errorf("%s: Resolve's traits are not Traits' (-want +got):\n%s", id, diff)
		}
	}
}

// TestResolveRefusesAnUnbuildableDesign: an unknown design or Lua
// without scripts is refused with the error Config gives.
func TestResolveRefusesAnUnbuildableDesign(t *testing.T) {
	for _, s := range []Spec{{Design: "no-such-design"}, {Design: LuaDesignID}} {
		_, want := s.WithDefaults().Config()
		if _, err := s.Resolve(); err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: Resolve says %v, Config %v", s.Design, err, want)
		}
	}
}
