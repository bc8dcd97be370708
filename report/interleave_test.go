package report

import (
	"strconv"
	"strings"
	"testing"

	"locksim/engine"
	"locksim/model"
	"locksim/scenarios"
	"locksim/sim"
)

// TestInterleaveBoundInEveryFormat: a check under pct states its bound,
// with the runs' own choice points and threads, in text, JSON and
// markdown; the same check under the fixed order says nothing of it.
func TestInterleaveBoundInEveryFormat(t *testing.T) {
	for _, il := range []string{"pct:2/20", "random", ""} {
		c := engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: model.ReadWriteLock, Clients: []string{"A", "B"}, Workload: model.Workload{Cycles: 1}, Interleave: il},
			Gen: scenarios.Gen{Kinds: []sim.FaultKind{}, Swarm: true}, Runs: 40, Seed: 1}, Workers: 1}
		r, err := engine.Check(c)
		if err != nil {
			t.Fatal(err)
		}
		ic := r.Coverage.Interleave
		var text, md, js strings.Builder
		if err := SummaryText(&text, r, ""); err != nil {
			t.Fatal(err)
		}
		if err := SummaryMarkdown(&md, r, ""); err != nil {
			t.Fatal(err)
		}
		j := engine.NewJSONWriter(&js, c)
		if err := j.Finish(r, ""); err != nil {
			t.Fatal(err)
		}
		if il == "" {
			if ic.Active() || strings.Contains(text.String(), "interleave") || strings.Contains(js.String(), `"interleave"`) || strings.Contains(md.String(), "| interleave |") {
				t.Fatalf("the fixed order reports an interleaving:\n%s", text.String())
			}
			continue
		}
		if ic.Runs != 40 || ic.MaxChoices == 0 || ic.MaxLanes < 2 {
			t.Fatalf("%s: coverage %+v", il, ic)
		}
		seen := "n=" + strconv.Itoa(ic.MaxChoices) + " choice points"
		for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "json": js.String()} {
			if !strings.Contains(out, seen) || !strings.Contains(out, "k="+strconv.Itoa(ic.MaxLanes)+" competing threads") {
				t.Errorf("%s, %s: no bound with the runs' numbers (%s):\n%s", il, name, seen, out)
			}
		}
		if il == "pct:2/20" {
			want := "1/(k·H^(d-1)) = 1/" + strconv.Itoa(ic.MaxLanes*20) + " per run"
			if !strings.Contains(text.String(), want) || !strings.Contains(js.String(), `"pct_per_run_bound"`) {
				t.Errorf("pct: want %q in the text and a per-run bound in the JSON:\n%s\n%s", want, text.String(), js.String())
			}
		}
	}
}
