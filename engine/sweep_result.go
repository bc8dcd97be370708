package engine

import "locksim/model/invariant"

// SweepResult is a two-parameter map: for each (x, y) pair of parameter values,
// how many runs were made and how many broke an invariant. Whoever runs
// the sweep fills it; report renders it (SweepText, SweepSVG).
type SweepResult struct {
	// Title is an optional heading.
	Title string
	// XName and YName name the parameters ("ttl", "pause").
	XName, YName string
	// Xs and Ys label the parameter values, in increasing order. Ys[0] is
	// drawn at the bottom.
	Xs, Ys []string
	// Cells[i][j] is the cell at Ys[i], Xs[j].
	Cells [][]SweepCell
	// Refs are reference lines drawn over the map (pause = TTL).
	Refs []SweepRef
	// Interrupted: the sweep was stopped (SweepConfig.Context) before
	// every cell ran; the map is partial, the cells not run are blank.
	Interrupted bool
}

// JudgedAny reports whether some cell judged anything (Runs counts the
// runs that did). A map of none is no verdict (the CLI exits 2).
func (s *SweepResult) JudgedAny() bool {
	for _, row := range s.Cells {
		for _, c := range row {
			if c.Runs > 0 {
				return true
			}
		}
	}
	return false
}

// ErrorCells counts the cells with a run that stopped with an error and
// names the first (bottom row first, left to right) with its error.
func (s *SweepResult) ErrorCells() (n int, first string) {
	for i, row := range s.Cells {
		for j, c := range row {
			if c.Errors == 0 {
				continue
			}
			if n == 0 {
				first = s.XName + "=" + s.Xs[j] + ", " + s.YName + "=" + s.Ys[i] + ": " + c.Error
			}
			n++
		}
	}
	return n, first
}

// SweepRef is a reference line over a sweep: its name and its points in
// fractional cell coordinates, [x, y] with x along Xs and y along Ys (0 is
// the first value's cell centre, 1 the next).
type SweepRef struct {
	Name   string
	Points [][2]float64
}

// SweepCell is what the runs at one parameter pair showed.
type SweepCell struct {
	// Runs is how many runs were made; 0 means none.
	Runs int
	// Broken is how many of them broke at least one invariant.
	Broken int
	// Invariants are the invariants broken in any run, in any order.
	Invariants []invariant.ID
	// Idle is how many runs' resource accepted no write.
	Idle int
	// Vacuous counts the runs that judged nothing (no client acquired):
	// not in Runs.
	Vacuous int
	// Errors counts the runs that stopped with an error (a script error,
	// a limit, a design that cannot run here): not in Runs, no verdict.
	// Error is the first one's, with its seed.
	Errors int
	Error  string
}
