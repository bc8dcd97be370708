# locksim: run `make help` for the targets.
GO ?= go
# A recipe's pipe (go test ... | grep -v) fails when go test fails.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

# The tools module's commands (tools/testcpu, tools/benchab), built into
# tools/bin (not committed) by the toolbin prerequisite of test and bench.
TOOLBIN := $(CURDIR)/tools/bin
TESTCPU := $(TOOLBIN)/testcpu
BENCHAB := $(TOOLBIN)/benchab
# make bench BASE=<rev> BENCH=<regexp>: the base commit and the benchmarks
# of the A/B comparison (default base: where HEAD left main; see benchab).
BASE ?=
BENCH ?=
BENCHAB_FLAGS = $(if $(BASE),-base '$(BASE)') $(if $(BENCH),-bench '$(BENCH)')

.PHONY: help run test check bench bench-quick long golden fingerprint fmt toolbin library-matrix clients node-deps

# The Node.js lock libraries the realclient/node tests run, pinned by
# realclient/node/js/package-lock.json (the repository's one lock file for
# everything Node) and installed by npm ci when the lock file changed.
# Without node or npm the tests say what to install (they fail under
# LOCKSIM_REQUIRE_NODE=1, which .ci/run sets).
NPM ?= npm
NODE_JS := realclient/node/js
node-deps:
	@if command -v node >/dev/null 2>&1 && command -v $(NPM) >/dev/null 2>&1; then \
	  $(MAKE) -s --no-print-directory $(NODE_JS)/node_modules/.package-lock.json; \
	else echo "make: node and npm not found: the realclient/node tests will say what to install"; fi
$(NODE_JS)/node_modules/.package-lock.json: $(NODE_JS)/package.json $(NODE_JS)/package-lock.json
	cd $(NODE_JS) && $(NPM) ci --no-audit --no-fund --ignore-scripts
help:
	@echo "make run    - run the gc-pause scenario on the embedded default (miniredis in-process)"
	@echo "make test   - run all tests (what CI runs) and print each package's CPU time; actionlint on every workflow."
	@echo "              Budget (issue 41): 200 s of CPU, 4 minutes on 2 idle cores; runs with -short (fewer seeds; make long: in full). Measured on an idle"
	@echo "              2-core machine (2026-12-08 02:00, after that day's merges, test binaries never cached, build cache warm, GOGC=400):"
	@echo "              2 min 45 s, 241 s of CPU (cmd/locksim 91 s; realclient 29 s; internal/zoo 22 s; engine 13 s): the 4-minute"
	@echo "              budget is met, the 200 s CPU budget is not (docs/speed.md)"
	@echo "              A user's first real-client test build (the README's example, fresh module): 98 s of CPU with an empty"
	@echo "              build cache, 48 s when the standard library and go-redis are cached; 1.9 s after (docs/realclient.md#speed)"
	@echo "make check  - vet, tests, race detector on the core packages, a short fuzz of every parser"
	@echo "              (scenario, fault, case file, RESP, history line, CLI flags) and of fault schedules (locksim.Fuzz, realclient.Fuzz),"
	@echo "              the real-client determinism test under GOMAXPROCS=1 and -race"
	@echo "make bench  - every benchmark A/B against a base commit in the same run: median head/base CPU ratio,"
	@echo "              its spread, load average (BASE=<rev>, default where HEAD left main; BENCH=<regexp>);"
	@echo "              then one table: runs/s with CPU time beside wall time, the ratios, worker scaling,"
	@echo "              each speed target met or not; the mutation score, random and exhaustive;"
	@echo "              real clients' virtual seconds per CPU second (under 8 minutes)"
	@echo "make bench-quick - the A/B comparison alone, 6 shorter rounds: measure a refactor (BASE=, BENCH= as above)"
	@echo "make long   - every test without -short (make test's heavy tests in full: the Makefile's lines compiled, each scenario x exhaustive);"
	@echo "              property tests with 10,000 checks each; 100,000 checker/oracle agreement runs; the risk validation table;"
	@echo "              exhaustive mode against every design x one-fault scenario, a whole depth-2 space"
	@echo "make clients - the client programs of locksim serve (redis-py by pip with hashes, Redisson by Maven); a prerequisite of make test"
	@echo "make golden - rewrite every golden file under testdata/ from the simulation (-rewrite);"
	@echo "              review the diff with git diff and commit only what you understand"
	@echo "make node-deps - npm ci in realclient/node/js when its package-lock.json changed (test, check, long and bench run it first):"
	@echo "              the Node.js lock libraries the realclient/node tests run (docs/node.md)"
	@echo "make library-matrix - regenerate docs/library-matrix.md: every lock library of realclient/libs at each sampled served version"
	@echo "              (a throwaway module per version) and the Node libraries at realclient/node/js's pinned versions,"
	@echo "              a seeded check per fault kind, and the published buggy/fixed release pairs (Go and npm)"
	@echo "              (needs the module proxy or a warm module cache; measured 110 s warm, 400 s cold). make test only checks the page is not stale"
	@echo "make fingerprint - refresh the simulator fingerprint (internal/fingerprint/sum.go) after changing"
	@echo "              a non-test Go file, an embedded file or go.sum; commit it with the change"

