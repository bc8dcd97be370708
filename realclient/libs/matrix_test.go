package libs

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"locksim/internal/fingerprint"
	"locksim/realclient"
	"locksim/scenarios"
)

// The library matrix (docs/library-matrix.md): each library at each
// sampled served version, judged per fault kind by a fixed small seeded
// check (realclient.Check with WithRuns and WithSeed(1): the same seeds
// for every library and version), each run in a throwaway module that
// pins the version (testdata/matrix: the cell test and one setup per
// library). Regenerate the page with
//
//	cd realclient/libs && go test -run '^TestLibraryMatrix$' -timeout 60m -args -regenerate
//
// (make library-matrix). TestLibraryMatrixFresh, in make test, fails when
// the page's recorded inputs are stale, without running the matrix.

var regenerate = flag.Bool("regenerate", false, "regenerate docs/library-matrix.md (TestLibraryMatrix): builds and runs a throwaway module per library version")

const matrixPage = "../../docs/library-matrix.md"

// matrixRuns is the seeded runs per cell (seeds 1..matrixRuns).
const matrixRuns = 4

// matrixLib is one library of the matrix.
type matrixLib struct {
	name   string // as in realclient.WithName
	module string // the module go list -m -versions asks about
	setup  string // testdata/matrix/lib_<setup>.go.txt
	// sample picks the versions of the range view from the served ones
	// (nil: all of them); why says what it left out and why.
	sample func(served []string) []string
	why    string
	// skip names the fault kinds not run, with the reason.
	skip map[string]string
	// pin is the current version of a library this module does not
	// require (its go.mod pins the others).
	pin string
	// A Node row (nodeLibs): npm is its package-lock.json entry, js its
	// lock module (relative to realclient/node), nodeOpts its options.
	npm      string
	js       string
	nodeOpts []realclient.Option
}

// current is the library's current version: the go.mod pin, else pin.
func (l matrixLib) current(pins map[string]string) string {
	if l.npm != "" {
		return pins["npm:"+l.npm]
	}
	if v := pins[l.module]; v != "" {
		return v
	}
	return l.pin
}

var matrixLibs = []matrixLib{
	{name: "redsync", module: "github.com/go-redsync/redsync/v4", setup: "redsync"},
	{name: "redislock", module: "github.com/bsm/redislock", setup: "redislock"},
	{name: "rueidislock", module: "github.com/redis/rueidis", setup: "rueidislock",
		sample: func(served []string) []string {
			// Every served release from v1.0.61 on, and two older ones.
			var out []string
			for _, v := range served {
				if v == "v1.0.34" || v == "v1.0.50" || !semverLess(v, "v1.0.61") {
					out = append(out, v)
				}
			}
			return out
		},
		skip: map[string]string{"crash": "a crashed client's rueidislock goroutines stay blocked on the locker's channels inside the run's bubble, so such a run is refused with the reason, naming where they wait (TestRueidislockCrashIsRefused): a harness limit, not a verdict"},
		why:  "Sampled: every served release from v1.0.61 on, and v1.0.34 and v1.0.50; the other older served releases (v1.0.14-go1.18, v1.0.19, v1.0.53 to v1.0.60) are left out to keep the generator's run short. Each runs with client-side caching off (DisableCache: RESP2, waiters poll); the rueidislock-csc row runs its default mode"},
	{name: "rueidislock-csc", module: "github.com/redis/rueidis", setup: "rueidislock_csc",
		sample: func(served []string) []string {
			var out []string
			for _, v := range served {
				if slices.Contains([]string{"v1.0.50", "v1.0.61", "v1.0.69"}, v) {
					out = append(out, v)
				}
			}
			return out
		},
		skip: map[string]string{"crash": "as rueidislock's: a crashed client's goroutines stay blocked in the run's bubble and such a run is refused"},
		why:  "rueidislock in its default mode, client-side caching on: RESP3, CLIENT TRACKING ON OPTOUT, waiters woken only by invalidations pushed through the simulated network (v1.0.34 and older have no polling fallback at all). Dialing with DialFn, which every served release has. Without NoLoopTracking (the default) the holder re-extends its keys on every invalidation of its own writes, a loop at the round-trip pace that real Redis 7.0 shows too (docs/realclient.md). Sampled: v1.0.50, v1.0.61, v1.0.69 and the current version. v1.0.19 and v1.0.34 are left out: each ran past 5 minutes of wall time for one cell in the generator (v1.0.34 was seen to spin when its locker closes at a run's end without letting virtual time advance, so every run waits out the stuck watchdog, realclient.StuckAfter, a minute of wall time, and is refused as stuck): a harness limit, not a verdict on the library"},
	{name: "valkeylock", module: "github.com/valkey-io/valkey-go", setup: "valkeylock", pin: "v1.0.80",
		sample: func(served []string) []string {
			var out []string
			for _, v := range served {
				if slices.Contains([]string{"v1.0.53", "v1.0.67", "v1.0.70", "v1.0.73", "v1.0.76", "v1.0.80"}, v) {
					out = append(out, v)
				}
			}
			return out
		},
		skip: map[string]string{"crash": "as rueidislock's (valkeylock is its fork): a crashed client's goroutines stay blocked in the run's bubble and such a run is refused"},
		why:  "valkey-go's valkeylock, a fork of rueidislock, with the same setup (caching off, one client, dialing through the simulation). Not required by realclient/libs/go.mod: its current version is the latest served release when the page was generated (pinned in matrix_test.go). Sampled: six of the sixteen served releases"},
	{name: "go-zero", module: "github.com/zeromicro/go-zero", setup: "gozero",
		sample: func(served []string) []string {
			var out []string
			for _, v := range served {
				if v == "v1.9.2" || v == "v1.10.3" {
					out = append(out, v)
				}
			}
			return out
		},
		why: "go-zero's core/stores/redis RedisLock, which builds and caches its own go-redis client by address: through redis.WithHook(Env.Hook) on an address of each process's own (Env.Addr), its cached client closed at the process's end. Sampled: v1.9.2 (maintenance notifications left in go-redis's auto mode) and v1.10.3 (turned off). Its histories are not reproducible (MinIdleConns 8 dials race the hook; see docs/realclient.md), so a failing cell's replay may differ"},
}

