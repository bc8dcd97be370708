// Package repocheck holds checks of the repository itself rather than of
// an API, out of the root package's tests (which test locksim.Check and
// its kin): the package file maps in doc.go files name every file, errors
// are written one way, the Makefile's go test lines select what they
// name, the check options locksim and realclient share are not mirrored,
// docs/architecture.md's layering is true, and a spec is resolved once
// (model.Resolved) rather than defaulted again downstream. It has no code; its tests
// run from the module root (TestMain) under go test ./internal/repocheck,
// which make test runs.
//
// Files: doc.go (this); main_test.go (TestMain: the module root);
// filemaps_test.go (TestFileMapsNameEveryFile); errors_style_test.go
// (TestErrorsOneWay); makefile_test.go (TestMakefileTargetsSelectWhatTheyName,
// TestMakefileParse, TestMakeGoldenRewritesEveryGolden); options_test.go
// (TestNoMirroredOptions, TestCheckOptionsDocIsTheTable: the check options
// locksim and realclient share are harness's); layers_test.go
// (TestArchitectureLayersAreTrue: docs/architecture.md's package order is
// the import order go list reports); resolved_test.go
// (TestASpecIsResolvedOnce: the call sites of a spec's WithDefaults()
// and Traits() outside model.Spec.Resolve, each allowed one with its
// reason).
package repocheck
