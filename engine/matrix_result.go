package engine

import (
	"slices"
	"strconv"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// MatrixResult is the designs x scenarios table: for each pair, which
// invariants held and which broke. Whoever runs the matrix fills it (Set,
// CellOf); the renderers only read it. Rows and columns come out in the
// order of Scenarios and Designs; report renders it (MatrixText,
// MatrixMarkdown, MatrixHTML).
type MatrixResult struct {
	// Title is an optional heading.
	Title string
	// Brief leaves out the lists of each broken cell's first violation and
	// of the n/a reasons (text and Markdown; the CLI sets it unless
	// --details): the text says how to see one cell's story instead, the
	// Markdown is the table and a one-line legend, short enough for a pull
	// request. The HTML always has the lists.
	Brief bool
	// Designs and Scenarios are the columns and rows, in display order.
	Designs   []string
	Scenarios []string
	// Invariants are the invariants shown, in order; nil means
	// invariant.All.
	Invariants []invariant.ID
	// Cells holds the result of each {design, scenario} pair. A missing
	// cell was not run.
	Cells map[[2]string]MatrixCell
	// Interrupted: the matrix was stopped (MatrixConfig.Context) before
	// every cell ran; the table is partial and the cells not run show "-".
	Interrupted bool
}

// JudgedAny reports whether some cell judged anything: a run in which a
// client acquired, or one that broke an invariant shown (Invariants; a
// lock that never grants breaks liveness). A table of none is no verdict
// (the CLI exits 2).
func (m *MatrixResult) JudgedAny() bool {
	for _, c := range m.Cells {
		if c.NA != "" {
			continue
		}
		if c.Runs > c.NoneAcquired {
			return true
		}
		for _, r := range c.Results {
			if r.Broken && (m.Invariants == nil || slices.Contains(m.Invariants, r.Invariant)) {
				return true
			}
		}
	}
	return false
}

// ErrorCells counts the cells with a run that stopped with an error (or a
// pair that could not run), and names the first in display order with its
// error: such a cell has no verdict for what did not break, and the CLI
// exits 2.
func (m *MatrixResult) ErrorCells() (n int, first string) {
	for _, s := range m.Scenarios {
		for _, d := range m.Designs {
			c, ok := m.Cells[[2]string{d, s}]
			if !ok || c.NA != "" || c.Errors == 0 {
				continue
			}
			if n == 0 {
				first = s + " x " + d + ": " + c.Error
			}
			n++
		}
	}
	return n, first
}

// MatrixCell is what the runs of one design under one scenario showed.
type MatrixCell struct {
	// NA, when not empty, says the pair does not apply and why (e.g.
	// "needs replicas"); the rest of the cell is ignored.
	NA string
	// Runs is how many runs (seeds) were made.
	Runs int
	// Results has one entry per invariant checked; an invariant with no
	// entry was not checked.
	Results []InvariantResult
	// Idle: no run's resource accepted a write, so the lock did no work
	// (e.g. every client's deadline ran out before it wrote): a cell whose
	// invariants all held shows "idle", not "ok".
	Idle bool
	// Errors counts the runs that stopped with an error (a script error, a
	// limit, a design that cannot run here; 1 when the pair could not run
	// at all): they have no verdict, so an invariant no other run broke
	// has none in this cell. Error is the first one's, with its seed.
	Errors int
	Error  string
	// NoneAcquired counts the runs (of Runs) in which no client ever
	// acquired: they judged only what they broke (liveness), so a cell of
	// such runs showing other invariants only has no verdict (check's
	// rule for a run that broke only an uncounted invariant).
	NoneAcquired int
	// NoneFired counts the runs (of Runs) of a scenario with faults in
	// which none took effect (a memory-pressure burst the node had room
	// for, a trigger that never came): what they held was not tested
	// against the scenario's faults, so a cell of such runs that broke
	// nothing has no verdict either.
	NoneFired int `json:",omitempty"`
}

// InvariantResult is one invariant over the runs of a cell.
type InvariantResult struct {
	Invariant invariant.ID
	// Broken is set when at least one run broke it.
	Broken bool
	// BrokenRuns is how many runs broke it (0: not counted).
	BrokenRuns int
	// Seed is the first seed that broke it, for replay.
	Seed uint64
	// Explanation is that run's first violation's explanation.
	Explanation string
}

// Set stores a cell, adding the design and scenario to the display order
// if they are new.
func (m *MatrixResult) Set(design, scenario string, c MatrixCell) {
	if m.Cells == nil {
		m.Cells = map[[2]string]MatrixCell{}
	}
	if !slices.Contains(m.Designs, design) {
		m.Designs = append(m.Designs, design)
	}
	if !slices.Contains(m.Scenarios, scenario) {
		m.Scenarios = append(m.Scenarios, scenario)
	}
	m.Cells[[2]string{design, scenario}] = c
}

// CellOf summarizes the runs of one pair: every invariant of
// invariant.All the runs judge (invariant.Config.Judged; and any other a
// violation names) is checked; an invariant is broken if any run broke it,
// with the first such run's seed and explanation (runs in the order
// given). A run that judged nothing (vacuous: no client acquired) is left
// out: a cell with no other run has no verdict (nothing checked). A run
// that stopped with an error is left out and counted in Errors, with the
// first one's error.
func CellOf(all []*model.Result) MatrixCell {
	var runs []*model.Result
	errs, first := 0, ""
	for _, r := range all {
		switch {
		case r.Err != nil:
			if errs == 0 {
				first = "seed " + strconv.FormatUint(r.Seed, 10) + ": " + r.Err.Error()
			}
			errs++
		case !r.Vacuous():
			runs = append(runs, r)
		}
	}
	c := MatrixCell{Runs: len(runs), Idle: len(runs) > 0, Errors: errs, Error: first}
	if len(runs) == 0 {
		return c
	}
	for _, r := range runs {
		c.Idle = c.Idle && !history.New(r.History).WriteAccepted()
		if !slices.ContainsFunc(r.History, func(e sim.Event) bool { return e.Kind == history.KindAcquired }) {
			c.NoneAcquired++
		}
		if n := len(r.Spec.Faults); n > 0 && len(r.Unfired()) == n {
			c.NoneFired++
		}
	}
	ids := slices.Clone(invariant.All)
	for _, r := range runs {
		for _, v := range r.Violations {
			if !slices.Contains(ids, v.Invariant) {
				ids = append(ids, v.Invariant)
			}
		}
	}
	slices.Sort(ids[len(invariant.All):])
	judges := runs[0].Spec.Resolution().Check // the cell's spec, resolved once
	for _, id := range ids {
		ir := InvariantResult{Invariant: id}
		if judged, _ := judges.Judged(id); !judged && !slices.ContainsFunc(runs, func(r *model.Result) bool {
			return slices.ContainsFunc(r.Violations, func(v invariant.Violation) bool { return v.Invariant == id })
		}) {
			continue // not checked for this design and resource
		}
		for _, r := range runs {
			i := slices.IndexFunc(r.Violations, func(v invariant.Violation) bool { return v.Invariant == id })
			if i < 0 {
				continue
			}
			if !ir.Broken {
				ir.Broken, ir.Seed, ir.Explanation = true, r.Seed, r.Violations[i].Explanation
			}
			ir.BrokenRuns++
		}
		c.Results = append(c.Results, ir)
	}
	return c
}
