package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/model"
	"locksim/model/invariant"
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
	return m
}

func TestMatrixText(t *testing.T) {
	var b bytes.Buffer
	if err := MatrixText(&b, sampleMatrix()); err != nil {
		t.Fatal(err)
	}
	golden(t, "matrix.txt", b.Bytes())
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

func TestMatrixHTML(t *testing.T) {
	var b bytes.Buffer
	if err := MatrixHTML(&b, sampleMatrix()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"http://", "https://", "<script", "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("the matrix page contains %q", bad)
		}
	}
	for _, want := range []string{
		`<table id="matrix">`,
		`<th class="design">set-px-lua</th>`,
		`<td class="broken" title="mutual-exclusion (seed 1, 10/10 runs): A&#39;s critical section`,
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
	runs := []*model.Result{
		{Seed: 1},
		{Seed: 2, Violations: []invariant.Violation{{Invariant: invariant.MutualExclusion, Explanation: "first"}, {Invariant: "custom"}}},
		{Seed: 3, Violations: []invariant.Violation{{Invariant: invariant.MutualExclusion, Explanation: "second"}}},
	}
	got := CellOf(runs)
	want := Cell{Runs: 3, Results: []InvariantResult{
		{Invariant: invariant.MutualExclusion, Broken: true, BrokenRuns: 2, Seed: 2, Explanation: "first"},
		{Invariant: invariant.StaleWrite},
		{Invariant: invariant.LostUpdate},
		{Invariant: invariant.TokenUnique},
		{Invariant: invariant.Fencing},
		{Invariant: invariant.Liveness},
		{Invariant: invariant.Reentrancy},
		{Invariant: "custom", Broken: true, BrokenRuns: 1, Seed: 2},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CellOf (-want +got):\n%s", diff)
	}
}
