# locksim: run `make help` for the targets.
GO ?= go

.PHONY: help run test check bench long fmt
help:
	@echo "make run    - run the gc-pause scenario on the embedded default (miniredis in-process)"
	@echo "make test   - run all tests (what CI runs)"
	@echo "make check  - vet, tests, race detector on the core packages, a short fuzz of the parser"
	@echo "make bench  - benchmarks with allocations"
	@echo "make long   - property tests with 10,000 checks each; 100,000 checker/oracle agreement runs"

run:
	-$(GO) run ./cmd/locksim run gc-pause  # exits 1: the scenario finds a violation

test:
	$(GO) test ./...

check:
	$(GO) vet ./...
	$(GO) test ./...
	$(GO) test -race ./clock/ ./network/ ./sim/...
	$(GO) test -race -run TestCheckShardsAndWorkers ./cmd/locksim/  # parallel workers share pooled Lua states and miniredis instances
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 10s ./scenarios/

bench:
	$(GO) test -run TestBenchTable -benchtable -v . | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'
	$(GO) test -run '^$$' -bench . -benchmem ./...

long:
	$(GO) test -run Prop -rapid.checks=10000 -timeout 60m .
	$(GO) test -run TestCheckersAgreeWithTheOracle -oracle.runs=100000 -timeout 60m ./model/

fmt:
	gofmt -w .
