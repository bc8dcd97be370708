package scenarios

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"locksim/internal/goldenfile"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// goldenSeed is the seed of every golden run.
const goldenSeed = 1

// storyKinds are the events a timeline golden keeps: what a reader of the
// catalogue's timelines looks for, without the request/reply traffic.
var storyKinds = []sim.Kind{
	history.KindAcquired, history.KindAcquireFailed, history.KindLeaseLost, history.KindRead,
	history.KindWrite, history.KindRelease, history.KindWatchdogStop, history.KindResWrite,
	sim.KindPause, sim.KindResume, sim.KindCrash, sim.KindRestart, sim.KindNodeCrash,
	sim.KindNodeUp, sim.KindPartition, sim.KindHeal, sim.KindNetDelay, sim.KindNetDrop,
	sim.KindClockJump, sim.KindClockDrift, sim.KindExpire, sim.KindPromote, sim.KindDemote,
	sim.KindDiscover, sim.KindEvict,
}

// story renders a run as its story events and its violations.
func story(s *Scenario, design string, r *model.Result) string {
	var b strings.Builder
	b.WriteString("# " + s.Name + " with " + design + ", seed 1: story events only.\n")
	b.WriteString("# Regenerate: go test ./scenarios -run TestTimelines -rewrite (and review the diff).\n")
	for _, e := range r.History {
		if e.Kind == sim.KindEvict && strings.HasPrefix(e.Key, sim.FillKeyPrefix) {
			continue // the filler's own keys making room
		}
		if slices.Contains(storyKinds, e.Kind) {
			b.WriteString(e.Line() + "\n")
		}
	}
	if r.Err != nil {
		b.WriteString("run error: " + r.Err.Error() + "\n")
	}
	// The critical sections as the checkers judge them (history.Index),
	// which the report's timeline draws.
	b.WriteString("sections:\n")
	for _, sec := range history.New(r.History).Sections {
		end := string(sec.End)
		if end == "" {
			end = "history ended"
		}
		b.WriteString("  " + sec.Client + " " + sim.FormatTime(sec.From) + " to " + sim.FormatTime(sec.To) + " (" + end + ")\n")
	}
	b.WriteString("violations:\n")
	for _, v := range r.Violations {
		b.WriteString("  " + string(v.Invariant) + ": " + v.Explanation + "\n")
	}
	return b.String()
}

// golden compares got with testdata/name, or rewrites it with -rewrite
// (package goldenfile; make golden regenerates every golden file).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name, got)
}

// TestTimelines runs every catalogue scenario with its default design and
// compares the story with testdata/timelines/<id>.txt.
func TestTimelines(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			sp, err := s.SpecFor(s.Design)
			if err != nil {
				t.Fatal(err)
			}
			r, err := model.Run(sp, goldenSeed)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("timelines", s.Name+".txt"), story(s, s.Design, r))
		})
	}
}

// TestVerdicts runs every scenario with every design and compares what
// broke with testdata/verdicts.txt. It records what the simulation finds;
// the `expect` lines beside it are what the catalogue says.
func TestVerdicts(t *testing.T) {
	var b strings.Builder
	b.WriteString("# What breaks, per scenario and design, seed 1 (invariant IDs; - means nothing broke).\n")
	b.WriteString("# Regenerate: go test ./scenarios -run TestVerdicts -rewrite (and review the diff).\n")
	for _, s := range All() {
		b.WriteString("\n" + s.Name + "\n")
		for _, e := range s.Expect {
			b.WriteString("  # catalogue " + e.Kind + ": " + e.Text + "\n")
		}
		for _, d := range Designs() {
			sp, err := s.SpecFor(d)
			if err != nil {
				b.WriteString("  " + pad(d) + " n/a\n")
				continue
			}
			r, err := model.Run(sp, goldenSeed)
			if err != nil {
				t.Fatalf("%s with %s: %v", s.Name, d, err)
			}
			broken := strings.ReplaceAll(invariant.Names(invariant.Broken(r.Violations)), ",", " ")
			if broken == "" {
				broken = "-"
			}
			if r.Err != nil {
				broken += " (run error: " + r.Err.Error() + ")"
			}
			b.WriteString("  " + pad(d) + " " + broken + "\n")
		}
	}
	golden(t, "verdicts.txt", b.String())
}

func pad(s string) string { return s + strings.Repeat(" ", max(0, 15-len(s))) }

// TestDeterministic: every scenario gives a byte-identical history twice.
func TestDeterministic(t *testing.T) {
	for _, s := range All() {
		sp, err := s.SpecFor(s.Design)
		if err != nil {
			t.Fatal(err)
		}
		a, err1 := model.Run(sp, 7)
		b, err2 := model.Run(sp, 7)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", s.Name, err1, err2)
		}
		if a.History.Hash() != b.History.Hash() {
			t.Errorf("%s: two runs with seed 7 differ", s.Name)
		}
	}
}
