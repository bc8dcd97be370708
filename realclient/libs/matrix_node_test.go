package libs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"locksim"
	"locksim/realclient"
	"locksim/realclient/node"
	"locksim/report"
	"locksim/sim"
)

// The Node.js rows of the library matrix: each npm lock library at the
// version realclient/node/js/package-lock.json pins (one lock file for
// everything Node in the repository, installed by npm ci: the matrix
// judges what the repository installs, not a range of versions), judged
// per fault kind by the same fixed small seeded check as a Go row. A cell
// runs in this test binary again (TestNodeCell, -node.cell), since a
// failing realclient.Check fails its test.

// nodeDir is realclient/node, seen from this package.
const nodeDir = "../node"

// nodeLockFile is the npm lock file the Node rows' versions come from.
const nodeLockFile = nodeDir + "/js/package-lock.json"

var nodeCell = flag.String("node.cell", "", "TestNodeCell (run by TestLibraryMatrix): the Node library row to judge, by name")

// nodeLibs are the Node rows: module is the npm package, npm the
// package-lock.json entry (an npm alias where two versions are pinned),
// js the lock module relative to realclient/node.
var nodeLibs = []matrixLib{
	{name: "npm-redlock", module: "redlock", npm: "redlock", js: "js/libs/redlock-4.2.0.cjs",
		why: "redlock 4.2.0 (Bluebird) on ioredis, one client per master (js/libs/redlock-4.2.0.cjs), as pinned by realclient/node/js/package-lock.json and run through the Node bridge (docs/node.md). One version: the lock file pins one"},
	{name: "npm-redlock5", module: "redlock", npm: "redlock5", js: "js/libs/redlock-5.0.0-beta.2.cjs",
		why: "redlock 5.0.0-beta.2 (the npm alias redlock5), on ioredis (js/libs/redlock-5.0.0-beta.2.cjs). One version: the lock file pins one"},
	{name: "npm-sesamecare-redlock", module: "@sesamecare-oss/redlock", npm: "@sesamecare-oss/redlock", js: "js/libs/sesamecare-redlock-1.4.0.cjs",
		nodeOpts: []realclient.Option{realclient.WithValueArg(2)},
		why:      "@sesamecare-oss/redlock 1.4.0 on ioredis (js/libs/sesamecare-redlock-1.4.0.cjs); its scripts take the database number as ARGV[1] and the value as ARGV[2], so its cells run with realclient.WithValueArg(2). One version: the lock file pins one"},
	{name: "npm-redis-semaphore", module: "redis-semaphore", npm: "redis-semaphore", js: "js/libs/redis-semaphore-5.8.0.cjs",
		why: "redis-semaphore 5.8.0's Mutex on ioredis (js/libs/redis-semaphore-5.8.0.cjs): its own refresh timer keeps the lease, and it says it holds until onLockLost fires. One version: the lock file pins one (5.3.0 and 5.3.1 are the published pair below)"},
}

// npmPins are the top-level packages of an npm lock file: the entry's
// name (an alias's own name) to its version.
func npmPins(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	out := map[string]string{}
	for k, p := range lock.Packages {
		name, ok := strings.CutPrefix(k, "node_modules/")
		if ok && !strings.Contains(name, "/node_modules/") && p.Version != "" {
			out[name] = p.Version
		}
	}
	return out, nil
}

// nodeInputs are the Node rows' recorded inputs: the versions the lock
// file pins (the rows', the published pair's, ioredis) and a fingerprint
// of the lock modules the rows run (the bridge itself is in the harness
// fingerprint: node.go embeds it).
func nodeInputs(t *testing.T) []string {
	t.Helper()
	pins, err := npmPins(nodeLockFile)
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	add := func(label, alias string) {
		v := pins[alias]
		if v == "" {
			t.Fatalf("%s pins no %s", nodeLockFile, alias)
		}
		in = append(in, label+" (realclient/node/js/package-lock.json): "+v)
	}
	for _, l := range nodeLibs {
		label := l.module
		if l.npm != l.module {
			label += " as " + l.npm
		}
		add(label, l.npm)
	}
	for _, p := range node.Pairs {
		add(p.Package+" as "+p.BuggyAlias, p.BuggyAlias)
		add(p.Package+" as "+p.FixedAlias, p.FixedAlias)
	}
	add("ioredis", "ioredis")
	files, err := filepath.Glob(filepath.Join(nodeDir, "js", "libs", "*.cjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no lock modules in %s/js/libs: %v", nodeDir, err)
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(f), len(b))
		h.Write(b)
	}
	in = append(in, "Node lock modules (realclient/node/js/libs/*.cjs): "+hex.EncodeToString(h.Sum(nil))[:16])
	return in
}

