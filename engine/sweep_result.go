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
}
