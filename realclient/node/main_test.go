package node

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var long = flag.Bool("node.long", false, "make long: every Node library across 3 fresh processes, Check on the plain-DEL pair")

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	Shutdown() // reap the warm Node processes, so that their CPU time counts
	os.Exit(code)
}

// requireNode skips a test without a usable node and the installed
// libraries, or fails it under LOCKSIM_REQUIRE_NODE=1 (.ci/run).
func requireNode(t *testing.T) {
	t.Helper()
	err := CheckVersion()
	if err == nil {
		if _, serr := os.Stat(filepath.Join("js", "node_modules", "ioredis")); serr != nil {
			_, npm := exec.LookPath("npm")
			err = errNoModules(npm == nil)
		}
	}
	if err == nil {
		return
	}
	if os.Getenv("LOCKSIM_REQUIRE_NODE") == "1" {
		t.Fatal(err)
	}
	t.Skip(err)
}

type errNoModules bool

func (e errNoModules) Error() string {
	s := "the Node libraries are not installed in realclient/node/js/node_modules: run make test (its node-deps step runs npm ci) or cd realclient/node/js && npm ci"
	if !e {
		s += " (npm was not found: install it, e.g. apt-get install npm)"
	}
	return s
}
