// Package tools holds the tools locksim's own builds run that are not
// part of locksim, in a module of their own so that the root module's
// dependencies stay what locksim needs:
//
//   - actionlint (github.com/rhysd/actionlint v1.7.12, pinned), which lints
//     every GitHub Actions workflow in the repository (this package's test);
//   - testcpu (./testcpu), through which `make test` runs each go test line
//     to print every package's CPU time after go test's own lines;
//   - benchab (./benchab), which `make bench` and `make bench-quick` run to
//     compare the working tree's benchmarks with a base commit's in one run
//     (docs/speed.md, "Comparing against a base commit").
//
// testcpu and benchab use only the standard library; the Makefile builds
// them into tools/bin (toolbin), which git ignores.
//
//	cd tools && go test ./...          # what `make test` runs
//	cd tools && go tool actionlint -shellcheck= ../recipes/github-actions.yml
//	cd tools && go run ./benchab -h
//
// The first run downloads actionlint's module (about 2 MB); after that it
// works offline from the module cache.
package tools
