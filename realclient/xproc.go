package realclient

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"locksim/model"
)

// xprocEnv names, in a child process of AcrossProcesses, the run it is to
// make.
const xprocEnv = "REALCLIENT_XPROC_RUN"

// AcrossProcesses makes the run of `run` in n fresh processes (this test
// binary started again, running only the calling test) and returns each
// one's history hash and, when they differ, the first event that does:
// the way to see that a library's run does not depend on what its process
// drew before (crypto/rand, math/rand, math/rand/v2 and map order are
// fresh in each). Call it at the top of a test with a name for the run;
// in a child process it makes the run, prints its history for the
// parent, and returns ok false: the test must then return at once.
func AcrossProcesses(t *testing.T, name string, n int, run func(t *testing.T) *model.Result) (hashes []string, firstDiff string, ok bool) {
	t.Helper()
	if os.Getenv(xprocEnv) != "" {
		if os.Getenv(xprocEnv) == name {
			r := run(t)
			os.Stdout.WriteString("HASH " + r.History.Hash() + "\n")
			for _, e := range r.History {
				os.Stdout.WriteString("EVENT " + e.Line() + "\n")
			}
		}
		return nil, "", false
	}
	var lines [][]string
	for i := 0; i < n; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
		cmd.Env = append(os.Environ(), xprocEnv+"="+name)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: process %d: %v\n%s", name, i, err, out)
		}
		var hash string
		var evs []string
		for _, l := range strings.Split(string(out), "\n") {
			if h, ok := strings.CutPrefix(l, "HASH "); ok {
				hash = h
			} else if e, ok := strings.CutPrefix(l, "EVENT "); ok {
				evs = append(evs, e)
			}
		}
		if hash == "" {
			t.Fatalf("%s: process %d printed no hash:\n%s", name, i, out)
		}
		hashes, lines = append(hashes, hash), append(lines, evs)
	}
	return hashes, firstLineDiff(lines), true
}

// firstLineDiff is the first event at which a history differs from the
// first one, or "" when none does.
func firstLineDiff(runs [][]string) string {
	for j := 1; j < len(runs); j++ {
		a, b := runs[0], runs[j]
		for i := 0; i < min(len(a), len(b)); i++ {
			if a[i] != b[i] {
				return "  event " + strconv.Itoa(i) + ":\n  " + a[i] + "\n  " + b[i]
			}
		}
		if len(a) != len(b) {
			return "  one history is a prefix of the other"
		}
	}
	return ""
}
