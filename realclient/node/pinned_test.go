package node

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var rewritePinned = flag.Bool("node.rewrite-histories", false, "rewrite testdata/histories.txt with this build's history hashes (only when a change of the simulated runs is deliberate)")

// pinnedFile records, per JavaScript lock and probe, the hash of the
// history of faultyCase (a pause, a partition and a delay, seed 42).
const pinnedFile = "testdata/histories.txt"

// TestHistoriesPinned runs each JavaScript lock and the inputs probe on
// faultyCase and wants the history recorded in testdata/histories.txt,
// byte for byte (its hash): a change of the bridge's protocol or of how
// steps are delivered must leave every simulated event, its time and its
// order as they were. make test runs the hand-written pair's plain-DEL
// lock, redlock 4.2.0 and the probe; make long (-node.long) all of them.
// -node.rewrite-histories records this build's hashes instead.
func TestHistoriesPinned(t *testing.T) {
	requireNode(t)
	want := map[string]string{}
	if f, err := os.Open(pinnedFile); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if name, hash, ok := strings.Cut(sc.Text(), " "); ok && !strings.HasPrefix(name, "#") {
				want[name] = hash
			}
		}
		f.Close()
	} else if !*rewritePinned {
		t.Fatal(err)
	}
	cheap := map[string]bool{"plain-del": true, "redlock-4.2.0": true, "inputs": true}
	got := map[string]string{}
	skipped0 := SkippedSteps.Load()
	for _, m := range append(slices.Clone(modules), probes...) {
		if !*long && !*rewritePinned && !cheap[m.name] {
			continue
		}
		skipped := SkippedSteps.Load()
		h := run(t, m.name, m.path, m.masters, m.opts).History.Hash()
		got[m.name] = h
		t.Logf("%s: %d timer wake-ups with no timer due not delivered", m.name, SkippedSteps.Load()-skipped)
		if *rewritePinned {
			continue
		}
		if w, ok := want[m.name]; !ok {
			t.Errorf("%s: no recorded history in %s (-node.rewrite-histories)", m.name, pinnedFile)
		} else if h != w {
			t.Errorf("%s: the history's hash is %s, %s recorded %s: the simulated run changed", m.name, h, pinnedFile, w)
		}
	}
	if SkippedSteps.Load() == skipped0 {
		t.Errorf("no timer wake-up was skipped: the runs no longer show that skipping one leaves the history as it was")
	}
	if *rewritePinned {
		var b strings.Builder
		b.WriteString("# TestHistoriesPinned: the history hash of faultyCase per JavaScript lock (seed 42)\n")
		for _, m := range append(slices.Clone(modules), probes...) {
			fmt.Fprintf(&b, "%s %s\n", m.name, got[m.name])
		}
		if err := os.WriteFile(pinnedFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
