package main

import (
	"io"
	"os"
	"strconv"
)

// wrapWidth is the width a text report's prose wraps at when written to
// w: on a terminal its width (COLUMNS, else the terminal's own size, else
// 80); anywhere else 0, the report's fixed default, so that a file or a
// pipe gets the same bytes wherever it is made.
func wrapWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(w) {
		return 0
	}
	return wrapFor(true, os.Getenv("COLUMNS"), func() int { return termColumns(f) })
}

// wrapFor picks the width: 0 off a terminal; COLUMNS when it is a
// number; else what query says; else 80. At least 40 (the report's
// minimum).
func wrapFor(terminal bool, columns string, query func() int) int {
	if !terminal {
		return 0
	}
	n, err := strconv.Atoi(columns)
	if err != nil || n <= 0 {
		n = query()
	}
	if n <= 0 {
		n = 80
	}
	return max(n, 40)
}