run:
	-$(GO) run ./cmd/locksim run gc-pause  # exits 1: the scenario finds a violation

# Every go test line names its -timeout and puts the packages before
# test-binary flags (or after -args): TestMakefileTargetsSelectWhatTheyName
# runs each with -list and fails on a flag error or a name that selects
# nothing.
# $(TESTCPU) runs a go test line with each test binary wrapped (-exec) to
# print every package's CPU time after go test's own lines; the exit
# status is go test's. Wrapped binaries are never cached.
# make test runs with -short: a test that is heavy runs a stated subset
# there (fewer seeds, one scenario per fault kind) and in full in make
# long, which runs every module without -short.
# make test paces the garbage collector as the CLI does (cmd/locksim/gc.go):
# GOGC=400 unless GOGC is set. The tests allocate briefly and keep little,
# and same-run pairs of their binaries used a quarter to a third less CPU
# (docs/speed.md, "What make test costs"); nothing they check depends on
# the pacing. make long keeps the runtime's default.
test: export GOGC ?= 400
test: toolbin clients node-deps
	$(TESTCPU) $(GO) test -short -timeout 20m ./...
	cd realclient && $(TESTCPU) $(GO) test -short -timeout 10m ./...  # the nested module: the real-client harness, at the oldest go-redis it supports
	cd realclient/libs && $(TESTCPU) $(GO) test -short -timeout 15m ./...  # the lock libraries' tests and the field-bug corpus (a module of its own: their pins raise nobody's)
	cd realclient/goredisv8 && $(TESTCPU) $(GO) test -short -timeout 10m ./...  # go-redis v8 clients for the harness (a module of its own: it raises nobody's v8 or v9 pin)
	cd tools && $(TESTCPU) $(GO) test -short -timeout 10m ./...       # actionlint v1.7.12 on every workflow, testcpu and benchab (a module of its own: the root's dependencies stay)
	cd locklog && $(TESTCPU) $(GO) test -short -timeout 5m ./...      # the lock-log wrapper a service imports (no locksim imports)

# The library matrix (docs/library-matrix.md) and the published release
# pairs: not in make test (TestLibraryMatrixFresh there checks the page's
# recorded inputs without running it).
library-matrix: node-deps  # the Node rows need the pinned npm packages
	cd realclient/libs && $(GO) test -count=1 -timeout 60m -run '^TestLibraryMatrix$$' . -args -regenerate

toolbin:
	$(GO) build -C tools -o bin/ ./testcpu ./benchab

# The client programs of locksim serve's tests and docs/serve.md: redis-py
# in a virtualenv (pip, hashes checked) and Redisson's classpath (Maven,
# ~/.m2) with the workload compiled by javac. Without python3 or mvn/javac
# the step says so and the tests that need them skip, or fail under
# LOCKSIM_REQUIRE_CLIENTS=1 (.ci/run sets it).
PYVENV := clients/python/.venv
JAVACP := clients/java/target/classpath.txt
clients: $(PYVENV)/.installed clients/java/target/classes/LockWorkload.class
$(PYVENV)/.installed: clients/python/requirements.txt
	@if command -v python3 >/dev/null 2>&1; then \
	  python3 -m venv $(PYVENV) && $(PYVENV)/bin/pip install -q --disable-pip-version-check --require-hashes -r clients/python/requirements.txt && touch $@; \
	else echo "make clients: no python3: the redis-py tests of locksim serve will skip"; fi
$(JAVACP): clients/java/pom.xml
	@if command -v mvn >/dev/null 2>&1; then \
	  (cd clients/java && mvn -q -B -Dstyle.color=never dependency:build-classpath -Dmdep.outputFile=target/classpath.txt) && touch $@; \
	else echo "make clients: no mvn: the Redisson tests of locksim serve will skip"; fi
clients/java/target/classes/LockWorkload.class: $(JAVACP) clients/java/src/main/java/LockWorkload.java
	@if command -v javac >/dev/null 2>&1 && [ -f $(JAVACP) ]; then \
	  javac -d clients/java/target/classes -cp "$$(cat $(JAVACP))" clients/java/src/main/java/LockWorkload.java; \
	else echo "make clients: no javac or no classpath: the Redisson tests of locksim serve will skip"; fi

check:
check: node-deps
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
	cd realclient/libs && $(GO) vet ./... && $(GO) test -timeout 15m ./...
	cd realclient/goredisv8 && $(GO) vet ./... && $(GO) test -timeout 10m ./...
	cd realclient && $(GO) test -run '^$$' -fuzz '^FuzzTwin$$' -fuzztime 10s -timeout 5m .  # realclient.Fuzz on a real go-redis client
	cd tools && $(GO) vet ./... && $(GO) test -timeout 10m ./...
	cd locklog && $(GO) vet ./... && $(GO) test -timeout 5m ./...
	cd realclient && GOMAXPROCS=1 $(GO) test -count=1 -timeout 10m -run TestDeterminism .
	cd realclient && $(GO) test -race -count=1 -timeout 10m -run TestDeterminism .
	cd realclient/libs && GOMAXPROCS=1 $(GO) test -count=1 -timeout 10m -run TestDeterminism .
	cd realclient/libs && $(GO) test -race -count=1 -timeout 10m -run TestDeterminism .

