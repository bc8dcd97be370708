package report

import (
	"bytes"
	"os/exec"
	"testing"

	"locksim/engine"
)

// TestSummaryHTMLInChromium: the page of a real failing check (every
// invariant's tally, the coverage, the minimal case) opens, in a 1280x800
// window, on the tallies and the minimal case's whole timeline, without
// sideways scrolling.
func TestSummaryHTMLInChromium(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not on PATH")
	}
	c := checkBase()
	res, err := engine.Check(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Minimal == nil {
		t.Fatal("the check no longer fails")
	}
	var b bytes.Buffer
	if err := SummaryHTML(&b, c, res, "locksim-failure.json"); err != nil {
		t.Fatal(err)
	}
	g := layout(t, b.Bytes())
	if g.ScrollW > g.VW {
		t.Errorf("the page scrolls sideways (%v px in %v)", g.ScrollW, g.VW)
	}
	if !within(g, g.Verdicts) {
		t.Errorf("the tallies %+v are not in the opening view", g.Verdicts)
	}
	if len(g.Chart) != 1 || !within(g, g.Chart) {
		t.Errorf("the minimal case's timeline %+v is not whole in the opening view", g.Chart)
	}
}
