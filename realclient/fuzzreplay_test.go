package realclient

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A failure go test -fuzz finds is saved and fails again on replay, in a
// fresh process: the always-successful extend passes FuzzTwin's seed
// corpus, so only a mutated input breaks it. The fuzzer runs in this test
// binary (no coverage guidance: it was not built with -fuzz), in a
// temporary directory that receives testdata/fuzz/FuzzTwin; its worker
// must not die while minimizing, and the saved input must fail again.
func TestFuzzFailureReproducesOnReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes for up to a minute")
	}
	dir := t.TempDir()
	env := append(os.Environ(), "REALCLIENT_TWIN=extend-always-ok", "REALCLIENT_CASE_DIR="+t.TempDir())
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.fuzz=^FuzzTwin$", "-test.fuzztime=60s", "-test.parallel=2",
		"-test.fuzzcachedir="+filepath.Join(dir, "cache"))
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	text := string(out)
	if strings.Contains(text, "hung or terminated unexpectedly") {
		t.Fatalf("a fuzz worker died:\n%s", text)
	}
	saved, _ := filepath.Glob(filepath.Join(dir, "testdata", "fuzz", "FuzzTwin", "*"))
	if err == nil || len(saved) != 1 {
		t.Skipf("the fuzzer found no failure in 60s (err %v, saved %v): nothing to replay\n%.2000s", err, saved, text)
	}
	if !strings.Contains(text, "broke mutual-exclusion") {
		t.Fatalf("the fuzz failure is not the extension bug:\n%s", text)
	}
	replay := exec.Command(os.Args[0], "-test.run=^FuzzTwin$/^"+filepath.Base(saved[0])+"$", "-test.count=1", "-test.v")
	replay.Env, replay.Dir = env, dir
	rout, err := replay.CombinedOutput()
	if err == nil || !strings.Contains(string(rout), "broke mutual-exclusion") {
		t.Fatalf("the saved input %s passes on replay (err %v):\n%s\nthe fuzz run:\n%s", saved[0], err, rout, text)
	}
}
