package report

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/engine"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// sampleMatrix is a small designs x scenarios table with every kind of
// cell: held, broken in all or some runs, n/a, not run, unchecked.
func sampleMatrix() *Matrix {
	m := &Matrix{Title: "locksim matrix (10 seeds per cell)"}
	held := func(invs ...invariant.ID) []InvariantResult {
		var out []InvariantResult
		for _, inv := range invs {
			out = append(out, InvariantResult{Invariant: inv})
		}
		return out
	}
	all := invariant.All
	m.Set("set-px-lua", "no-faults", Cell{Runs: 10, Results: held(all...)})
	m.Set("fenced", "no-faults", Cell{Runs: 10, Results: held(all...)})
	m.Set("redlock", "no-faults", Cell{Runs: 10, Results: held(all...)})
	gc := held(all...)
	gc[0] = InvariantResult{Invariant: invariant.MutualExclusion, Broken: true, BrokenRuns: 10, Seed: 1,
		Explanation: "A's critical section and B's overlap for 0.055127s."}
	gc[1] = InvariantResult{Invariant: invariant.StaleWrite, Broken: true, BrokenRuns: 10, Seed: 1,
		Explanation: "The resource accepted A's write | although A's key had expired."}
	m.Set("set-px-lua", "gc-pause", Cell{Runs: 10, Results: gc})
	gcf := held(all...)
	gcf[0] = InvariantResult{Invariant: invariant.MutualExclusion, Broken: true, BrokenRuns: 7, Seed: 3,
		Explanation: "A and B both held the lock."}
	m.Set("fenced", "gc-pause", Cell{Runs: 10, Results: gcf})
	m.Set("redlock", "gc-pause", Cell{Runs: 10, Results: gcf})
	m.Set("redlock", "failover-lost-write", Cell{NA: "redlock has no replicas"})
	m.Set("fenced", "failover-lost-write", Cell{Runs: 1})
	// Only the lease invariants were checked: nothing can be said of the
	// data.
	m.Set("set-px-lua", "failover-lost-write", Cell{Runs: 10, Results: []InvariantResult{
		{Invariant: invariant.MutualExclusion, Broken: true, BrokenRuns: 10, Seed: 1, Explanation: "A and B both held the lock."},
		{Invariant: invariant.Liveness}}})
	// Data lost in some runs, the lease in all.
	tr := held(all...)
	tr[0] = InvariantResult{Invariant: invariant.MutualExclusion, Broken: true, BrokenRuns: 10, Seed: 1, Explanation: "A and B both held the lock."}
	tr[2] = InvariantResult{Invariant: invariant.LostUpdate, Broken: true, BrokenRuns: 3, Seed: 4, Explanation: "B's write overwrote A's."}
	m.Set("redlock", "clock-jump", Cell{Runs: 10, Results: tr})
	// Only the token source broke: the strict resource kept the data.
	tu := held(all...)
	tu[3] = InvariantResult{Invariant: invariant.TokenUnique, Broken: true, BrokenRuns: 10, Seed: 1, Explanation: "Token 1 was granted twice."}
	m.Set("fenced", "clock-jump", Cell{Runs: 10, Results: tu})
	return m
}

func TestMatrixText(t *testing.T) {
	var b bytes.Buffer
	if err := MatrixText(&b, sampleMatrix()); err != nil {
		t.Fatal(err)
	}
	golden(t, "matrix.txt", b.Bytes())
}

// TestMatrixBriefText: the CLI's default (no --details) says how to see a
// cell's story instead of listing every first violation.
func TestMatrixBriefText(t *testing.T) {
	m := sampleMatrix()
	m.Brief = true
	var b bytes.Buffer
	if err := MatrixText(&b, m); err != nil {
		t.Fatal(err)
	}
	golden(t, "matrix-brief.txt", b.Bytes())
}

func TestMatrixMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := MatrixMarkdown(&b, sampleMatrix()); err != nil {
		t.Fatal(err)
	}
	golden(t, "matrix.md", b.Bytes())
	// The explanation's '|' must not split the table row.
	if !strings.Contains(b.String(), `write \| although`) {
		t.Error("a '|' in an explanation is not escaped")
	}
}

