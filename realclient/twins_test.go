package realclient

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	goredislib "github.com/redis/go-redis/v9"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// twinLock is a small go-redis lock written for the tests, with a switch
// for each of three bugs from the field; with every switch off it is the
// correct twin: SET NX PX to acquire (retrying every 20ms until the
// context's deadline), compare-and-PEXPIRE to extend, compare-and-delete
// to release, and a validity (Until) from the moment the SET was sent.
type twinLock struct {
	c     goredislib.Cmdable // a *Client, or a *ClusterClient (cluster_test.go)
	key   string
	name  string
	ttl   time.Duration
	bugs  twinBugs
	n     int
	value string
	until time.Time
	held  bool // the process-local flag of the stickyFlag bug
}

// twinBugs are the switches.
type twinBugs struct {
	// plainDel releases with DEL, without checking the value: a client
	// whose lease expired deletes the next holder's key.
	plainDel bool
	// extendAlwaysOK reports every extension as a success, whatever the
	// script returned (redsync before PRs #38 and #61 compared the
	// script's int64(0) with int(0): never equal).
	extendAlwaysOK bool
	// stickyFlag keeps a process-local "held" flag that Unlock clears only
	// when the key still held the client's value; once an Unlock finds
	// the key expired, every later Lock fails at once (Spring
	// Integration's RedisLockRegistry, issue #1888).
	stickyFlag bool
}

