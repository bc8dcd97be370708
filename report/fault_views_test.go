package report

import (
	"slices"
	"testing"

	"locksim/sim"
)

// TestEveryFaultEventHasAView: every event kind a fault kind records
// (sim.FaultKindInfo.Events) has a view here, so reports describe it, list
// it among the key events and draw it. A kind added to sim but not here
// fails; TestEveryMarkInTheLegend then asks for its mark's glyph.
func TestEveryFaultEventHasAView(t *testing.T) {
	marks := timelineKinds(t, "mark")
	for k, v := range faultViews {
		if v.mark != "" && !slices.Contains(marks, v.mark) {
			t.Errorf("the view of %s draws mark %q, which timeline.go does not declare", k, v.mark)
		}
	}
	for _, info := range sim.FaultKindTable {
		if len(info.Events) == 0 {
			t.Errorf("fault kind %s records no event kind (sim.FaultKindInfo.Events)", info.Kind)
		}
		for _, k := range info.Events {
			v, ok := faultViews[k]
			if !ok {
				t.Errorf("fault kind %s records %s, which has no view in faultViews (report/fault_views.go)", info.Kind, k)
				continue
			}
			if got := v.describe(nil, sim.Event{Kind: k, Actor: "x"}); got == "" {
				t.Errorf("%s: the view describes it as nothing", k)
			}
		}
	}
	for k := range faultViews {
		if !sim.IsFaultEvent(k) {
			t.Errorf("faultViews has a view of %s, which no fault kind records", k)
		}
	}
}
