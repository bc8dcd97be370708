// Package faketb is a testing.TB that captures a failure instead of
// failing the test, so a test can assert that a check found (or refused)
// something: the root package's tests and the mutant zoo's share it.
// Tests only.
package faketb

import (
	"fmt"
	"testing"
)

// TB records what a check logged and whether it failed. Its embedded
// testing.TB answers everything else (TempDir, Cleanup, ...).
type TB struct {
	testing.TB
	Test  string   // what Name returns
	Broke bool     // a failure was reported
	Logs  []string // every line logged, failures included
}

func (f *TB) Helper()      {}
func (f *TB) Name() string { return f.Test }
func (f *TB) Logf(format string, args ...any) {
	f.Logs = append(f.Logs, fmt.Sprintf(format, args...))
}
func (f *TB) Log(args ...any)                   { f.Logs = append(f.Logs, fmt.Sprint(args...)) }
func (f *TB) Errorf(format string, args ...any) { f.Broke = true; f.Logf(format, args...) }
func (f *TB) Error(args ...any)                 { f.Broke = true; f.Log(args...) }
func (f *TB) Fatalf(format string, args ...any) { f.Errorf(format, args...) }
func (f *TB) Fatal(args ...any)                 { f.Error(args...) }
func (f *TB) FailNow()                          { f.Broke = true }
func (f *TB) Fail()                             { f.Broke = true }
func (f *TB) Failed() bool                      { return f.Broke }
func (f *TB) Skipf(string, ...any)              {}
func (f *TB) Skip(...any)                       {}
func (f *TB) SkipNow()                          {}
