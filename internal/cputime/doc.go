// Package cputime reads the process's CPU time for the benchmarks (the
// engine's worker scaling, the zoo's bench table): one reading of
// getrusage, so a row's cost holds on a busy machine where wall time
// does not. Tests and benchmarks only.
package cputime
