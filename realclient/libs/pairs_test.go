package libs

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"locksim/model/invariant"
	"locksim/scenarios"
)

// The corpus from published history: pairs of real published releases, a
// buggy one and its fix, both served by the Go module proxy and pinned
// here by exact version, each from a documented upstream issue or PR. The
// buggy release must break the named invariant under the schedule, and
// the fixed one keep every invariant under the same schedule and seed.
// Each release runs in a throwaway module that pins it (testdata/matrix:
// pair_test.go.txt and the library's setup), so it needs the go command,
// the module proxy (or a warm module cache) and a minute of CPU: it runs
// with -published or -regenerate, not in make test:
//
//	cd realclient/libs && go test -run '^TestPublishedPairs$' -timeout 20m -args -published

var published = flag.Bool("published", false, "run TestPublishedPairs: the published buggy/fixed release pairs, each in a throwaway module")

// onlyPair runs one pair of TestPublishedPairs by name (empty: all).
var onlyPair = flag.String("pair", "", "TestPublishedPairs: run only the pair of this name")

type publishedPair struct {
	name          string
	module, setup string
	buggy, fixed  string
	source        string   // the upstream issue and PR
	faults        []string // scenarios.ParseFault lines
	args          []string // more flags for the pair test
	want          string   // the invariant the buggy release breaks
	mechanism     string
}

var publishedPairs = []publishedPair{{
	name:   "rueidislock-extension-lag",
	module: "github.com/redis/rueidis", setup: "rueidislock",
	buggy: "v1.0.69", fixed: "v1.0.71",
	source: "redis/rueidis issue #923 (\"rueidislock: long-running locks are lost under high CPU load\", https://github.com/redis/rueidis/issues/923), fixed by PR #924 (\"Ensure that monitored lock keys expiration is always ahead of current time by KeyValidity duration\", https://github.com/redis/rueidis/pull/924), first served in v1.0.71",
	faults: []string{"delay r1->A +150ms for 1.8s after A acquired +450ms"},
	args:   []string{"-key-majority=1", "-work=2.5s"},
	want:   "stale-write",
	mechanism: "each extension sets the key's PEXPIREAT to the previous deadline plus the extend interval, not to now plus the validity, " +
		"while the next extension is timed from when the last one returned: every slow reply pushes the extensions later but not the expiry, " +
		"until the key expires between two extensions while the holder's context is still live, and it writes after its key is gone",
}, {
	name:   "valkeylock-extension-lag",
	module: "github.com/valkey-io/valkey-go", setup: "valkeylock",
	buggy: "v1.0.69", fixed: "v1.0.70",
	source: "valkey-go's port of the rueidis fix: commit 1200c3b (https://github.com/valkey-io/valkey-go/commit/1200c3b3db78803a0e1daefb3b30c605e00ba07b, \"Ensure that monitored lock keys expiration is always ahead of current time by KeyValidity duration (#924)\", ref redis/rueidis issue #923), first served in v1.0.70",
	faults: []string{"delay r1->A +150ms for 1.8s after A acquired +450ms"},
	args:   []string{"-key-majority=1", "-work=2.5s"},
	want:   "stale-write",
	mechanism: "valkeylock is valkey-go's fork of rueidislock and had the same extension arithmetic until v1.0.70: " +
		"each extension sets PEXPIREAT to the previous deadline plus the extend interval while the next extension is timed from when the last one returned, " +
		"so slow replies let the key expire between two extensions while the holder's context is still live",
}, {
	name:   "redsync-extend-reports-expired",
	module: "github.com/go-redsync/redsync/v4", setup: "redsync40",
	buggy: "v4.0.3", fixed: "v4.0.4",
	source: "go-redsync/redsync PR #61 (\"Fix Extend and Unlock\", https://github.com/go-redsync/redsync/pull/61: \"Extend and Unlock do not work correctly if the lock expired\"), merge ef3eedd, first served in v4.0.4",
	faults: []string{"pause A for 1.5s after A read"},
	args:   []string{"-extend", "-deadline"},
	want:   "mutual-exclusion",
	mechanism: "the extension script answers 0 when the key is no longer the holder's, and v4.0.3 compares that reply with the string \"ERR\", " +
		"so every node counts as extended: A, paused past its TTL, resumes, its watchdog's Extend reports success on a key that is B's, " +
		"and A (whose deadline is TTL from each successful extension: v4.0.x has no Until) writes while B holds the lock; " +
		"v4.0.4 compares with int64(0), Extend fails and A's deadline stays in the past",
}, {
	name:   "redsync-v1-extend-reports-expired",
	module: "github.com/go-redsync/redsync", setup: "redsync1",
	buggy: "v1.2.0", fixed: "v1.3.0",
	source: "go-redsync/redsync PR #38 (\"fix bug in Extend() and Unlock()\", https://github.com/go-redsync/redsync/pull/38: \"the functions returns true for expired keys\"), merge 1188ac9, first served in v1.3.0",
	faults: []string{"pause A for 1.5s after A read"},
	args:   []string{"-extend", "-deadline"},
	want:   "mutual-exclusion",
	mechanism: "redigo's Script.Do returns the extension script's 0 as an int64 inside an interface, and v1.2.0 compares that interface with the untyped constant 0 (an int), " +
		"which never matches, so every node counts as extended: A, paused past its TTL, resumes, its watchdog's Extend reports success on a key that is B's, " +
		"and A (whose deadline is TTL from each successful extension: v1 has no Until) writes while B holds the lock; v1.3.0 converts with redis.Int64 first",
}, {
	name:   "redsync-extend-error-releases",
	module: "github.com/go-redsync/redsync/v4", setup: "redsync",
	buggy: "v4.12.0", fixed: "v4.12.1",
	source: "go-redsync/redsync PR #150 (\"[bug] Remove clean up on extend fail\", https://github.com/go-redsync/redsync/pull/150), commit 879d3ae, first served in v4.12.1",
	faults: []string{"node-crash r3 after A acquired +100ms"},
	args:   []string{"-masters=3", "-extend", "-ttl=5s", "-work=5s"},
	want:   "mutual-exclusion",
	mechanism: "when the extension script fails with an error on one node, v4.12.0 runs the release script on every node, " +
		"deleting the holder's keys on the nodes where the extension had just succeeded, and still counts those successes: " +
		"Extend reports a quorum and a new deadline while no node holds the key, so the other client acquires on the two live nodes and both hold " +
		"(the error on the crashed node comes after go-redis's own dial retries, about 1.2s, hence a 5s TTL so that the extension still reports success)",
}}

