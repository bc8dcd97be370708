package logcheck

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
)

// An incident log from a catalogue failure (gc-pause, exported) yields,
// by a search over the design's random fault schedules, a run whose own
// log has a violation of the same shape; saved as a case, it replays and
// breaks the same invariant.
func TestReproduceCatalogueIncident(t *testing.T) {
	sc, err := scenarios.Lookup("gc-pause")
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := sc.SpecFor(sc.Design)
	r, _ := model.Run(sp, 1)
	var b bytes.Buffer
	Export(&b, r.History)
	res, evs, err := ReadIncident([]Input{{Name: "incident.jsonl", R: &b}}, Options{})
	if err != nil || len(res.Violations) == 0 {
		t.Fatalf("%v %v", err, res.Violations)
	}
	v := res.Violations[0]
	cfg := engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: sc.Design}, Gen: scenarios.Gen{Kinds: scenarios.DefaultKinds}, Seed: 1}}
	rep, err := Reproduce(evs, v, cfg, 5000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", rep.Text())
	if rep.Distance != 0 {
		t.Fatalf("no reproduction: %s", rep.Text())
	}
	path := filepath.Join(t.TempDir(), "case.json")
	if err := engine.NewCase(rep.Result).Save(path); err != nil {
		t.Fatal(err)
	}
	c, err := engine.LoadCase(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Replay(nil)
	if err != nil || !slices.ContainsFunc(again.Violations, func(x invariant.Violation) bool { return x.Invariant == v.Invariant }) {
		t.Fatalf("replay: %v %v", err, again.Violations)
	}
	// A shape no run has: the closest is reported with its distance.
	long := append(slices.Clone(rep.Target), "A released", "B lost", "A granted")
	if d := Distance(rep.Target, long); d != 3 {
		t.Errorf("distance %d, want 3", d)
	}
}
