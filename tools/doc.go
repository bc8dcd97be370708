// Package tools pins the tools locksim's CI runs that are not part of
// locksim, in a module of their own so that the root module's
// dependencies stay what locksim needs: actionlint (github.com/rhysd/actionlint
// v1.7.12), which lints every GitHub Actions workflow in the repository.
//
//	cd tools && go test ./...          # what `make test` runs
//	cd tools && go tool actionlint -shellcheck= ../recipes/github-actions.yml
//
// The first run downloads the module (about 2 MB); after that it works
// offline from the module cache.
package tools
