package consensus

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCoreDoesNotImportRaft keeps the core free of the raft dependency:
// only this package (and the commands that register it) may pull it in.
func TestCoreDoesNotImportRaft(t *testing.T) {
	core := []string{"locksim/sim", "locksim/clock", "locksim/network", "locksim/model", "locksim/scenarios", "locksim/report", "locksim/engine"}
	out, err := exec.Command("go", append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, core...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "go.etcd.io/") || p == "locksim/consensus" {
			t.Errorf("a core package depends on %s", p)
		}
	}
	if !strings.Contains(string(out), "locksim/sim\n") {
		t.Fatalf("go list printed no core package:\n%s", out)
	}
}
