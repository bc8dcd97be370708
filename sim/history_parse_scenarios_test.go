package sim_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/model"
	"locksim/scenarios"
	"locksim/sim"
)

// Every catalogue scenario with every design it applies to reads back
// from its text: ParseHistory(Text)
// gives the same text, and each event parses from its line to the same
// fields (up to the microsecond, which Line keeps).
func TestParseHistoryRoundTripsScenarios(t *testing.T) {
	events := 0
	for _, s := range scenarios.All() {
		for _, design := range scenarios.Designs() {
			sp, err := s.SpecFor(design)
			if err != nil {
				continue // the scenario does not apply to the design
			}
			r, err := model.Run(sp, 1)
			if err != nil {
				t.Fatalf("%s with %s: %v", s.Name, design, err)
			}
			text := r.History.Text()
			back, err := sim.ParseHistory(text)
			if err != nil {
				t.Fatalf("%s with %s: %v", s.Name, design, err)
			}
			if diff := cmp.Diff(text, back.Text()); diff != "" {
				t.Fatalf("%s with %s: Text -> ParseHistory -> Text (-want +got):\n%s", s.Name, design, diff)
			}
			for i, e := range r.History {
				p := back[i]
				if p.Seq != i || p.Actor != e.Actor || p.Kind != e.Kind || p.Peer != e.Peer || p.Reply != e.Reply ||
					p.Key != e.Key || p.Value != e.Value || p.Token != e.Token || p.N != e.N || p.Note != e.Note ||
					(p.Task != e.Task && !(p.Task == "" && e.Task == "main")) || (len(p.Args) != len(e.Args)) {
					t.Fatalf("%s with %s: event %d\n%s\nparsed as %+v\nfrom      %+v", s.Name, design, i, e.Line(), p, e)
				}
			}
			events += len(r.History)
		}
	}
	t.Logf("%d events read back", events)
}