var (
	twinExtend = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`)
	twinRelease = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)
	errTwinHeld    = errors.New("twin: this process already holds the lock")
	errTwinTaken   = errors.New("twin: lock taken")
	errTwinNotHeld = errors.New("twin: lock not held")
)

func newTwin(bugs twinBugs) Setup {
	return func(env Env) (Lock, error) {
		return &twinLock{c: env.Clients[0], key: env.Key, name: env.Client, ttl: env.TTL, bugs: bugs}, nil
	}
}

func (l *twinLock) Lock(ctx context.Context) error {
	if l.bugs.stickyFlag && l.held {
		return errTwinHeld
	}
	l.n++
	l.value = l.name + ":" + strconv.Itoa(l.n)
	for {
		sent := time.Now()
		ok, err := l.c.SetNX(ctx, l.key, l.value, l.ttl).Result()
		if err == nil && ok {
			l.until, l.held = sent.Add(l.ttl), true
			return nil
		}
		select {
		case <-ctx.Done():
			return errTwinTaken
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (l *twinLock) Extend(ctx context.Context) error {
	sent := time.Now()
	n, err := twinExtend.Run(ctx, l.c, []string{l.key}, l.value, l.ttl.Milliseconds()).Int64()
	if err != nil {
		return err
	}
	if n == 0 && !l.bugs.extendAlwaysOK {
		return errTwinNotHeld
	}
	l.until = sent.Add(l.ttl)
	return nil
}

func (l *twinLock) Unlock(ctx context.Context) error {
	if l.bugs.plainDel {
		l.held = false
		return l.c.Del(ctx, l.key).Err()
	}
	n, err := twinRelease.Run(ctx, l.c, []string{l.key}, l.value).Int64()
	if err != nil {
		return err
	}
	if n == 0 {
		if !l.bugs.stickyFlag {
			l.held = false
		}
		return errTwinNotHeld
	}
	l.held = false
	return nil
}

func (l *twinLock) Until() time.Time { return l.until }

// twinBuilds names the twin lock's builds for TestCheckCatchesEachBugAndPassesItsTwin.
var twinBuilds = map[string]twinBugs{
	"correct":          {},
	"plain-del":        {plainDel: true},
	"extend-always-ok": {extendAlwaysOK: true},
	"sticky-flag":      {stickyFlag: true},
}

// realclient.Check at its default budget (100 generated runs) catches the
// plain-DEL release, the always-successful extend and the sticky local
// flag, and passes the correct twin under the same fault model.
//
// The test starts itself as a process of its own; there (build, ok := twinBuilds[os.Getenv("REALCLIENT_TWIN")]; ok) it is
// the child that the rest of the test judges.
func TestCheckCatchesEachBugAndPassesItsTwin(t *testing.T) {
	if build, ok := twinBuilds[os.Getenv("REALCLIENT_TWIN")]; ok {
		var exhaustive []Option
		if n, err := strconv.Atoi(os.Getenv("REALCLIENT_EXHAUSTIVE")); err == nil {
			// TestExhaustiveCheckTwins: one configuration, every placement.
			exhaustive = append(exhaustive, WithExhaustive(n), WithWorkload(model.Workload{Cycles: 2, Work: 50 * time.Millisecond, Start: 5 * time.Millisecond}))
			if kinds := os.Getenv("REALCLIENT_EXHAUSTIVE_FAULTS"); kinds != "" {
				// TestExhaustiveCheckTwins under -short: fewer kinds.
				var ks []sim.FaultKind
				for _, k := range strings.Split(kinds, ",") {
					ks = append(ks, sim.FaultKind(k))
				}
				exhaustive = append(exhaustive, WithFaults(ks...))
			}
		}
		Check(t, newTwin(build), append([]Option{WithName("twin-" + os.Getenv("REALCLIENT_TWIN")), WithOptions(model.Options{Extend: true}),
			// Without fencing every lock writes stale under a pause between
			// its check and its write, and a single node without fsync or
			// with a fast clock loses every lock: what these bugs break is
			// exclusion and liveness under faults a correct single-node lock
			// survives.
			WithInvariants(invariant.MutualExclusion, invariant.Liveness),
			WithFaults(sim.FaultPause, sim.FaultPartition, sim.FaultDelay, sim.FaultDrop, sim.FaultNodeCrash),
			WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}),
			WithCaseDir(os.Getenv("REALCLIENT_CASE_DIR"))}, exhaustive...)...)
		return
	}
	want := map[string]string{"correct": "", "plain-del": "mutual-exclusion", "extend-always-ok": "mutual-exclusion", "sticky-flag": "liveness"}
	// rapid shrinks a failure until its -rapid.shrinktime of wall time
	// runs out, so the three buggy builds cost up to 5 s of CPU each on
	// an idle core. What this test checks is the break and the invariant
	// it names, not how small the schedule got (realclient/libs'
	// TestCheckFailsWithMinimalSchedule checks shrinking): under -short
	// the children do not shrink; make long shrinks as before.
	shrink := "-rapid.shrinktime=5s"
	if testing.Short() {
		shrink = "-rapid.shrinktime=0s"
	}
	for _, build := range slices.Sorted(maps.Keys(twinBuilds)) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCheckCatchesEachBugAndPassesItsTwin$", "-test.count=1", "-rapid.seed=1", shrink)
		cmd.Env = append(os.Environ(), "REALCLIENT_TWIN="+build, "REALCLIENT_CASE_DIR="+t.TempDir())
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		text := string(out)
		switch {
		case want[build] == "" && err != nil:
			t.Errorf("%s: the correct twin failed:\n%s", build, text)
		case want[build] != "" && err == nil:
			t.Errorf("%s: passed; want it to break %s", build, want[build])
		case want[build] != "" && !strings.Contains(text, "broke "+want[build]) && !strings.Contains(text, ", "+want[build]):
			t.Errorf("%s: failed without breaking %s:\n%s", build, want[build], text)
		}
		if i := strings.Index(text, "realclient: twin-"); i >= 0 {
			t.Logf("%s: %s", build, strings.SplitN(text[i:], "\n", 2)[0])
		}
	}
}

// FuzzTwin fuzzes the twin build REALCLIENT_TWIN names (default the
// correct one, whose seed corpus passes under plain go test), under the
// twin check's fault model.
func FuzzTwin(f *testing.F) {
	build := cmp.Or(os.Getenv("REALCLIENT_TWIN"), "correct")
	Fuzz(f, newTwin(twinBuilds[build]), WithName("twin-"+build), WithOptions(model.Options{Extend: true}),
		WithInvariants(invariant.MutualExclusion, invariant.Liveness),
		WithFaults(sim.FaultPause, sim.FaultPartition, sim.FaultDelay, sim.FaultDrop, sim.FaultNodeCrash),
		WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}), WithCaseDir(cmp.Or(os.Getenv("REALCLIENT_CASE_DIR"), f.TempDir())))
}

// Plain go test on FuzzTwin's seed corpus fails the plain-DEL build and
// passes the correct one; the failure writes its HTML report to
// LOCKSIM_REPORT_DIR, as Check's do.
func TestFuzzTwinSeedCorpus(t *testing.T) {
	for build, fails := range map[string]bool{"plain-del": true, "correct": false} {
		reports := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^FuzzTwin$", "-test.count=1")
		cmd.Env = append(os.Environ(), "REALCLIENT_TWIN="+build, "REALCLIENT_CASE_DIR="+t.TempDir(), "LOCKSIM_REPORT_DIR="+reports)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if (err != nil) != fails {
			t.Errorf("%s: failed = %v, want %v:\n%s", build, err != nil, fails, out)
		}
		written, _ := filepath.Glob(filepath.Join(reports, "*.html"))
		if fails != (len(written) == 1) {
			t.Errorf("%s: %d reports written to LOCKSIM_REPORT_DIR (%v), want %d", build, len(written), written, map[bool]int{true: 1}[fails])
		}
	}
}