// pairResult is what the throwaway module's TestPair writes.
type pairResult struct {
	Broken      []string `json:"broken"`
	Explanation string   `json:"explanation"`
	Modules     []string `json:"modules"`
	Hash        string   `json:"hash"`
}

// runPair runs one release of a pair in a throwaway module.
func runPair(t *testing.T, p publishedPair, version string) (pairResult, error) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{"cell_test.go": "cell_test.go.txt", "pair_test.go": "pair_test.go.txt", "lib_test.go": "lib_" + p.setup + ".go.txt"}
	for dst, src := range files {
		b, err := os.ReadFile(filepath.Join("testdata", "matrix", src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(throwawayGoMod(root, p.module, version)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := goOut(t, dir, "mod", "tidy"); err != nil {
		return pairResult{}, fmt.Errorf("go mod tidy: %v", err)
	}
	out := filepath.Join(dir, "pair.json")
	args := append([]string{"test", "-count=1", "-timeout", "10m", "-run", "^TestPair$", ".", "-args",
		"-faults=" + strings.Join(p.faults, ";"), "-pair-out=" + out}, p.args...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return pairResult{}, fmt.Errorf("go test: %v: %s", err, lastLines(string(b), 5))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return pairResult{}, err
	}
	var r pairResult
	return r, json.Unmarshal(b, &r)
}

// linkedVersion is the module's version as the run linked it.
func linkedVersion(mods []string, module string) string {
	for _, m := range mods {
		if v, ok := strings.CutPrefix(m, module+" "); ok {
			return v
		}
	}
	return ""
}

// TestPublishedPairs: the buggy release breaks the named invariant, the
// fixed one keeps every invariant under the same schedule, and each run
// linked the release it pinned.
func TestPublishedPairs(t *testing.T) {
	if !*published && !*regenerate {
		t.Skip("builds a throwaway module per release: go test -run '^TestPublishedPairs$' -timeout 20m -args -published")
	}
	for _, p := range publishedPairs {
		if *onlyPair != "" && p.name != *onlyPair {
			continue
		}
		for _, v := range []string{p.buggy, p.fixed} {
			r, err := runPair(t, p, v)
			if err != nil {
				t.Errorf("%s %s: %v", p.name, v, err)
				continue
			}
			t.Logf("%s %s: broken %v: %s", p.name, v, r.Broken, r.Explanation)
			if got := linkedVersion(r.Modules, p.module); got != v {
				t.Errorf("%s %s: the run linked %s %q (modules %v)", p.name, v, p.module, got, r.Modules)
			}
			if v == p.buggy && !slices.Contains(r.Broken, p.want) {
				t.Errorf("%s: buggy %s broke %v, want %s", p.name, v, r.Broken, p.want)
			}
			if v == p.fixed && len(r.Broken) > 0 {
				t.Errorf("%s: fixed %s broke %v under the same schedule: %s", p.name, v, r.Broken, r.Explanation)
			}
		}
	}
}

// TestPublishedPairsWellFormed (cheap, in make test): every pair names a
// setup that exists, a fault schedule that parses, an invariant the
// registry knows, two distinct releases and an upstream URL, so a pair
// cannot rot unnoticed between the -published runs.
func TestPublishedPairsWellFormed(t *testing.T) {
	names := map[string]bool{}
	for _, p := range publishedPairs {
		if names[p.name] {
			t.Errorf("pair %s listed twice", p.name)
		}
		names[p.name] = true
		if _, err := os.Stat(filepath.Join("testdata", "matrix", "lib_"+p.setup+".go.txt")); err != nil {
			t.Errorf("%s: setup %s: %v", p.name, p.setup, err)
		}
		if len(p.faults) == 0 {
			t.Errorf("%s: no faults", p.name)
		}
		for _, f := range p.faults {
			if _, err := scenarios.ParseFault(f); err != nil {
				t.Errorf("%s: %v", p.name, err)
			}
		}
		if _, ok := invariant.Lookup(invariant.ID(p.want)); !ok {
			t.Errorf("%s: unknown invariant %q", p.name, p.want)
		}
		if p.buggy == "" || p.fixed == "" || p.buggy == p.fixed {
			t.Errorf("%s: releases %q and %q", p.name, p.buggy, p.fixed)
		}
		if !strings.Contains(p.source, "https://github.com/") {
			t.Errorf("%s: source %q cites no upstream URL", p.name, p.source)
		}
	}
}
