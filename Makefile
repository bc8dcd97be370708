# locksim: run `make help` for the targets.
GO ?= go
# A recipe's pipe (go test ... | grep -v) fails when go test fails.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

.PHONY: help run test check bench long golden fmt
help:
	@echo "make run    - run the gc-pause scenario on the embedded default (miniredis in-process)"
	@echo "make test   - run all tests (what CI runs): about 3 minutes on 2 cores; actionlint on every workflow"
	@echo "make check  - vet, tests, race detector on the core packages, a short fuzz of every parser"
	@echo "              (scenario, fault, case file, RESP, history line, CLI flags) and of fault schedules (locksim.Fuzz, realclient.Fuzz),"
	@echo "              the real-client determinism test under GOMAXPROCS=1 and -race"
	@echo "make bench  - one table: runs/s with CPU time beside wall time, the ratios, worker scaling,"
	@echo "              each speed target met or not; the mutation score, random and exhaustive;"
	@echo "              the benchmarks; real clients' virtual seconds per CPU second (under 8 minutes)"
	@echo "make long   - property tests with 10,000 checks each; 100,000 checker/oracle agreement runs;"
	@echo "              exhaustive mode against every design x one-fault scenario, a whole depth-2 space"
	@echo "make golden - rewrite every golden file under testdata/ from the simulation (-rewrite);"
	@echo "              review the diff with git diff and commit only what you understand"

run:
	-$(GO) run ./cmd/locksim run gc-pause  # exits 1: the scenario finds a violation

# Every go test line names its -timeout and puts the packages before
# test-binary flags (or after -args): TestMakefileTargetsSelectWhatTheyName
# runs each with -list and fails on a flag error or a name that selects
# nothing.
test:
	$(GO) test -timeout 20m ./...
	cd realclient && $(GO) test -timeout 10m ./...  # the nested module: real go-redis lock libraries in the simulation
	cd tools && $(GO) test -timeout 10m ./...       # actionlint v1.7.12 on every workflow (a module of its own: the root's dependencies stay)
	cd locklog && $(GO) test -timeout 5m ./...      # the lock-log wrapper a service imports (no locksim imports)

check:
	$(GO) vet ./...
	$(GO) test -timeout 20m ./...
	$(GO) test -race -timeout 20m ./clock/ ./network/ ./sim/...
	$(GO) test -race -timeout 10m -run "TestCheckWorkersDoNotMatter|TestCheckShardsUnion" ./engine/
	$(GO) test -race -timeout 10m -run TestCheckShardsAndWorkers ./cmd/locksim/  # parallel workers share pooled Lua states and miniredis instances
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 10s -timeout 5m ./scenarios/
	$(GO) test -run '^$$' -fuzz FuzzParseFault -fuzztime 10s -timeout 5m ./scenarios/
	$(GO) test -run '^$$' -fuzz FuzzParseCase -fuzztime 10s -timeout 5m ./engine/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 10s -timeout 5m ./sim/resp/
	$(GO) test -run '^$$' -fuzz FuzzParseLine -fuzztime 10s -timeout 5m ./sim/
	$(GO) test -run '^$$' -fuzz FuzzCLI -fuzztime 10s -timeout 5m ./cmd/locksim/
	$(GO) test -run '^$$' -fuzz '^FuzzFencedKeepsTheData$$' -fuzztime 10s -timeout 5m .  # coverage-guided fault schedules (locksim.Fuzz)
	cd realclient && $(GO) vet ./... && $(GO) test -timeout 10m ./...
	cd realclient && $(GO) test -run '^$$' -fuzz '^FuzzTwin$$' -fuzztime 10s -timeout 5m .  # realclient.Fuzz on a real go-redis client
	cd tools && $(GO) vet ./... && $(GO) test -timeout 10m ./...
	cd locklog && $(GO) vet ./... && $(GO) test -timeout 5m ./...
	cd realclient && GOMAXPROCS=1 $(GO) test -count=1 -timeout 10m -run TestDeterminism .
	cd realclient && $(GO) test -race -count=1 -timeout 10m -run TestDeterminism .

bench:
	$(GO) test -run TestBenchTable -timeout 20m -v . -args -benchtable | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'
	$(GO) test -run '^$$' -bench . -benchtime 0.5s -benchmem -timeout 20m ./...
	cd realclient && $(GO) test -count=1 -run TestBenchRealClient -timeout 10m -v . -args -realbench | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'

long:
	$(GO) test -run Prop -timeout 60m . -args -rapid.checks=10000
	$(GO) test -run TestCheckersAgreeWithTheOracle -timeout 60m ./model/ -args -oracle.runs=100000
	$(GO) test -run 'TestExhaustiveAgreesWithTheMatrix|TestDepthTwoWholeSpace' -timeout 180m ./engine/ -args -exhaustive.all

# golden runs every test that compares with a golden file (package
# internal/goldenfile) with -rewrite; TestMakeGoldenRewritesEveryGolden
# fails when a golden test is missing here.
golden:
	$(GO) test -timeout 10m -run 'TestDangerMapGoldens|TestHTMLGolden|TestJSONGolden|TestMatrixBriefText|TestMatrixHTML|TestMatrixMarkdown|TestMatrixMarkdownBrief|TestMatrixText|TestSweepSVG|TestSummaryMarkdownGolden|TestSweepText|TestTextColorGolden|TestTextGolden' ./report/ -args -rewrite
	$(GO) test -timeout 10m -run 'TestTimelines|TestVerdicts' ./scenarios/ -args -rewrite
	$(GO) test -timeout 10m -run 'TestCheckExhaustiveGolden|TestFieldRunGolden|TestLuaDesignGoldens|TestMatrixGolden|TestRunGolden' ./cmd/locksim/ -args -rewrite
	$(GO) test -timeout 10m -run 'TestScenarioVerdicts' ./consensus/ -args -rewrite
	$(GO) test -timeout 10m -run 'TestCheckData' ./model/invariant/ -args -rewrite

fmt:
	gofmt -w .
