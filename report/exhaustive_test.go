package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

func exhaustive(t *testing.T, c engine.ExhaustiveConfig) *engine.ExhaustiveResult {
	t.Helper()
	r, err := engine.Exhaustive(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The danger maps of the seeds' examples as golden files (which points
// break what is engine's TestDangerMaps): set-px-lua's pause-after-acquire
// zone loses data; set-px-getdel's stale release breaks the lease; fenced
// with strict-reads has no zone where one fault loses data; the deadline
// option shrinks set-px-lua's red zone.
func TestDangerMapGoldens(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec model.Spec
	}{
		{"set-px-lua", model.Spec{Design: model.SetPxLua}},
		{"set-px-getdel", model.Spec{Design: model.SetPxGetdel}},
		{"fenced-strict-reads", model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads}},
		{"set-px-lua-deadline", model.Spec{Design: model.SetPxLua, Options: model.Options{Deadline: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := exhaustive(t, engine.ExhaustiveConfig{Base: tc.spec})
			var b bytes.Buffer
			if err := DangerText(&b, DangerMap(r), 0); err != nil {
				t.Fatal(err)
			}
			golden(t, "danger-"+tc.name+".txt", b.Bytes())
		})
	}
}

// A schedule that stops with an error stops exhaustive mode: the text
// gives no verdicts and no danger map.
func TestExhaustiveTextOfAStoppedExploration(t *testing.T) {
	lua := &model.LuaScripts{Acquire: "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
		Release: "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('not mine') end return redis.call('DEL', KEYS[1])"}
	r := exhaustive(t, engine.ExhaustiveConfig{Base: model.Spec{Design: model.LuaDesignID, Lua: lua}})
	if r.FirstError == nil {
		t.Fatalf("no schedule stopped: %s", r.Guarantee())
	}
	var b strings.Builder
	if err := ExhaustiveText(&b, r, 5, nil); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "held in all") || strings.Contains(out, "Danger map") || !strings.Contains(out, "no verdict") {
		t.Errorf("a stopped run reads as verdicts:\n%s", out)
	}
}

// The exhaustive text puts the danger rows first (before the ways, first
// in each actor's lane, two lines tall) and lists the ways grouped by
// mechanism: each fault kind's header once, its ways folded under it, and
// every way of the result listed exactly once, by its number.
func TestExhaustiveTextDangerRowsFirstWaysGrouped(t *testing.T) {
	r := exhaustive(t, engine.ExhaustiveConfig{Base: model.Spec{Design: model.SetPxGetdel}})
	var b strings.Builder
	if err := ExhaustiveText(&b, r, len(r.Breaks), nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	firstDanger, waysAt := -1, -1
	for i, l := range lines {
		f := strings.Fields(l)
		if firstDanger < 0 && len(f) >= 2 && f[1] == dangerRow {
			firstDanger = i
		}
		if waysAt < 0 && strings.Contains(l, "ways it breaks") {
			waysAt = i
		}
		// A lane's first line is its danger row, and the line under it
		// repeats its zones.
		if len(f) >= 2 && (f[0] == "A" || f[0] == "B" || f[0] == "r1") && strings.HasPrefix(l, f[0]+" ") {
			if f[1] != dangerRow {
				t.Errorf("lane %s opens with row %q, not the danger row:\n%s", f[0], f[1], l)
			} else if next := strings.TrimSpace(lines[i+1]); next != f[2] {
				t.Errorf("lane %s's danger row is one line tall: %q then %q", f[0], f[2], next)
			}
		}
	}
	if firstDanger < 0 || waysAt < 0 || firstDanger > waysAt {
		t.Fatalf("danger row at line %d, ways at line %d: the rows must come first\n%s", firstDanger, waysAt, out)
	}
	seen := map[string]bool{}
	kind, listed := "", map[int]bool{}
	for _, l := range lines[waysAt+1:] {
		if strings.HasPrefix(l, "Points where") {
			break
		}
		if h, _, ok := strings.Cut(l, ": "); ok && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") {
			kind = strings.TrimSpace(h)
			if seen[kind] {
				t.Errorf("mechanism %s heads two groups", kind)
			}
			seen[kind] = true
			continue
		}
		var n int
		var mech string
		if strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "     ") {
			num, rest, _ := strings.Cut(strings.TrimSpace(l), ". ")
			if _, err := fmt.Sscan(num, &n); err != nil {
				t.Fatalf("way line %q has no number", l)
			}
			mech = rest
			if got := r.Breaks[n-1].Mechanism; got != mech {
				t.Errorf("way %d reads %q, the result's break %d is %q", n, mech, n, got)
			}
			if k, _, _ := strings.Cut(mech, " "); k != kind {
				t.Errorf("way %d (%s) is folded under %s", n, mech, kind)
			}
			listed[n] = true
		}
	}
	if len(listed) != len(r.Breaks) || len(seen) < 2 {
		t.Errorf("%d of %d ways listed in %d groups", len(listed), len(r.Breaks), len(seen))
	}
}