// matrixKinds are the fault kinds of a cell, after "none" (no faults):
// the generator's default kinds (client clock faults go to nodes only:
// one bubble, one clock).
func matrixKinds() []string {
	out := []string{"none"}
	for _, k := range scenarios.DefaultKinds {
		out = append(out, string(k))
	}
	return out
}

// matrixInputs are what the page was generated from: the simulator and
// harness fingerprints and the versions pinned in this module's go.mod.
func matrixInputs(t *testing.T) []string {
	t.Helper()
	harness, err := fingerprint.Compute("..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	pins := pinnedVersions(string(mod))
	in := []string{"simulator fingerprint (internal/fingerprint.Sum): " + fingerprint.Sum,
		"harness fingerprint (realclient's sources): " + harness,
		"go-redis pinned in realclient/libs/go.mod (a throwaway module links the highest of realclient's floor and the library's requirement; the version tables name it): " + pins["github.com/redis/go-redis/v9"]}
	for _, l := range matrixLibs {
		if l.pin != "" {
			in = append(in, l.module+" (matrix_test.go): "+l.pin)
			continue
		}
		in = append(in, l.module+" (realclient/libs/go.mod): "+pins[l.module])
	}
	in = append(in, nodeInputs(t)...)
	in = append(in, fmt.Sprintf("runs per cell: %d (seeds 1..%d)", matrixRuns, matrixRuns), "fault kinds: "+strings.Join(matrixKinds(), ", "))
	return in
}

func pinnedVersions(mod string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(mod, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && strings.HasPrefix(f[1], "v") {
			out[f[0]] = f[1]
		}
	}
	return out
}

const inputsBegin, inputsEnd = "<!-- inputs: begin -->", "<!-- inputs: end -->"

// recordedInputs reads the inputs block of the page.
func recordedInputs(page string) ([]string, error) {
	_, rest, ok := strings.Cut(page, inputsBegin)
	block, _, ok2 := strings.Cut(rest, inputsEnd)
	if !ok || !ok2 {
		return nil, fmt.Errorf("no %s ... %s block", inputsBegin, inputsEnd)
	}
	var out []string
	for _, l := range strings.Split(block, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "- "); ok {
			out = append(out, strings.ReplaceAll(s, "`", ""))
		}
	}
	return out, nil
}