// installed is what npm installed for a row's entry: "package version"
// (the linked column), or why it is missing.
func installed(alias string) (string, error) {
	b, err := os.ReadFile(filepath.Join(nodeDir, "js", "node_modules", filepath.FromSlash(alias), "package.json"))
	if err != nil {
		return "", fmt.Errorf("not installed (run make node-deps): %v", err)
	}
	var p struct{ Name, Version string }
	if err := json.Unmarshal(b, &p); err != nil {
		return "", err
	}
	// npm installs a version as published ("v5.0.0-beta.2") and records
	// it cleaned in the lock file ("5.0.0-beta.2"): say it as npm does.
	return p.Name + " " + strings.TrimPrefix(p.Version, "v"), nil
}

func nodeLib(name string) (matrixLib, bool) {
	for _, l := range nodeLibs {
		if l.name == name {
			return l, true
		}
	}
	return matrixLib{}, false
}

// TestNodeCell is one Node row's cells, as the Go rows' throwaway TestCell
// (testdata/matrix/cell_test.go.txt) does them: the same seeded check per
// fault kind, the case saved and replayed for its explanation, the
// summary in -out/cells.json.
func TestNodeCell(t *testing.T) {
	if *nodeCell == "" {
		t.Skip("one Node row of the library matrix: run by TestLibraryMatrix (-regenerate) with -node.cell")
	}
	l, ok := nodeLib(*nodeCell)
	if !ok {
		t.Fatalf("no Node row %q", *nodeCell)
	}
	if err := node.CheckVersion(); err != nil {
		t.Fatal(err)
	}
	inst, err := installed(l.npm)
	if err != nil {
		t.Fatal(err)
	}
	ioredis, err := installed("ioredis")
	if err != nil {
		t.Fatal(err)
	}
	setup := node.Setup(filepath.Join(nodeDir, l.js))
	var cells []cellResult
	for _, k := range strings.Split(*cellKinds, ",") {
		dir := filepath.Join(*cellOut, "cases", k)
		opts := append([]realclient.Option{realclient.WithName(l.name), realclient.WithRuns(*cellRuns), realclient.WithSeed(1), realclient.WithCaseDir(dir)}, l.nodeOpts...)
		if k == "none" {
			opts = append(opts, realclient.WithFaults())
		} else {
			opts = append(opts, realclient.WithFaults(sim.FaultKind(k)))
		}
		ok := t.Run(k, func(t *testing.T) { realclient.Check(t, setup, opts...) })
		c := cellResult{Kind: k, Failed: !ok, Modules: []string{inst, ioredis}}
		if cs, err := locksim.LoadCase(filepath.Join(dir, locksim.CaseName(t.Name()+"/"+k)+".json")); err == nil {
			c.Schedule = strings.TrimSpace(report.FaultList(cs.Spec.Faults))
			c.Seed = cs.Seed
			for _, id := range cs.Broken {
				c.Broken = append(c.Broken, string(id))
			}
			r, err := realclient.Run(t, cs, setup, l.nodeOpts...)
			if err == nil && r.Err == nil {
				c.Replayed = r.History.Hash() == cs.HistoryHash
				for _, v := range r.Violations {
					if c.Mechanism == "" && len(cs.Broken) > 0 && v.Invariant == cs.Broken[0] {
						c.Mechanism = v.Explanation
					}
				}
			}
		}
		cells = append(cells, c)
	}
	b, err := json.MarshalIndent(cells, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*cellOut, "cells.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

var (
	cellKinds = flag.String("node.kinds", "none", "TestNodeCell: comma-separated fault kinds, none for no faults")
	cellRuns  = flag.Int("node.runs", matrixRuns, "TestNodeCell: seeded runs per kind")
	cellOut   = flag.String("node.out", "", "TestNodeCell: directory for cases and cells.json")
)

// runNodeCell judges a Node row: this test binary again, with
// TestNodeCell, through test2json so that its output reads as a Go row's.
func runNodeCell(t *testing.T, l matrixLib, v string) versionRun {
	t.Helper()
	vr := versionRun{version: v}
	if err := node.CheckVersion(); err != nil {
		vr.err = err.Error()
		return vr
	}
	if _, err := installed(l.npm); err != nil {
		vr.err = err.Error()
		return vr
	}
	out := t.TempDir()
	var kinds []string
	for _, k := range matrixKinds() {
		if l.skip[k] == "" {
			kinds = append(kinds, k)
		}
	}
	cmd := exec.Command("go", "tool", "test2json", "-t", os.Args[0], "-test.v=test2json", "-test.count=1", "-test.timeout=20m",
		"-test.run=^TestNodeCell$", "-node.cell="+l.name, "-node.kinds="+strings.Join(kinds, ","), fmt.Sprintf("-node.runs=%d", matrixRuns), "-node.out="+out)
	cmd.Env = append(os.Environ(), "LOCKSIM_REPORT_DIR=")
	stdout, _ := cmd.Output() // a failing cell fails the test: read its JSON
	return readCells(t, l, vr, stdout, out, "TestNodeCell/")
}

// writeNodePairs runs the published npm pairs (node.Pairs, as
// TestPublishedPairs in realclient/node does) and writes their section.
func writeNodePairs(t *testing.T, b *bytes.Buffer) {
	t.Helper()
	fmt.Fprintf(b, "\n## Published history: buggy and fixed npm releases\n\n")
	fmt.Fprintf(b, "Each pair is a released bug and its released fix, both pinned by exact version in `realclient/node/js/package-lock.json` (npm aliases) and run through the Node bridge (`realclient/node/pairs.go`, `TestPublishedPairs` in `realclient/node`), under the same schedule and seed.\n\n")
	for _, p := range node.Pairs {
		fmt.Fprintf(b, "### %s (npm %s)\n\nSource: %s.\n\nSchedule: `%s` (seed %d).\n\nMechanism: %s.\n\n", p.Name, p.Package, p.Source,
			strings.Join(strings.Fields(report.FaultList(p.Case.Spec.Faults)), " "), p.Case.Seed, p.Mechanism)
		if p.AlsoBrokenBoth != "" {
			fmt.Fprintf(b, "Broken in both (not the bug): %s.\n\n", p.AlsoBrokenBoth)
		}
		for i, m := range []string{p.Buggy, p.Fixed} {
			role, alias, v := []string{"buggy", "fixed"}[i], []string{p.BuggyAlias, p.FixedAlias}[i], []string{p.BuggyVersion, p.FixedVersion}[i]
			if err := node.CheckVersion(); err != nil {
				fmt.Fprintf(b, "- %s %s: not run: %s\n", role, v, oneLine(err.Error()))
				continue
			}
			inst, err := installed(alias)
			if err != nil {
				fmt.Fprintf(b, "- %s %s: not run: %s\n", role, v, oneLine(err.Error()))
				continue
			}
			r, err := realclient.Run(t, p.Case, node.Setup(filepath.Join(nodeDir, m)), realclient.WithCriticalSection(p.Section))
			if err == nil && r.Err != nil {
				err = r.Err
			}
			if err != nil {
				fmt.Fprintf(b, "- %s %s: not run: %s\n", role, v, oneLine(err.Error()))
				continue
			}
			var want []string
			for _, x := range r.Violations {
				if x.Invariant == p.Want {
					want = append(want, x.Explanation)
				}
			}
			verdict := string(p.Want) + " held"
			if len(want) > 0 {
				verdict = "broke " + string(p.Want) + ": " + oneLine(want[0])
			}
			fmt.Fprintf(b, "- %s %s (installed %s): %s\n", role, v, inst, verdict)
		}
		b.WriteString("\n")
	}
}