// TestMatrixMarkdownBrief: without --details the Markdown is the table
// and a one-line legend, short enough to paste into a pull request.
func TestMatrixMarkdownBrief(t *testing.T) {
	m := sampleMatrix()
	m.Brief = true
	var b bytes.Buffer
	if err := MatrixMarkdown(&b, m); err != nil {
		t.Fatal(err)
	}
	golden(t, "matrix-brief.md", b.Bytes())
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// Title, blank, header, rule, one row per scenario, blank, legend.
	if want := 4 + len(m.Scenarios) + 2; len(lines) != want {
		t.Errorf("brief Markdown has %d lines, want %d:\n%s", len(lines), want, out)
	}
	for _, bad := range []string{"### Broken", "### Not applicable", "although"} {
		if strings.Contains(out, bad) {
			t.Errorf("brief Markdown contains %q", bad)
		}
	}
}

// TestMatrixClasses: a broken cell is "data lost" when a data invariant
// (invariant.HarmOf: lost-update, fencing) broke, "lease broken, data safe" when
// only lease invariants broke and a data invariant held, and neither when
// no data invariant was checked; each output marks them apart.
func TestMatrixClasses(t *testing.T) {
	m := sampleMatrix()
	invs := matrixInvariants(m)
	for _, tc := range []struct{ design, scenario, class string }{
		{"set-px-lua", "gc-pause", classSafe}, // stale-write judges the lease: no update was lost
		{"fenced", "gc-pause", classSafe},
		{"redlock", "clock-jump", classLost},
		{"fenced", "clock-jump", classSafe},
		{"set-px-lua", "failover-lost-write", classBroken},
	} {
		c, ok := m.Cells[[2]string{tc.design, tc.scenario}]
		if got := cellStateOf(m, placedCell{tc.design, tc.scenario, c, ok}, invs); got.kind != "broken" || got.class != tc.class {
			t.Errorf("%s x %s: %s %q, want broken %q", tc.scenario, tc.design, got.kind, got.class, tc.class)
		}
	}
	render := func(f func(io.Writer, *Matrix) error) string {
		var b bytes.Buffer
		if err := f(&b, m); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for name, want := range map[string][]string{
		"text":     {"~ME,SW ", "~ME(7/10) ", "!ME,LU(3/10)", "! data lost (LU broke)", "~ lease broken, data"},
		"markdown": {"| ⚠️ ME,SW |", "| ⚠️ ME(7/10) |", "❌ **ME,LU(3/10)**", "❌ data lost (LU broke)", "⚠️ lease broken, data safe (only ME, SW, TU, FE, LV, RE, FI, RW, PL, AD or AV broke; the data held)"},
		"html": {`<td class="broken safe" title="lease broken, data safe:`, `<td class="broken safe some" title="lease broken, data safe:`,
			`<td class="broken unknown" title="broken, data unknown:`, `<td class="broken lost some" title="data lost:` + "\nmutual-exclusion (seed 1, 10/10 runs): A and B both held the lock.\nlost-update (seed 4, 3/10 runs)",
			`<span class="swatch broken lost">!</span> data lost (LU broke)`,
			`<span class="swatch broken safe">~</span> lease broken, data safe (only ME, SW, TU, FE, LV, RE, FI, RW, PL, AD or AV broke; the data held)`},
	} {
		out := map[string]func(io.Writer, *Matrix) error{"text": MatrixText, "markdown": MatrixMarkdown, "html": MatrixHTML}[name]
		got := render(out)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s output lacks %q:\n%s", name, w, got)
			}
		}
	}
}