# The A/B comparison first (docs/speed.md, "Comparing against a base
# commit"): every benchmark of the root module, 8 rounds.
bench: toolbin node-deps
	$(BENCHAB) $(BENCHAB_FLAGS) ./...
	$(GO) test -run TestBenchTable -timeout 20m -v ./internal/zoo/ -args -benchtable | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'
	cd realclient/libs && $(GO) test -count=1 -run TestBenchRealClient -timeout 10m -v . -args -realbench | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'
	cd realclient && $(GO) test -count=1 -run TestBenchNode -timeout 10m -v ./node/ -args -nodebench | grep -v -e '^=== ' -e '^--- ' -e '^PASS' -e '^ok'  # Node: check runs per CPU second (target 100), virtual/CPU

bench-quick: toolbin
	$(BENCHAB) -quick $(BENCHAB_FLAGS) ./...

long: node-deps
	$(GO) test -timeout 60m ./...  # every test in full (make test runs them with -short)
	cd realclient && $(GO) test -timeout 20m ./...
	cd realclient/libs && $(GO) test -timeout 30m ./...
	cd realclient/libs && $(GO) test -count=1 -run '^TestPublishedPairs$$' -timeout 30m . -args -published  # the published buggy/fixed release pairs, a throwaway module per release (docs/realclient.md)
	cd realclient && $(GO) test -count=1 -run 'TestDeterminismAcrossProcesses|TestHistoriesPinned|TestPlainDelFailsAndItsTwinPasses|TestFaultKindsOnNode|TestNodeDocWalkthrough|TestExhaustivePair' -timeout 60m ./node/ -args -node.long  # every Node library across 3 fresh processes, and its history as recorded; Check and exhaustive mode on the JS plain-DEL pair; 100 runs of every fault kind on a Node client; docs/node.md run
	$(GO) test -run Prop -timeout 60m . -args -rapid.checks=10000
	$(GO) test -run TestCheckersAgreeWithTheOracle -timeout 60m ./model/ -args -oracle.runs=100000
	$(GO) test -run 'TestExhaustiveAgreesWithTheMatrix|TestDepthTwoWholeSpace' -timeout 180m ./engine/ -args -exhaustive.all
	$(GO) test -run 'TestImportanceSamplingAgreesWithPlain|TestAdviceMeetsItsTargetReestimated|TestFollowedWindows' -timeout 60m ./risk/ -args -risk.validate  # the risk estimator's validation table and the advisor's heavy-pause search, the followed windows' exact and plain checks (docs/risk.md)
	$(GO) test -count=1 -run TestServeRecurrence -timeout 30m ./serve/ -args -serve.runs=10  # locksim serve: redis-py and Redisson, 10 real-time runs each (needs make clients)
	$(GO) test -run TestFieldJudgementsRoundTrip -timeout 30m ./internal/zoo/ -args -checklog.field  # check-log's field judgements (premature-loss, acquire-deadline, available) round trip from the zoo's mutants (docs/check-log.md)
	$(GO) test -run TestLabInChromium -timeout 30m ./cmd/locksim/ -args -lab.lessons  # every lab lesson from broken to fixed in headless Chromium (docs/lab.md)

# golden runs every test that compares with a golden file (package
# internal/goldenfile) with -rewrite; TestMakeGoldenRewritesEveryGolden
# fails when a golden test is missing here. Goldens hold FINGERPRINT in
# place of the simulator fingerprint; a source change needs make
# fingerprint, not make golden.
golden:
	$(GO) test -timeout 10m -run 'TestDangerMapGoldens|TestGlossaryDoc|TestHTMLGolden|TestJSONGolden|TestMatrixBriefText|TestMatrixHTML|TestMatrixMarkdown|TestMatrixMarkdownBrief|TestMatrixText|TestSweepSVG|TestSummaryMarkdownGolden|TestSweepText|TestTextColorGolden|TestTextGolden' ./report/ -args -rewrite
	$(GO) test -timeout 10m -run 'TestTimelines|TestVerdicts' ./scenarios/ -args -rewrite
	$(GO) test -timeout 10m -run 'TestCheckExhaustiveGolden|TestFieldRunGolden|TestLuaDesignGoldens|TestMatrixGolden|TestRunGolden' ./cmd/locksim/ -args -rewrite
	$(GO) test -timeout 10m -run 'TestScenarioVerdicts' ./consensus/ -args -rewrite
	$(GO) test -timeout 10m -run 'TestCheckData' ./model/invariant/ -args -rewrite
	@echo "golden files hold FINGERPRINT for the simulator fingerprint: after a source change run make fingerprint too"

# fingerprint regenerates internal/fingerprint/sum.go, the hash of the
# module's non-test sources that shards, cases and reports carry and merge
# compares; TestSumIsFresh fails until it is run after a source change.
fingerprint:
	$(GO) generate ./internal/fingerprint/

fmt:
	gofmt -w .
