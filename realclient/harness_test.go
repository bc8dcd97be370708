package realclient

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// A pause between the lock's reply and the workload's acquired record
// (A's reply to its SET: after HELLO, and CLIENT SETINFO from go-redis
// v9.5 on, so counted in a fault-free run) makes A record a validity that
// is already spent: a spent validity, not "no validity", so A is not
// judged to hold the lock until its Unlock (the false alarm this fixes),
// and A does not write.
func TestSpentValidityIsNotUnknown(t *testing.T) {
	spec := model.Spec{Workload: model.Workload{Cycles: 1, Work: 50 * time.Millisecond, Start: 10 * time.Millisecond}}
	nth := 0
	for _, e := range runSpec(t, "twin", spec, newTwin(twinBugs{})).History {
		if e.Actor == "A" && e.Kind == sim.KindReply {
			nth++
		}
		if e.Actor == "A" && e.Kind == history.KindAcquired {
			break
		}
	}
	spec.Faults = []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1050 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: sim.KindReply, Nth: nth}}}
	r := runSpec(t, "twin", spec, newTwin(twinBugs{}))
	explain(t, "twin", r)
	var acq *sim.Event
	for i, e := range r.History {
		if e.Actor == "A" && e.Kind == history.KindAcquired {
			acq = &r.History[i]
			break
		}
	}
	if acq == nil || acq.Dur >= 0 {
		t.Fatalf("A's acquired event = %+v, want one with a spent validity (Dur < 0)", acq)
	}
	if slices.Contains(invariant.Broken(r.Violations), invariant.MutualExclusion) {
		t.Errorf("mutual exclusion broken: A's spent validity was read as a lease until release")
	}
	for _, e := range r.History {
		if e.Actor == "A" && e.Kind == history.KindWrite {
			t.Errorf("A wrote with a spent validity: %v", e)
		}
	}
}

// An extension the library reports as successful on a key it no longer
// holds (redsync before PRs #38 and #61) revives the client's belief: A's
// hold ran out during a pause, B took the key, A's watchdog then
// "extended" it, and A holds the lock again while B does: mutual exclusion,
// explained by the extension. The correct twin's extension fails, and
// nothing breaks.
func TestReportedExtensionRevivesTheBelief(t *testing.T) {
	spec := model.Spec{
		Options:  model.Options{Extend: true, RenewEvery: 300 * time.Millisecond},
		Workload: model.Workload{Cycles: 1, Work: 2 * time.Second, Start: 10 * time.Millisecond},
		Faults:   []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1200 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}},
	}
	for _, tc := range []struct {
		bugs twinBugs
		want bool
	}{{twinBugs{extendAlwaysOK: true}, true}, {twinBugs{}, false}} {
		r := runSpec(t, "twin", spec, newTwin(tc.bugs))
		explain(t, "twin", r)
		got := slices.Contains(invariant.Broken(r.Violations), invariant.MutualExclusion)
		if got != tc.want {
			t.Fatalf("%+v: mutual exclusion broken = %v, want %v", tc.bugs, got, tc.want)
		}
		if !tc.want {
			continue
		}
		text := ""
		for _, v := range r.Violations {
			if v.Invariant == invariant.MutualExclusion {
				text = v.Explanation
			}
		}
		if !strings.Contains(text, "A's extension at") || !strings.Contains(text, "reported success after its lease had run out") || !strings.Contains(text, "while the key was B's") {
			t.Errorf("the explanation does not tell of A's revived belief: %s", text)
		}
	}
}

// A careful caller does not believe an extension that came after its own
// lease clock ran out: the same always-successful extend breaks nothing
// in mutual exclusion then, and a trusting caller (no validity) holds
// until Unlock whatever the library says.
func TestCallerModels(t *testing.T) {
	spec := model.Spec{
		Design:   DesignPrefix + "twin",
		Options:  model.Options{Extend: true, RenewEvery: 300 * time.Millisecond},
		Workload: model.Workload{Cycles: 1, Work: 2 * time.Second, Start: 10 * time.Millisecond},
		Faults:   []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1200 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}},
	}
	want := map[Caller]bool{CallerValidity: true, CallerCareful: false, CallerTrusting: true}
	for _, caller := range Callers {
		c, err := newConfig([]Option{WithName("twin"), WithCaller(caller)})
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.run(t, spec.WithDefaults(), 1, newTwin(twinBugs{extendAlwaysOK: true}))
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		if got := slices.Contains(invariant.Broken(r.Violations), invariant.MutualExclusion); got != want[caller] {
			t.Errorf("caller %s: mutual exclusion broken = %v, want %v", caller, got, want[caller])
		}
	}
	if _, err := newConfig([]Option{WithCaller("sloppy")}); err == nil {
		t.Error("an unknown caller model was accepted")
	}
}

