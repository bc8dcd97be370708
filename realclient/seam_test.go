package realclient

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"locksim"
	"locksim/harness"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// modelLogTB is a locksim.TB that keeps a model check's log.
type modelLogTB struct {
	testing.TB
	logs   []string
	failed bool
}

func (l *modelLogTB) Helper() {}
func (l *modelLogTB) Logf(format string, args ...any) {
	l.logs = append(l.logs, strings.TrimSpace(fmt.Sprintf(format, args...)))
}
func (l *modelLogTB) Fatalf(format string, args ...any) {
	l.failed = true
	l.Logf(format, args...)
}
func (l *modelLogTB) Name() string { return "TestModelSummary" }

// heldKeys is a held log's structure (harness.HeldText): each line's kind,
// without the numbers, the names or the reasons that differ between two
// checks. An invariant's line is its name; the notes a real client adds
// (linked, note) are returned apart.
func heldKeys(block string) (keys, notes []string) {
	digits := regexp.MustCompile(`[0-9]+`)
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		first, _, _ := strings.Cut(line, " ")
		switch {
		case slices.Contains(invariant.All, invariant.ID(first)):
			keys = append(keys, "invariant "+first)
		case strings.HasPrefix(line, "linked: "), strings.HasPrefix(line, "note: "):
			notes = append(notes, first)
		case strings.Contains(line, " held in "):
			_, rest, _ := strings.Cut(line, " held in ")
			keys = append(keys, "held in "+digits.ReplaceAllString(rest, "N"))
		case strings.HasPrefix(line, "design "):
			_, rest, _ := strings.Cut(line, ": ")
			keys = append(keys, "design: "+digits.ReplaceAllString(rest, "N"))
		default:
			keys = append(keys, digits.ReplaceAllString(line, "N"))
		}
	}
	return keys, notes
}

// heldBlock is the held log in a test's output: from the line with
// "<prefix>: <who> held in" to the next line of go test's own.
func heldBlock(out, start string) string {
	i := strings.Index(out, start)
	if i < 0 {
		return ""
	}
	var lines []string
	for j, line := range strings.Split(out[i:], "\n") {
		t := strings.TrimSpace(line)
		if j > 0 && (strings.HasPrefix(t, "---") || strings.HasPrefix(t, "===") || t == "PASS" || strings.Contains(t, ".go:")) {
			break
		}
		lines = append(lines, t)
	}
	return strings.Join(lines, "\n")
}

// A real client's held check says the same things in the same words as a
// model check: the same lines (what ran, each invariant's verdict, what
// the faults did), plus the library modules it linked.
//
// The test starts itself as a process of its own; there
// (REALCLIENT_SUMMARY set) it is the real client's check that the rest of
// the test reads.
func TestHeldSummarySharesTheModelsLines(t *testing.T) {
	opts := []Option{WithName("twin"), WithRuns(3), WithFaults(), WithClients("A", "B")}
	if os.Getenv("REALCLIENT_SUMMARY") != "" {
		Check(t, newTwin(twinBuilds["correct"]), append(opts, WithCaseDir(t.TempDir()))...)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHeldSummarySharesTheModelsLines$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "REALCLIENT_SUMMARY=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the real client's check: %v\n%s", err, out)
	}
	real := heldBlock(string(out), "realclient: twin held in")
	m := &modelLogTB{TB: t}
	locksim.Check(m, "set-px-lua", locksim.WithRuns(3), locksim.WithFaults(), locksim.WithClients("A", "B"), locksim.WithCaseDir(t.TempDir()))
	if m.failed || len(m.logs) == 0 {
		t.Fatalf("the model check did not hold:\n%s", strings.Join(m.logs, "\n"))
	}
	model := m.logs[len(m.logs)-1]
	realKeys, notes := heldKeys(real)
	modelKeys, modelNotes := heldKeys(strings.TrimPrefix(model, "locksim: "))
	if len(realKeys) < 2+len(invariant.All) || !slices.Equal(realKeys, modelKeys) {
		t.Errorf("the held logs differ in structure:\nreal client: %q\nmodel:       %q\n--- real client's log:\n%s\n--- model's:\n%s", realKeys, modelKeys, real, model)
	}
	if !slices.Contains(notes, "linked:") || len(modelNotes) != 0 {
		t.Errorf("want the linked modules in the real client's held log only: real %q, model %q\n%s", notes, modelNotes, real)
	}
}

// Exhaustive mode refuses the options that shape random runs only, as
// locksim's does, in the same words, before any run.
func TestExhaustiveRefusesRandomOnlyOptions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		real   Option
		model  locksim.Option
		shards bool
	}{
		{"WithRuns", WithRuns(5), locksim.WithRuns(5), false},
		{"WithBudget", WithBudget(time.Second), locksim.WithBudget(time.Second), false},
		{"WithPauseAt", WithPauseAt(scenarios.PlaceAcquire), locksim.WithPauseAt(scenarios.PlaceAcquire), false},
		{"WithShard", WithShard(0, 2), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Exhaustive(t, newTwin(twinBuilds["correct"]), WithName("twin"), WithExhaustive(1), WithFaults(sim.FaultPause), tc.real)
			want := tc.name + " applies to random runs, not to exhaustive mode"
			if err == nil || err.Error() != want {
				t.Errorf("realclient: got %v, want %q", err, want)
			}
			if tc.shards {
				return // locksim.Check has no WithShard (its shards are the CLI's)
			}
			_, merr := locksim.Danger("set-px-lua", locksim.WithExhaustive(1), tc.model)
			if merr == nil || err == nil || merr.Error() != err.Error() {
				t.Errorf("locksim says %v, realclient %v: want the same words", merr, err)
			}
		})
	}
}

// A real client's check stops between runs when its context is done, and
// says it was interrupted (no verdict), as a model check does; progress
// sees each run.
func TestCheckStopsOnItsContext(t *testing.T) {
	if os.Getenv("REALCLIENT_STOP") != "" {
		ctx, cancel := context.WithCancel(context.Background())
		var seen []int
		opts := []Option{WithName("twin"), WithFaults(), WithClients("A", "B"), WithCaseDir(t.TempDir()), WithContext(ctx),
			WithProgress(func(done, planned int) {
				seen = append(seen, done)
				t.Logf("progress %d of %d", done, planned)
				if done == 2 {
					cancel()
				}
			})}
		if os.Getenv("REALCLIENT_STOP") == "seeded" {
			opts = append(opts, WithRuns(10))
		}
		Check(t, newTwin(twinBuilds["correct"]), opts...)
		return
	}
	for _, mode := range []string{"seeded", "rapid"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCheckStopsOnItsContext$", "-test.count=1", "-test.v", "-rapid.checks=10")
			cmd.Env = append(os.Environ(), "REALCLIENT_STOP="+mode)
			out, err := cmd.CombinedOutput()
			planned := "of 10"
			if err == nil || !strings.Contains(string(out), "realclient: twin: no verdict: interrupted after 2 runs: a partial tally") ||
				!strings.Contains(string(out), "progress 1 "+planned) || !strings.Contains(string(out), "progress 2 "+planned) || strings.Contains(string(out), "progress 3 ") {
				t.Errorf("want two runs, then the check stopped as interrupted:\n%s", out)
			}
		})
	}
}

// PCT is refused for a real client, with the reason, not run as another
// order.
func TestInterleavePCTRefused(t *testing.T) {
	_, err := newConfig([]Option{shared(harness.WithInterleave("pct:3"))})
	if err == nil || !strings.Contains(err.Error(), "PCT is not offered for real clients") {
		t.Errorf("got %v; want PCT refused with the reason", err)
	}
}
