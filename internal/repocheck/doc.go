// Package repocheck holds checks of the repository itself rather than of
// an API: here, that the package file maps in doc.go files name every
// file. It has no code; its tests run under go test ./internal/repocheck
// (and make test).
//
// Files: doc.go (this), filemaps_test.go (TestFileMapsNameEveryFile).
package repocheck