// A library whose process-local "held" flag stays set after an Unlock
// found its key expired (Spring Integration's RedisLockRegistry #1888)
// never locks again in that process: each Lock fails at once while the
// lock is free, which per-client liveness judges; the correct twin locks.
func TestRefusedWhileFree(t *testing.T) {
	spec := model.Spec{
		Workload: model.Workload{Cycles: 3, Work: 50 * time.Millisecond, Start: 10 * time.Millisecond, Think: 100 * time.Millisecond},
		Faults:   []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1200 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}},
	}
	for _, tc := range []struct {
		bugs twinBugs
		want bool
	}{{twinBugs{stickyFlag: true}, true}, {twinBugs{}, false}} {
		r := runSpec(t, "twin", spec, newTwin(tc.bugs))
		explain(t, "twin", r)
		var text string
		for _, v := range r.Violations {
			if v.Invariant == invariant.Liveness {
				text = v.Explanation
			}
		}
		if got := text != ""; got != tc.want {
			t.Fatalf("%+v: liveness broken = %v, want %v", tc.bugs, got, tc.want)
		}
		if tc.want && (!strings.Contains(text, "A was refused while the lock was free") || !strings.Contains(text, errTwinHeld.Error())) {
			t.Errorf("the explanation lacks the refusal or its error text: %s", text)
		}
	}
}

// A fail-open caller (LockErrorProceed) runs its section when Lock fails:
// with B holding the lock for long, A's section overlaps B's; skipping (the
// default) does not; retrying gets the lock once B is done.
func TestLockErrorPolicies(t *testing.T) {
	spec := model.Spec{
		Design:   DesignPrefix + "twin",
		Clients:  []string{"B", "A"},
		Options:  model.Options{AcquireWait: 100 * time.Millisecond},
		Workload: model.Workload{Cycles: 1, Work: 300 * time.Millisecond, Start: 20 * time.Millisecond},
	}
	want := map[LockErrorPolicy]bool{LockErrorSkip: false, LockErrorProceed: true, LockErrorRetry: false}
	for _, policy := range []LockErrorPolicy{LockErrorSkip, LockErrorProceed, LockErrorRetry} {
		c, err := newConfig([]Option{WithName("twin"), WithOnLockError(policy), WithInvariants(invariant.MutualExclusion)})
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.run(t, spec.WithDefaults(), 1, newTwin(twinBugs{}))
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		explain(t, string(policy), r)
		if got := slices.Contains(invariant.Broken(r.Violations), invariant.MutualExclusion); got != want[policy] {
			t.Errorf("policy %s: mutual exclusion broken = %v, want %v", policy, got, want[policy])
		}
		acquired := 0
		for _, e := range r.History {
			if e.Actor == "A" && e.Kind == history.KindAcquired && e.Note != NoteUnlocked {
				acquired++
			}
		}
		if policy == LockErrorRetry && acquired != 1 {
			t.Errorf("retry: A acquired %d times, want 1", acquired)
		}
	}
}

var _ = context.Background

// With WithRuns, Check makes seeded runs and shrinks the first failure;
// the case it saves is replayed first by the next run of the test, which
// fails at once while the bug is there and goes on to fresh runs (and
// passes) once the lock is fixed.
//
// The test starts itself as a process of its own; there (dir := os.Getenv("REALCLIENT_CASE_DIR"); dir != "") it is
// the child that the rest of the test judges.
func TestCheckReplaysTheSavedCaseFirst(t *testing.T) {
	if dir := os.Getenv("REALCLIENT_CASE_DIR"); dir != "" {
		build := twinBuilds[os.Getenv("REALCLIENT_TWIN")]
		Check(t, newTwin(build), WithName("twin"), WithOptions(model.Options{Extend: true}), WithRuns(60),
			WithInvariants(invariant.MutualExclusion, invariant.Liveness),
			WithFaults(sim.FaultPause, sim.FaultPartition, sim.FaultDelay, sim.FaultDrop, sim.FaultNodeCrash),
			WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}), WithCaseDir(dir))
		return
	}
	dir := t.TempDir()
	run := func(build string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCheckReplaysTheSavedCaseFirst$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "REALCLIENT_TWIN="+build, "REALCLIENT_CASE_DIR="+dir)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("plain-del")
	if err == nil || !strings.Contains(out, "realclient: twin broke mutual-exclusion") || !strings.Contains(out, "broke a counted invariant") {
		t.Fatalf("first check: want a failure of 60 seeded runs:\n%s", out)
	}
	// The failure names the go-redis linked, with the replay line.
	if !strings.Contains(out, "linked: github.com/redis/go-redis/v9 v9.") || !strings.Contains(out, "replay: go test -run '^TestCheckReplaysTheSavedCaseFirst$' (Check replays the saved case first)") {
		t.Errorf("first check: the failure does not name the linked go-redis and the replay:\n%s", out)
	}
	out, err = run("plain-del")
	if err == nil || !strings.Contains(out, "the saved case still fails") {
		t.Fatalf("second check: want the saved case replayed first, and failing:\n%s", out)
	}
	out, err = run("correct")
	if err != nil || !strings.Contains(out, "no longer fails") || !strings.Contains(out, "held in 60 runs") {
		t.Fatalf("after the fix: want the case to pass and 60 fresh runs to hold:\n%s", out)
	}
	if !regexp.MustCompile(`\n\s*linked: github\.com/redis/go-redis/v9 v9\.`).MatchString(out) {
		t.Errorf("after the fix: the held log does not name the linked go-redis on its linked line:\n%s", out)
	}
}

