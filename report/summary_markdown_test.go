package report

import (
	"strings"
	"testing"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// markdownOf runs c and renders its summary as SummaryMarkdown does for
// `locksim check --format markdown --save locksim-failure.json`.
func markdownOf(t *testing.T, c engine.CheckConfig) (string, *engine.CheckResult) {
	t.Helper()
	res, err := engine.Check(c)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := SummaryMarkdown(&b, res, "locksim-failure.json"); err != nil {
		t.Fatal(err)
	}
	return b.String(), res
}

// The markdown summary of a failing, a holding and a stopped check, as
// golden files: one table, the minimal schedule as a list, the replay
// line; short enough for a pull request comment, with no timeline and no
// wall-clock time (the same check writes the same bytes, whatever the
// workers).
func TestSummaryMarkdownGolden(t *testing.T) {
	broken := checkBase()
	broken.Runs = 300
	broken.Seed = 1
	holds := engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads},
		Gen:  scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause, sim.FaultDelay}, Swarm: true},
		Runs: 200, Seed: 1, Invariants: []invariant.ID{invariant.LostUpdate}}}
	stops := checkBase()
	stops.Runs = 500
	stops.Base = model.Spec{Design: model.LuaDesignID, Lua: &model.LuaScripts{
		Acquire: "if tonumber(ARGV[1]:sub(-1), 36) % 3 == 0 then while true do end end return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
		Release: "return redis.call('DEL', KEYS[1])",
	}}
	stops.Gen.Kinds = []sim.FaultKind{}
	for _, tc := range []struct {
		name string
		c    engine.CheckConfig
	}{{"broken", broken}, {"holds", holds}, {"stops", stops}} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.Workers = 1
			md, _ := markdownOf(t, tc.c)
			golden(t, "summary-"+tc.name+".md", []byte(md))
			tc.c.Workers = 4
			if again, _ := markdownOf(t, tc.c); again != md {
				t.Errorf("the summary depends on the workers (or on the clock)")
			}
			if lines := strings.Count(md, "\n"); lines > 30 || len(md) > 2000 {
				t.Errorf("%d lines, %d bytes: too long for a pull request comment", lines, len(md))
			}
			if strings.Contains(md, "===") || strings.Contains(md, "true time") {
				t.Errorf("the summary draws a timeline:\n%s", md)
			}
			if tables := strings.Count(md, "|:--|:--|"); tables != 1 {
				t.Errorf("%d tables, want one", tables)
			}
		})
	}
}

// A Go design's case replays from Go only, and the summary says so; text
// that would break a table cell or a code span is escaped.
func TestSummaryMarkdownEdges(t *testing.T) {
	c := checkBase()
	c.Runs = 300
	_, res := markdownOf(t, c)
	d, err := model.LookupDesign(model.SetPxLua)
	if err != nil {
		t.Fatal(err)
	}
	res.Minimal.Spec.Custom = d
	res.FirstFail.Config = "a | b `c`\nd"
	var b strings.Builder
	SummaryMarkdown(&b, res, "testdata/locksim/TestMyLock.json")
	md := b.String()
	for _, want := range []string{
		"**Replay** from Go (a Go design does not replay from the command line): `c, _ := locksim.LoadCase(\"testdata/locksim/TestMyLock.json\"); c.Replay(yourDesign)`",
		"Configuration: `a \\| b 'c' d`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	b.Reset()
	res.Minimal = nil
	res.FirstFail = nil
	res.FirstError = &engine.RunOutcome{Index: 3, Seed: 4, Error: "script: line 1 | oops\nmore"}
	SummaryMarkdown(&b, res, "")
	if !strings.Contains(b.String(), "| stopped | run 3 (seed 4): script: line 1 \\| oops more |") {
		t.Errorf("the error row is not one escaped cell:\n%s", b.String())
	}
}

// checkBase is a small failing check: set-px-lua under swarm-drawn faults.
func checkBase() engine.CheckConfig {
	return engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: model.SetPxLua}, Gen: scenarios.Gen{Swarm: true}, Runs: 120, Seed: 7}}
}
