package report

import (
	"bytes"
	"encoding/json"
	"os/exec"

	"strings"
	"testing"
)

// TestCheckPage: the check page shows the tallies as badges, the minimal
// case's run report (timeline data, the grouped violations), and every
// non-empty field of its JSON sections, including fields the page was
// never told about; a check with no failure has no timeline.
func TestCheckPage(t *testing.T) {
	r := fencedPause(t)
	p := CheckPage{Title: "locksim check: design fenced", Headline: "design fenced: 50 runs, 8 broke a counted invariant (16.0%)",
		Tallies: []CheckTally{{Invariant: "mutual-exclusion", Verdict: "broken", Text: "broken in 7 runs (14.0%)"}},
		Sections: []CheckSection{{Title: "Summary", JSON: json.RawMessage(
			`{"design": "fenced", "broken_runs": 8, "failover_runs": 0, "coverage": {"faults_fired": {"pause": 31, "crash": 0}}, "minimal_schedule": ["pause A for 1.4225s after A acquired"]}`)}},
		Minimal: r, Meta: Meta{Design: "fenced", Seed: 1}, Notes: []string{"saved to x.json; replay with: locksim replay x.json"}}
	var b bytes.Buffer
	if err := CheckHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<p id="headline">design fenced: 50 runs, 8 broke a counted invariant (16.0%)</p>`,
		`<tr class="broken" data-invariant="mutual-exclusion"><th>mutual-exclusion</th><td>broken in 7 runs (14.0%)</td></tr>`,
		`<h2 class="case">The minimal failing case</h2>`,
		`<svg id="lanes"`,
		`class="group" data-group="1" data-violations="1 2 3"`,
		`<tr data-field="broken_runs"><th>broken runs</th><td>8</td></tr>`,
		`<tr data-field="coverage"><th>coverage</th><td><table class="kv"><tr data-field="faults_fired"><th>faults fired</th><td><table class="kv"><tr data-field="pause"><th>pause</th><td>31</td></tr></table>`,
		`<td>pause A for 1.4225s after A acquired</td>`,
		`<code>saved to x.json; replay with: locksim replay x.json</code>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the check page lacks %q", want)
		}
	}
	for _, not := range []string{`data-field="failover_runs"`, `data-field="crash"`} {
		if strings.Contains(page, not) {
			t.Errorf("the check page shows an empty field: %s", not)
		}
	}
	reportData(t, page)

	p.Minimal = nil
	b.Reset()
	if err := CheckHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Contains(page, `<svg id="lanes"`) || !strings.Contains(page, "there is no failing case to draw") {
		t.Error("a check with no failure draws a timeline or does not say why not")
	}
	if err := CheckHTML(&b, CheckPage{Sections: []CheckSection{{Title: "bad", JSON: json.RawMessage(`{"a":`)}}}); err == nil {
		t.Error("a broken JSON section was accepted")
	}
}

// TestCheckPageInChromium: the check page, with and without a failing
// case, runs its script cleanly; with one it draws the case's lanes.
func TestCheckPageInChromium(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not on PATH")
	}
	r := fencedPause(t)
	for _, tc := range []struct {
		name  string
		lanes bool
	}{{"failing", true}, {"passing", false}} {
		p := CheckPage{Title: "locksim check: design fenced", Headline: "h", Tallies: []CheckTally{{Invariant: "fencing", Verdict: "held", Text: "held"}},
			Sections: []CheckSection{{Title: "Summary", JSON: json.RawMessage(`{"runs": 3}`)}}}
		if tc.lanes {
			p.Minimal = r
		}
		var b bytes.Buffer
		if err := CheckHTML(&b, p); err != nil {
			t.Fatal(err)
		}
		g := layout(t, b.Bytes())
		if g.ScrollW > g.VW {
			t.Errorf("%s: the page scrolls sideways (%v px in %v)", tc.name, g.ScrollW, g.VW)
		}
		if !within(g, g.Verdicts) {
			t.Errorf("%s: the tallies are not in the opening view", tc.name)
		}
		if tc.lanes != (len(g.Chart) == 1) {
			t.Errorf("%s: %d timelines drawn", tc.name, len(g.Chart))
		}
		if tc.lanes && !within(g, g.Chart) {
			t.Errorf("%s: the minimal case's timeline %+v is not in the opening view", tc.name, g.Chart)
		}
	}

}