// TestLibraryMatrixFresh fails when docs/library-matrix.md was generated
// from other inputs than this checkout's: another simulator or harness, or
// other library versions pinned here. It does not run the matrix.
func TestLibraryMatrixFresh(t *testing.T) {
	b, err := os.ReadFile(matrixPage)
	if err != nil {
		t.Fatal(err)
	}
	got, err := recordedInputs(string(b))
	if err != nil {
		t.Fatalf("%s: %v", matrixPage, err)
	}
	want := matrixInputs(t)
	if !slices.Equal(got, want) {
		t.Errorf("docs/library-matrix.md is stale: regenerate it (make library-matrix).\nrecorded:\n  %s\nnow:\n  %s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// cellResult is one cell as the throwaway module's TestCell writes it.
type cellResult struct {
	Kind      string   `json:"kind"`
	Failed    bool     `json:"failed"`
	Broken    []string `json:"broken"`
	Schedule  string   `json:"schedule"`
	Mechanism string   `json:"mechanism"`
	Seed      uint64   `json:"seed"`
	Modules   []string `json:"modules"`
	Replayed  bool     `json:"replayed"`
	// From the go test output: why a failed cell saved no case.
	Message string `json:"-"`
	Held    string `json:"-"`
	skipped bool
}

// versionRun is one library version's row.
type versionRun struct {
	version string
	cells   []cellResult
	err     string // the module did not build or the test did not run
}

func TestLibraryMatrix(t *testing.T) {
	if !*regenerate {
		t.Skip("regenerates docs/library-matrix.md: go test -run '^TestLibraryMatrix$' -timeout 60m -args -regenerate")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	pins := pinnedVersions(string(mod))
	npm, err := npmPins(nodeLockFile)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range npm {
		pins["npm:"+k] = v
	}
	var page bytes.Buffer
	results := map[string][]versionRun{}
	for _, l := range nodeLibs {
		vr := runNodeCell(t, l, l.current(pins))
		t.Logf("%s %s: %s", l.name, vr.version, summarize(vr))
		results[l.name] = append(results[l.name], vr)
	}
	for _, l := range matrixLibs {
		served, err := goOut(t, "", "list", "-m", "-versions", l.module)
		if err != nil {
			t.Fatalf("go list -m -versions %s: %v", l.module, err)
		}
		versions := strings.Fields(served)[1:]
		if l.sample != nil {
			versions = l.sample(versions)
		}
		if !slices.Contains(versions, l.current(pins)) {
			versions = append(versions, l.current(pins))
		}
		for _, v := range versions {
			vr := runCell(t, root, l, v)
			t.Logf("%s %s: %s", l.name, v, summarize(vr))
			results[l.name] = append(results[l.name], vr)
		}
	}
	var pairs []pairRow
	for _, p := range publishedPairs {
		row := pairRow{p: p}
		for i, v := range []string{p.buggy, p.fixed} {
			r, err := runPair(t, p, v)
			row.res[i], row.err[i] = r, err
		}
		pairs = append(pairs, row)
	}
	writeMatrix(&page, matrixInputs(t), pins, results)
	writePairs(&page, pairs)
	writeNodePairs(t, &page)
	if err := os.WriteFile(matrixPage, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func goOut(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%v: %s", err, lastLines(stderr.String(), 3))
	}
	return string(out), nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " / ")
}

// throwawayGoMod is the go.mod of a module that pins module at version and
// replaces locksim and locksim/realclient with this checkout.
func throwawayGoMod(root, module, version string) string {
	return fmt.Sprintf("module cell\n\ngo 1.26.8\n\nrequire (\n\tlocksim v0.0.0\n\tlocksim/realclient v0.0.0\n\t%s %s\n)\n\nreplace locksim => %s\n\nreplace locksim/realclient => %s\n",
		module, version, root, filepath.Join(root, "realclient"))
}

// runCell builds the throwaway module for library l at version v and runs
// its cell test.
func runCell(t *testing.T, root string, l matrixLib, v string) versionRun {
	t.Helper()
	vr := versionRun{version: v}
	dir := t.TempDir()
	gomod := throwawayGoMod(root, l.module, v)
	cell, err := os.ReadFile("testdata/matrix/cell_test.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := os.ReadFile("testdata/matrix/lib_" + l.setup + ".go.txt")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"go.mod": []byte(gomod), "cell_test.go": cell, "lib_test.go": lib} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := goOut(t, dir, "mod", "tidy"); err != nil {
		vr.err = "go mod tidy: " + err.Error()
		return vr
	}
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, k := range matrixKinds() {
		if l.skip[k] == "" {
			kinds = append(kinds, k)
		}
	}
	cmd := exec.Command("go", "test", "-json", "-count=1", "-timeout", "20m", "-run", "^TestCell$", ".", "-args",
		"-kinds="+strings.Join(kinds, ","), fmt.Sprintf("-runs=%d", matrixRuns), "-out="+out)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LOCKSIM_REPORT_DIR=")
	stdout, _ := cmd.Output() // a failing cell fails the test: read its JSON
	return readCells(t, l, vr, stdout, out, "TestCell/")
}

// readCells reads a row's cells: cells.json in out, and the messages of
// the cell test's go test -json (test2json) output, by subtest (prefix is
// the test's name and a slash).
func readCells(t *testing.T, l matrixLib, vr versionRun, stdout []byte, out, prefix string) versionRun {
	t.Helper()
	text := map[string]*strings.Builder{}
	for _, line := range strings.Split(string(stdout), "\n") {
		var ev struct{ Action, Test, Output string }
		if json.Unmarshal([]byte(line), &ev) != nil || (ev.Action != "output" && ev.Action != "build-output") {
			continue
		}
		k, ok := strings.CutPrefix(ev.Test, prefix)
		if !ok {
			k = ""
		}
		if text[k] == nil {
			text[k] = &strings.Builder{}
		}
		text[k].WriteString(ev.Output)
	}
	b, err := os.ReadFile(filepath.Join(out, "cells.json"))
	if err != nil {
		all := ""
		if text[""] != nil {
			all = text[""].String()
		}
		why := lastLines(all, 2)
		for _, line := range strings.Split(all, "\n") {
			if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "./") {
				why = line
				break
			}
		}
		vr.err = "the cell test did not finish: " + strings.TrimSpace(why)
		return vr
	}
	var got []cellResult
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range matrixKinds() {
		if why := l.skip[k]; why != "" {
			vr.cells = append(vr.cells, cellResult{Kind: k, Failed: true, Message: "not run: " + why, skipped: true})
			continue
		}
		for _, c := range got {
			if c.Kind == k {
				vr.cells = append(vr.cells, c)
			}
		}
	}
	for i := range vr.cells {
		c := &vr.cells[i]
		if text[c.Kind] == nil || c.skipped {
			continue
		}
		for _, line := range strings.Split(text[c.Kind].String(), "\n") {
			line = strings.TrimSpace(line)
			// A held log's "linked: " line follows its headline
			// (harness.HeldText).
			if l, ok := strings.CutPrefix(line, "linked: "); ok && c.Held != "" && !strings.Contains(c.Held, "; linked: ") {
				c.Held += "; linked: " + l
				continue
			}
			if _, m, ok := strings.Cut(line, "realclient: "); ok {
				if strings.Contains(m, " held in ") {
					c.Held = m
				} else if c.Message == "" && !strings.Contains(m, " broke ") && !strings.HasPrefix(m, "run ") {
					c.Message = m
				}
			}
		}
	}
	return vr
}

// verdict is a cell's word for the tables.
func (c cellResult) verdict() string {
	switch {
	case !c.Failed:
		return "held"
	case len(c.Broken) > 0:
		return "broke " + strings.Join(c.Broken, "+")
	case c.skipped:
		return "not run"
	default:
		return "refused"
	}
}

func summarize(vr versionRun) string {
	if vr.err != "" {
		return "not run: " + vr.err
	}
	var parts []string
	for _, c := range vr.cells {
		parts = append(parts, c.Kind+"="+c.verdict())
	}
	return strings.Join(parts, " ")
}

// linked is the library's module as the runs linked it: from a broken
// cell's case (Result.Modules), else from a held cell's log
// (its "linked: module version, ..." line).
func linked(cells []cellResult, module string) string {
	for _, c := range cells {
		mods := c.Modules
		if _, l, ok := strings.Cut(c.Held, "; linked: "); ok && len(mods) == 0 {
			mods = strings.Split(l, ", ")
		}
		for _, m := range mods {
			if p, v, ok := strings.Cut(m, "@"); ok && p == module {
				return v
			}
			if strings.HasPrefix(m, module+" ") {
				return strings.TrimPrefix(m, module+" ")
			}
		}
	}
	return "(not seen)"
}

func writeMatrix(b *bytes.Buffer, inputs []string, pins map[string]string, results map[string][]versionRun) {
	kinds := matrixKinds()
	fmt.Fprintf(b, "# Library matrix\n\n")
	fmt.Fprintf(b, "Generated by `make library-matrix` (`cd realclient/libs && go test -run '^TestLibraryMatrix$' -timeout 60m -args -regenerate`); do not edit by hand.\n")
	fmt.Fprintf(b, "Each cell is a fixed small check: `realclient.Check` with `WithFaults(kind)`, `WithRuns(%d)` and `WithSeed(1)` (the same seeds for every library and version; \"none\" is no faults), in a throwaway module that pins the library version and replaces `locksim` and `locksim/realclient` with this checkout. A break shows the minimal schedule the check shrank to and the first violation's explanation (the harness's own failure report, replayed from the saved case). The Node.js rows (named npm-...) run the same check on the JavaScript lock module through the Node bridge (`locksim/realclient/node`, docs/node.md), at the one version `realclient/node/js/package-lock.json` pins, installed by `npm ci`; their linked column is what npm installed. `held` means no counted invariant broke in those %d runs: a sample, not a proof. `TestLibraryMatrixFresh` (in `make test`) fails when the inputs below differ from the checkout's.\n\n", matrixRuns, matrixRuns)
	fmt.Fprintf(b, "## Recorded inputs\n\n%s\n", inputsBegin)
	for _, in := range inputs {
		k, v, _ := strings.Cut(in, ": ")
		fmt.Fprintf(b, "- %s: `%s`\n", k, v)
	}
	fmt.Fprintf(b, "%s\n\n", inputsEnd)
	fmt.Fprintf(b, "## Current versions\n\n| library | version (linked) | %s |\n|---|---|%s\n", strings.Join(kinds, " | "), strings.Repeat("---|", len(kinds)))
	var breaks []string
	libs := append(slices.Clone(matrixLibs), nodeLibs...)
	for _, l := range libs {
		for _, vr := range results[l.name] {
			if vr.version != l.current(pins) {
				continue
			}
			if vr.err != "" {
				fmt.Fprintf(b, "| %s | %s | not judged: %s |\n", l.name, vr.version, vr.err)
				continue
			}
			fmt.Fprintf(b, "| %s | %s (%s) |", l.name, vr.version, linked(vr.cells, l.module))
			for _, c := range vr.cells {
				fmt.Fprintf(b, " %s |", c.verdict())
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	for _, l := range libs {
		fmt.Fprintf(b, "## %s: versions\n\n", l.name)
		if l.why != "" {
			fmt.Fprintf(b, "%s.\n\n", l.why)
		}
		for _, k := range slices.Sorted(maps.Keys(l.skip)) {
			fmt.Fprintf(b, "Fault kind %s not run: %s.\n\n", k, l.skip[k])
		}
		fmt.Fprintf(b, "| version | linked | %s |\n|---|---|%s\n", strings.Join(kinds, " | "), strings.Repeat("---|", len(kinds)))
		for _, vr := range results[l.name] {
			if vr.err != "" {
				fmt.Fprintf(b, "| %s | - | not judged: %s |\n", vr.version, strings.ReplaceAll(vr.err, "|", "\\|"))
				continue
			}
			lk := linked(vr.cells, l.module)
			if gr := linked(vr.cells, "github.com/redis/go-redis/v9"); gr != "(not seen)" {
				lk += "; go-redis " + gr
			}
			if io := linked(vr.cells, "ioredis"); l.npm != "" && io != "(not seen)" {
				lk += "; ioredis " + io
			}
			fmt.Fprintf(b, "| %s | %s |", vr.version, lk)
			for _, c := range vr.cells {
				fmt.Fprintf(b, " %s |", c.verdict())
				switch {
				case len(c.Broken) > 0:
					breaks = append(breaks, fmt.Sprintf("- **%s %s, %s**: broke %s (seed %d; replayed to the same history: %v). Schedule: `%s`. Mechanism: %s",
						l.name, vr.version, c.Kind, strings.Join(c.Broken, ", "), c.Seed, c.Replayed, oneLine(c.Schedule), oneLine(c.Mechanism)))
				case c.Failed && !c.skipped:
					breaks = append(breaks, fmt.Sprintf("- **%s %s, %s**: not judged: %s", l.name, vr.version, c.Kind, oneLine(c.Message)))
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "## Not in the matrix\n\n")
	for _, n := range notInMatrix {
		fmt.Fprintf(b, "- %s\n", n)
	}
	fmt.Fprintf(b, "\n## Breaks and refusals\n\n")
	fmt.Fprintf(b, "The breaks under node-crash and clock-jump are limits every TTL lock on Redis shares (a node restarted without persistence forgets the key; a node clock jumping forward expires it early), and bsm/redislock's break under pause is its design (it offers no validity: a holder paused past its TTL still writes). None of them is a library bug; see docs/realclient.md. Among the Node rows, redis-semaphore's break under pause is its design too (its Mutex offers no validity bound: a holder learns of a lost lease only when a refresh fails, so one paused past the TTL still writes), and the redlock rows' acquire-deadline under node-crash is how their retries meet ioredis's reconnection: an attempt sent while the node is down waits for the reconnection (connectTimeout 1 s, the offline queue), so the acquisition gives up seconds after the caller's wait (docs/node.md).\n\n")
	if len(breaks) == 0 {
		b.WriteString("None.\n")
	}
	for _, s := range breaks {
		b.WriteString(s + "\n")
	}
}

// notInMatrix are the libraries the issue names that have no row, and why.
var notInMatrix = []string{
	"bsm/redis-lock (github.com/bsm/redis-lock): written for go-redis v6, and the module proxy this project builds against refuses it (`go list -m -versions github.com/bsm/redis-lock`: 403, \"This module version is not available\"), so no version of it can be pinned and built here; a v6 adapter for it would have nothing to run. realclient has adapters for go-redis v9 (realclient) and v8 (realclient/goredisv8). Its successor, bsm/redislock, has a row.",
}

// pairRow is one published pair's two runs, buggy then fixed.
type pairRow struct {
	p   publishedPair
	res [2]pairResult
	err [2]error
}

func writePairs(b *bytes.Buffer, rows []pairRow) {
	fmt.Fprintf(b, "\n## Published history: buggy and fixed releases\n\n")
	fmt.Fprintf(b, "Each pair is a released bug and its released fix, both served by the Go module proxy and pinned by exact version (`realclient/libs/pairs_test.go`, `TestPublishedPairs`), run under the same schedule and seed.\n\n")
	for _, r := range rows {
		fmt.Fprintf(b, "### %s (%s)\n\nSource: %s.\n\nSchedule: `%s` (%s).\n\nMechanism: %s.\n\n", r.p.name, r.p.module, r.p.source, strings.Join(r.p.faults, "; "), strings.Join(r.p.args, " "), r.p.mechanism)
		for i, v := range []string{r.p.buggy, r.p.fixed} {
			role := []string{"buggy", "fixed"}[i]
			if r.err[i] != nil {
				fmt.Fprintf(b, "- %s %s: not run: %s\n", role, v, oneLine(r.err[i].Error()))
				continue
			}
			verdict := "held"
			if len(r.res[i].Broken) > 0 {
				verdict = "broke " + strings.Join(r.res[i].Broken, ", ") + ": " + oneLine(r.res[i].Explanation)
			}
			fmt.Fprintf(b, "- %s %s (linked %s): %s\n", role, v, linkedVersion(r.res[i].Modules, r.p.module), verdict)
		}
		b.WriteString("\n")
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", "\\|")
}

// semverLess compares two vMAJOR.MINOR.PATCH versions (suffixes after a
// '-' compare as text).
func semverLess(a, b string) bool {
	pa, pb := strings.Split(strings.TrimPrefix(a, "v"), "."), strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < 3 && i < len(pa) && i < len(pb); i++ {
		var x, y int
		fmt.Sscanf(pa[i], "%d", &x)
		fmt.Sscanf(pb[i], "%d", &y)
		if x != y {
			return x < y
		}
	}
	return false
}