// A client crash stops the process for good: after it, nothing of A's
// reaches the world until its restart, when setup builds a new process
// that runs its cycles from the start with a fresh lock; A's key, left
// behind, blocks B until its TTL runs out, and nothing breaks.
func TestClientCrashAndRestart(t *testing.T) {
	for _, restart := range []bool{false, true} {
		f := sim.Fault{Kind: sim.FaultCrash, Target: "A", Restart: restart, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}
		if restart {
			f.Dur = 100 * time.Millisecond
		}
		r := runSpec(t, "twin", model.Spec{
			Workload: model.Workload{Cycles: 1, Work: 50 * time.Millisecond, Start: 10 * time.Millisecond},
			Faults:   []sim.Fault{f},
		}, newTwin(twinBugs{}))
		explain(t, "twin", r)
		if len(r.Violations) > 0 {
			t.Errorf("restart %v: violations %v", restart, invariant.Broken(r.Violations))
		}
		crashed, restarted := false, false
		acquired := map[string]int{}
		for _, e := range r.History {
			switch {
			case e.Actor == "A" && e.Kind == sim.KindCrash:
				crashed = true
			case e.Actor == "A" && e.Kind == sim.KindRestart:
				restarted = true
			case e.Actor == "A" && crashed && !restarted && e.Kind != sim.KindTaskEnd:
				t.Errorf("restart %v: A acted while crashed: %v", restart, e)
			case e.Kind == history.KindAcquired:
				acquired[e.Actor]++
			}
		}
		if !crashed || restarted != restart {
			t.Errorf("restart %v: crashed %v, restarted %v", restart, crashed, restarted)
		}
		if want := map[bool]int{false: 1, true: 2}[restart]; acquired["A"] != want || acquired["B"] != 1 {
			t.Errorf("restart %v: acquisitions %v, want A %d (the new process acquires again), B 1", restart, acquired, want)
		}
	}
}

// A real client's seeded runs are an engine campaign: WithShard(1, 3) of
// 10 runs makes runs 1, 4, 7 (3 runs, seeds 2, 5, 8), and WithWorkers(4)
// runs them one at a time and says why.
//
// The test starts itself as a process of its own; there (dir := os.Getenv("REALCLIENT_CASE_DIR"); dir != "") it is
// the child that the rest of the test judges.
func TestSeededRunsShardAndSayWhyOneWorker(t *testing.T) {
	if dir := os.Getenv("REALCLIENT_CASE_DIR"); dir != "" {
		Check(t, newTwin(twinBuilds["correct"]), WithName("twin"), WithOptions(model.Options{Extend: true}), WithRuns(10), WithShard(1, 3), WithWorkers(4),
			WithInvariants(invariant.MutualExclusion, invariant.Liveness), WithFaults(sim.FaultPause, sim.FaultDelay),
			WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}), WithCaseDir(dir))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSeededRunsShardAndSayWhyOneWorker$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "REALCLIENT_CASE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "twin held in 3 runs (shard 1 of 3: the seeds 1+i, i % 3 == 1, of 1..10)") {
		t.Fatalf("want shard 1 of 3 to make 3 of the 10 runs and hold:\n%s", out)
	}
	if !strings.Contains(string(out), "ran one run at a time, not 4: a real client's runs seed process-wide generators") {
		t.Errorf("WithWorkers(4) does not say why it ran one:\n%s", out)
	}
}

// A budget smaller than one run still makes one (docs/realclient.md), so
// it judges something rather than saying "no run was made".
//
// The test starts itself as a process of its own; there (dir := os.Getenv("REALCLIENT_CASE_DIR"); dir != "") it is
// the child that the rest of the test judges.
func TestBudgetSmallerThanARunMakesOne(t *testing.T) {
	if dir := os.Getenv("REALCLIENT_CASE_DIR"); dir != "" {
		Check(t, newTwin(twinBuilds["correct"]), WithName("twin"), WithOptions(model.Options{Extend: true}), WithBudget(time.Nanosecond),
			WithInvariants(invariant.MutualExclusion, invariant.Liveness), WithFaults(),
			WithTopology(model.Topology{Masters: 1, Persistence: sim.PersistAlways}), WithCaseDir(dir))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBudgetSmallerThanARunMakesOne$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "REALCLIENT_CASE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "twin held in 1 runs (seeds 1..1)") {
		t.Fatalf("want one run under a 1ns budget:\n%s", out)
	}
}