// With no fault placed (--faults none, reorders only) the text draws no
// danger map: a map would call every moment safe from faults that never
// ran.
func TestExhaustiveTextWithoutFaultsHasNoDangerMap(t *testing.T) {
	r := exhaustive(t, engine.ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua}, Kinds: []sim.FaultKind{}, Preemptions: 1})
	var b strings.Builder
	if err := ExhaustiveText(&b, r, 5, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "Danger map") || strings.Contains(out, "No single fault") || !strings.Contains(out, "No fault was placed") {
		t.Errorf("a run without faults reads as a danger map:\n%s", out)
	}
	if d := DangerMap(r); len(d.Points) != 0 {
		t.Errorf("the danger map of a run without faults has %d points", len(d.Points))
	}
}

// When the fault-free run breaks, it is the one run judged: the verdicts
// say so rather than "held in all 0", the text does not claim no fault was
// placed, and its one way is grouped as no fault, with no durations.
func TestExhaustiveTextOfAFaultFreeBreak(t *testing.T) {
	r := exhaustive(t, engine.ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua, Workload: model.Workload{Work: 1500 * time.Millisecond}},
		Invariants: []invariant.ID{invariant.MutualExclusion}})
	if !r.FaultFreeOnly() {
		t.Fatalf("want a fault-free break: %s", r.Guarantee())
	}
	var b strings.Builder
	if err := ExhaustiveText(&b, r, 5, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"mutual-exclusion  broken in the fault-free run",
		"stale-write       broken (not counted) in the fault-free run",
		"liveness          held (not counted)",
		"  no fault: one way (1 schedule), breaking mutual-exclusion",
		"       breaks mutual-exclusion (1 schedule)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"in all 0", "No fault was placed", "durations )"} {
		if strings.Contains(out, bad) {
			t.Errorf("the text says %q:\n%s", bad, out)
		}
	}
	// Counting everything, what held is held in that one run.
	all := exhaustive(t, engine.ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua, Workload: model.Workload{Work: 1500 * time.Millisecond}}})
	b.Reset()
	if err := ExhaustiveText(&b, all, 5, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "held in the fault-free run (nothing else ran)") {
		t.Errorf("no held-in-the-fault-free-run verdict:\n%s", b.String())
	}
}

// An invariant judged without a verdict is explained by its own reason
// (engine.UndecidedWhy): the write invariants by "the run wrote nothing",
// liveness by a fault never healed; not every one by liveness's reason.
func TestExhaustiveTextGivesEachUndecidedItsReason(t *testing.T) {
	r := exhaustive(t, engine.ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua}, Kinds: []sim.FaultKind{sim.FaultPause}, Durations: []string{"ttl/2"}})
	n := r.JudgedSchedules()
	r.Undecided = map[invariant.ID]int{invariant.StaleWrite: n, invariant.Liveness: 1}
	var b strings.Builder
	if err := ExhaustiveText(&b, r, 5, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		fmt.Sprintf("no verdict in all %d (the run wrote nothing)", n),
		fmt.Sprintf("held in %d; no verdict in 1 (a fault never healed", n-1),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
