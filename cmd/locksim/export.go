package main

import (
	"fmt"
	"io"

	"locksim/engine"
	"locksim/internal/atomicfile"
	"locksim/internal/bounded"
	"locksim/logcheck"
	"locksim/sim"
)

// exportLog writes a run's history as the lock log a wrapper around the
// clients' lock calls would have written (logcheck.Export), for
// `locksim check-log`. An empty path writes nothing.
func exportLog(path string, h sim.History, stderr io.Writer, cmd string) error {
	if path == "" {
		return nil
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return usagef("--export: cannot write %s: %s", bounded.Clip(path), bounded.Clip(err.Error()))
	}
	if err := logcheck.Export(f, h); err != nil {
		f.Abort()
		return usagef("--export: %v", err)
	}
	if err := f.Commit(); err != nil {
		return usagef("--export: cannot write %s: %s", bounded.Clip(path), bounded.Clip(err.Error()))
	}
	fmt.Fprintf(stderr, "locksim %s: lock log exported to %s (locksim check-log %s)\n", cmd, path, path)
	return nil
}

// exportMinimal writes the check's minimal failing run as a lock log; when
// no run broke there is nothing to export, which stderr says.
func exportMinimal(path string, res *engine.CheckResult, stderr io.Writer) error {
	if path == "" {
		return nil
	}
	if res.Minimal == nil || res.Minimal.Err != nil {
		fmt.Fprintf(stderr, "locksim check: --export: no run broke a counted invariant, so no lock log was written to %s\n", bounded.Clip(path))
		return nil
	}
	return exportLog(path, res.Minimal.History, stderr, "check")
}
