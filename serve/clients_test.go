package serve

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"locksim/model/invariant"
)

var serveRuns = flag.Int("serve.runs", 0, "real-time runs per library under a pause in TestServeRecurrence (make long: 10; 0: only the no-fault control, the pause runs being docs/serve.md's commands in TestDocCommands)")

// repo is the repository root, seen from this package.
var repo, _ = filepath.Abs("..")

// clientCommand returns the command that runs a library's workload, or
// skips (fails under LOCKSIM_REQUIRE_CLIENTS=1) when make clients has not
// built it.
func clientCommand(t *testing.T, lib string) string {
	t.Helper()
	var need []string
	var cmd string
	switch lib {
	case "redis-py":
		py := filepath.Join(repo, "clients/python/.venv/bin/python")
		need = []string{py, filepath.Join(repo, "clients/python/.venv/.installed")}
		cmd = py + " " + filepath.Join(repo, "clients/python/lockworkload.py")
	case "redisson":
		cp := filepath.Join(repo, "clients/java/target/classpath.txt")
		need = []string{cp, filepath.Join(repo, "clients/java/target/classes/LockWorkload.class")}
		b, _ := os.ReadFile(cp)
		cmd = "java -XX:TieredStopAtLevel=1 -cp " + filepath.Join(repo, "clients/java/target/classes") + ":" + strings.TrimSpace(string(b)) + " LockWorkload"
	}
	for _, p := range need {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("LOCKSIM_REQUIRE_CLIENTS") == "1" {
				t.Fatalf("%s is missing: run make clients (LOCKSIM_REQUIRE_CLIENTS=1 makes this a failure)", p)
			}
			t.Skipf("%s is missing: run make clients", p)
		}
	}
	return cmd
}

// The published unsafe behaviours, reproduced as a recurrence: a holder
// stopped (SIGSTOP) for longer than its lease keeps believing it holds
// the lock while the key expires and the other client is granted it.
//
//   - redis-py's Lock with a timeout does not renew: the key expires
//     after the timeout whatever the holder is doing (redis/redis-py#487,
//     the maintainer: "it's the Redis server that does it and not the
//     Python Lock object"; #3532: the holder learns it only at release,
//     LockNotOwnedError).
//
//   - Redisson's watchdog renews only while the JVM runs: "If for some
//     reason JVM got freezed for the time interval more than
//     lockWatchdogTimeout lock will be released" (redisson/redisson#2665,
//     the maintainer), here with lockWatchdogTimeout 1.5s.
//
//   - through a failover, asynchronous replication loses redis-py's lock
//     (r1 crashes before the key reached r2; r2 is promoted without it).
//
// Each must break in at least one of -serve.runs runs, between A and B;
// the same redis-py workload without the pause must hold, and so must
// Redisson under a pause its watchdog outlasts.
func TestServeRecurrence(t *testing.T) {
	for _, c := range []struct {
		name, lib, a, b, fault string
		breaks                 bool
	}{
		{"redis-py/pause", "redis-py", "--timeout 2 --hold 1 --writes 4", "--timeout 2 --hold 0.5 --writes 2 --start 1", "pause A for 3s after A granted +300ms", true},
		{"redis-py/no-fault", "redis-py", "--timeout 2 --hold 0.5 --writes 2", "--timeout 2 --hold 0.3 --writes 1 --start 0.2", "", false},
		{"redis-py/failover", "redis-py", "--timeout 10 --hold 2 --writes 4", "--timeout 10 --hold 0.3 --writes 1 --start 0.8", "delay r1->r2 +3s at 0s for 20s; node-crash r1 after A granted +100ms", true},
		{"redisson/pause", "redisson", "--watchdog 1500 --hold 1 --writes 4", "--watchdog 1500 --hold 0.5 --writes 2 --start 1", "pause A for 4s after A granted +300ms", true},
		// The twin: a pause shorter than the watchdog's margin; the
		// renewal after it keeps the lock (only in make long).
		{"redisson/short-pause", "redisson", "--watchdog 1500 --hold 1 --writes 4", "--watchdog 1500 --hold 0.5 --writes 2 --start 1", "pause A for 400ms after A granted +300ms", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if (c.breaks || c.fault != "") && *serveRuns < 1 {
				t.Skip("make long runs it (-serve.runs=10); in make test, TestDocCommands runs docs/serve.md's same commands")
			}
			cmd := clientCommand(t, c.lib)
			camp := Campaign{Programs: []Client{{"A", cmd + " " + c.a}, {"B", cmd + " " + c.b}},
				Runs: *serveRuns, Timeout: 60 * time.Second, Out: t.TempDir()}
			if c.fault != "" {
				camp.Faults = faults(t, strings.Split(c.fault, "; ")...)
			}
			if strings.Contains(c.name, "failover") {
				camp.Topology = Topology{Replicas: 1}
			}
			if c.fault == "" {
				camp.Runs = 1
			}
			sum, err := camp.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			sum.Report(&b, camp.Out)
			t.Log(b.String())
			judged, broke := sum.Judged()
			if judged != len(sum.Runs) {
				t.Fatalf("%d of %d runs had no verdict", len(sum.Runs)-judged, len(sum.Runs))
			}
			if !c.breaks {
				if broke != 0 {
					t.Fatalf("broke in %d of %d runs without a fault", broke, judged)
				}
				return
			}
			if broke == 0 {
				t.Fatalf("broke in 0 of %d runs: the published behaviour did not show", judged)
			}
			for _, r := range sum.Runs {
				if !r.Broken() {
					continue
				}
				for _, v := range r.Result.Violations {
					if v.Invariant != invariant.MutualExclusion || strings.Join(v.Clients, ",") != "A,B" {
						t.Errorf("run %d: %s between %v, want mutual-exclusion between A and B", r.N, v.Invariant, v.Clients)
					}
				}
			}
		})
	}
}