func TestMatrixHTML(t *testing.T) {
	var b bytes.Buffer
	if err := MatrixHTML(&b, sampleMatrix()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	golden(t, "matrix.html", b.Bytes())
	for _, bad := range []string{"http://", "https://", "<script", "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("the matrix page contains %q", bad)
		}
	}
	for _, want := range []string{
		`<table id="matrix">`,
		`<th class="design">set-px-lua</th>`,
		"<td class=\"broken safe\" title=\"lease broken, data safe:\nmutual-exclusion (seed 1, 10/10 runs): A&#39;s critical section",
		`<td class="na" title="n/a: redlock has no replicas">n/a</td>`,
		`<td class="none" title="not run">-</td>`,
		`<td class="unchecked" title="no invariant checked">?</td>`,
		`<td class="ok" title="every checked invariant held in 10 runs">ok</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the matrix page lacks %s", want)
		}
	}
	var again bytes.Buffer
	if err := MatrixHTML(&again, sampleMatrix()); err != nil {
		t.Fatal(err)
	}
	if again.String() != page {
		t.Error("two renderings differ")
	}
}

func TestMatrixNil(t *testing.T) {
	var b bytes.Buffer
	for name, f := range map[string]func() error{
		"text": func() error { return MatrixText(&b, nil) },
		"md":   func() error { return MatrixMarkdown(&b, nil) },
		"html": func() error { return MatrixHTML(&b, nil) },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: nil matrix returned no error", name)
		}
	}
}

func TestCellOf(t *testing.T) {
	acq := sim.Event{Actor: "A", Kind: history.KindAcquired, N: 1}
	accepted := sim.History{acq, {Kind: history.KindResWrite, Reply: "(integer) 1"}}
	runs := []*model.Result{
		{Seed: 1, History: accepted},
		{Seed: 2, Violations: []invariant.Violation{{Invariant: invariant.MutualExclusion, Explanation: "first"}, {Invariant: "custom"}}},
		{Seed: 3, Violations: []invariant.Violation{{Invariant: invariant.MutualExclusion, Explanation: "second"}}},
		{Seed: 4}, // vacuous: nobody acquired, nothing judged; left out
	}
	got := engine.CellOf(runs)
	// The design (the default spec's) judges neither token-unique (it
	// grants no tokens), fencing (unfenced resource), reentrancy, fifo,
	// rw-exclusion nor premature-loss (it promises no validity): those are
	// not checked. Every model design declares an acquire-deadline
	// tolerance.
	want := Cell{Runs: 3, Results: []InvariantResult{
		{Invariant: invariant.MutualExclusion, Broken: true, BrokenRuns: 2, Seed: 2, Explanation: "first"},
		{Invariant: invariant.StaleWrite},
		{Invariant: invariant.LostUpdate},
		{Invariant: invariant.Liveness},
		{Invariant: invariant.AcquireDeadline},
		{Invariant: "custom", Broken: true, BrokenRuns: 1, Seed: 2},
	}, NoneAcquired: 2} // seeds 2 and 3 broke without an acquisition in their histories
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CellOf (-want +got):\n%s", diff)
	}
	// A cell whose runs all judged nothing (vacuous, or stopped) has no
	// verdict: nothing checked, shown as "?".
	if c := engine.CellOf([]*model.Result{{Seed: 1}, {Seed: 2, History: accepted, Err: errors.New("limit")}}); c.Runs != 0 || len(c.Results) != 0 {
		t.Errorf("a cell of vacuous and stopped runs: %+v, want no runs and nothing checked", c)
	}
	// A cell where no run's resource accepted a write did no work: idle,
	// though every invariant held; a rejected write is no work either.
	rejected := sim.History{acq, {Kind: history.KindResWrite, Reply: "(integer) 0"}}
	idle := engine.CellOf([]*model.Result{{Seed: 1, History: sim.History{acq}}, {Seed: 2, History: rejected}})
	if !idle.Idle || engine.CellOf(runs[:1]).Idle {
		t.Errorf("Idle: %v for runs with no accepted write, %v for one with", idle.Idle, engine.CellOf(runs[:1]).Idle)
	}
	m := &Matrix{Designs: []string{"d"}, Scenarios: []string{"s"}, Cells: map[[2]string]Cell{{"d", "s"}: idle}}
	var b strings.Builder
	if err := MatrixText(&b, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "idle") || !strings.Contains(b.String(), "idle: every checked invariant held") {
		t.Errorf("an idle cell's matrix does not say so:\n%s", b.String())
	}
}

// A cell with a run that stopped with an error is marked ERR (with the
// breaks other runs found: +ERR), explained in the legend, listed with
// --details and in every format, never shown as "?" or "ok"; a partial
// (interrupted) matrix says so first. A matrix without errors has no ERR
// in its legend.
func TestMatrixErrorCellsShown(t *testing.T) {
	m := &Matrix{}
	held := []InvariantResult{{Invariant: invariant.MutualExclusion}, {Invariant: invariant.LostUpdate}}
	broken := []InvariantResult{{Invariant: invariant.MutualExclusion, Broken: true, BrokenRuns: 1, Seed: 2}, {Invariant: invariant.LostUpdate}}
	m.Set("lua", "gc-pause", Cell{Errors: 3, Error: "seed 1: endless loop"})
	m.Set("lua", "no-faults", Cell{Runs: 2, Results: held, Errors: 1, Error: "seed 3: boom"})
	m.Set("lua", "stale-release", Cell{Runs: 1, Results: broken, Errors: 1, Error: "seed 1: boom"})
	// No run acquired and none broke what is shown: no verdict, not "ok".
	m.Set("lua", "fair-queue", Cell{Runs: 2, Results: held, NoneAcquired: 2})
	m.Interrupted, m.Brief = true, true
	var b bytes.Buffer
	if err := MatrixText(&b, m); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"PARTIAL: interrupted", "gc-pause       ERR", "no-faults      ERR", "ME+ERR", "fair-queue     ?", "ERR: a run stopped with an error", "3 cells: a run stopped with an error"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	m.Brief = false
	b.Reset()
	MatrixText(&b, m)
	if !strings.Contains(b.String(), "gc-pause x lua: 3 runs stopped with an error: seed 1: endless loop") {
		t.Errorf("--details lacks the error list:\n%s", b.String())
	}
	b.Reset()
	MatrixMarkdown(&b, m)
	if md := b.String(); !strings.Contains(md, "| ERR |") || !strings.Contains(md, "### Errors (no verdict)") || !strings.Contains(md, "**PARTIAL") {
		t.Errorf("markdown:\n%s", md)
	}
	b.Reset()
	MatrixHTML(&b, m)
	if h := b.String(); !strings.Contains(h, `<td class="error" title="3 runs stopped with an error: seed 1: endless loop">ERR</td>`) || !strings.Contains(h, `id="errors"`) || !strings.Contains(h, "PARTIAL") {
		t.Errorf("html lacks the error cell, list or partial note")
	}
	b.Reset()
	MatrixText(&b, sampleMatrix())
	if strings.Contains(b.String(), "ERR") || strings.Contains(b.String(), "PARTIAL") {
		t.Errorf("a matrix without errors mentions ERR or PARTIAL:\n%s", b.String())
	}
}

// A sweep cell with a run that stopped shows E (no verdict), one whose
// runs all judged nothing '?', and the errors are listed under the map.
func TestSweepErrorCellsShown(t *testing.T) {
	s := &Sweep{XName: "ttl", YName: "pause", Xs: []string{"1s", "2s", "4s"}, Ys: []string{"100ms"},
		Cells: [][]SweepCell{{{Errors: 2, Error: "seed 1: boom"}, {Vacuous: 2}, {Runs: 2}}}, Interrupted: true}
	var b bytes.Buffer
	if err := SweepText(&b, s); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"PARTIAL: interrupted", "100ms |  E  ?  .", "E: no verdict", "?: no verdict", "ttl=1s, pause=100ms: 2 runs stopped with an error: seed 1: boom"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	b.Reset()
	SweepSVG(&b, s)
	if svg := b.String(); !strings.Contains(svg, `data-state="error"`) || !strings.Contains(svg, `data-state="no-verdict"`) || !strings.Contains(svg, "no verdict: a run stopped with an error (1 cells") {
		t.Errorf("svg lacks the error and no-verdict cells")
	}
}
