// Package repocheck holds checks of the repository itself rather than of
// an API, out of the root package's tests (which test locksim.Check and
// its kin): the package file maps in doc.go files name every file, errors
// are written one way, and the Makefile's go test lines select what they
// name. It has no code; its tests run from the module root (TestMain)
// under go test ./internal/repocheck, which make test runs.
//
// Files: doc.go (this); main_test.go (TestMain: the module root);
// filemaps_test.go (TestFileMapsNameEveryFile); errors_style_test.go
// (TestErrorsOneWay); makefile_test.go (TestMakefileTargetsSelectWhatTheyName,
// TestMakefileParse, TestMakeGoldenRewritesEveryGolden).
package repocheck
