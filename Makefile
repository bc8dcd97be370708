# locksim: run `make help` for the targets.
GO ?= go

.PHONY: help run test check bench long fmt
help:
	@echo "make run    - run the gc-pause scenario on the embedded default (miniredis in-process)"
	@echo "make test   - run all tests (what CI runs), actionlint on every workflow"
	@echo "make check  - vet, tests, race detector on the core packages, a short fuzz of every parser"
	@echo "              (scenario, fault, case file, RESP, CLI flags),"
	@echo "              the real-client determinism test under GOMAXPROCS=1 and -race"
	@echo "make bench  - benchmarks with allocations; the mutation score, random and exhaustive; exhaustive mode's"
	@echo "              schedules/s and what its state dedup saves; real clients' virtual seconds per wall second"
	@echo "make long   - property tests with 10,000 checks each; 100,000 checker/oracle agreement runs;"
	@echo "              exhaustive mode against every design x one-fault scenario, a whole depth-2 space"

run:
	-$(GO) run ./cmd/locksim run gc-pause  # exits 1: the scenario finds a violation

test:
	$(GO) test ./...
	cd realclient && $(GO) test ./...  # the nested module: real go-redis lock libraries in the simulation
	cd tools && $(GO) test ./...       # actionlint v1.7.12 on every workflow (a module of its own: the root's dependencies stay)

check:
	$(GO) vet ./...
	$(GO) test ./...
	$(GO) test -race ./clock/ ./network/ ./sim/...
	$(GO) test -race -run "TestCheckWorkersDoNotMatter|TestCheckShardsUnion" ./engine/
	$(GO) test -race -run TestCheckShardsAndWorkers ./cmd/locksim/  # parallel workers share pooled Lua states and miniredis instances
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 10s ./scenarios/
	$(GO) test -run '^$$' -fuzz FuzzParseFault -fuzztime 10s ./scenarios/
	$(GO) test -run '^$$' -fuzz FuzzParseCase -fuzztime 10s ./engine/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 10s ./sim/resp/
	$(GO) test -run '^$$' -fuzz FuzzCLI -fuzztime 10s ./cmd/locksim/
	cd realclient && $(GO) vet ./... && $(GO) test ./...
	cd tools && $(GO) vet ./... && $(GO) test ./...
	cd realclient && GOMAXPROCS=1 $(GO) test -count=1 -run TestDeterminism .
	cd realclient && $(GO) test -race -count=1 -run TestDeterminism .

bench:
	$(GO) test -run TestBenchTable -benchtable -v . | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'
	$(GO) test -run '^$$' -bench . -benchmem ./...
	cd realclient && $(GO) test -count=1 -run TestBenchRealClient -realbench . | grep -v -e '^PASS' -e '^ok'

long:
	$(GO) test -run Prop -rapid.checks=10000 -timeout 60m .
	$(GO) test -run TestCheckersAgreeWithTheOracle -oracle.runs=100000 -timeout 60m ./model/
	$(GO) test -run 'TestExhaustiveAgreesWithTheMatrix|TestDepthTwoWholeSpace' -timeout 180m ./engine/ -args -exhaustive.all

fmt:
	gofmt -w .
