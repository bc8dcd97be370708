package libs

import (
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/invariant"
	. "locksim/realclient"
	"locksim/realclient/libs/fieldbugs"
	"locksim/scenarios"
	"locksim/sim"
)

// Several goroutines per process (WithGoroutines): process A's workload
// goroutines are clients A.1 and A.2, each judged as a client; objects
// the process shares come from Env.Shared; a fault on A acts on both.

// sharedOwnerSetup builds each goroutine's SharedOwner lock on the owner
// its process shares.
func sharedOwnerSetup(o fieldbugs.Options) Setup {
	return func(env Env) (Lock, error) {
		owner, err := env.Shared("owner", func() (any, error) { return fieldbugs.NewOwner(), nil })
		if err != nil {
			return nil, err
		}
		return fieldbugs.NewSharedOwner(env.Clients[0], env.Key, env.TTL, owner.(*fieldbugs.Owner), o), nil
	}
}

// goroutinesSpec is the runs' spec: two processes, two cycles each, a
// section long enough for two goroutines' holds to overlap.
func goroutinesSpec(faults ...string) (model.Spec, error) {
	s := model.Spec{Design: DesignPrefix + "shared-owner", Clients: []string{"A", "B"},
		Workload: model.Workload{Cycles: 2, Work: 300 * time.Millisecond, Start: 10 * time.Millisecond}}
	for _, line := range faults {
		f, err := scenarios.ParseFault(line)
		if err != nil {
			return s, err
		}
		s.Faults = append(s.Faults, f)
	}
	return s, nil
}

func runGoroutines(t *testing.T, setup Setup, seed uint64, faults ...string) *model.Result {
	t.Helper()
	s, err := goroutinesSpec(faults...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(t, locksim.Case{Spec: s, Seed: seed}, setup, WithGoroutines(2))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	return r
}

// acquiredBy counts each client's acquired events.
func acquiredBy(h sim.History) map[string]int {
	n := map[string]int{}
	for _, e := range h {
		if e.Kind == "acquired" {
			n[e.Actor]++
		}
	}
	return n
}

// TestGoroutinesSharedOwner: the buggy SharedOwner names its owner by the
// process alone, so A.2 re-enters A.1's hold: mutual exclusion breaks
// between A.1 and A.2 with no fault at all. The fixed build, whose values
// differ per goroutine, keeps every invariant on the same seeds, and
// every goroutine of both processes acquires.
func TestGoroutinesSharedOwner(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		r := runGoroutines(t, sharedOwnerSetup(fieldbugs.Options{Buggy: true}), seed)
		var named bool
		for _, v := range r.Violations {
			if v.Invariant == invariant.MutualExclusion && slices.Contains(v.Clients, "A.1") && slices.Contains(v.Clients, "A.2") {
				named = true
			}
		}
		if !named {
			t.Fatalf("seed %d: buggy shared owner: want a mutual-exclusion violation naming A.1 and A.2, got %v", seed, r.Violations)
		}
		fixed := runGoroutines(t, sharedOwnerSetup(fieldbugs.Options{}), seed)
		if len(fixed.Violations) > 0 {
			t.Fatalf("seed %d: fixed shared owner: %v", seed, fixed.Violations)
		}
		got := acquiredBy(fixed.History)
		for _, c := range []string{"A.1", "A.2", "B.1", "B.2"} {
			if got[c] == 0 {
				t.Fatalf("seed %d: fixed shared owner: %s never acquired (acquired events by client: %v)", seed, c, got)
			}
		}
	}
}

// TestGoroutinesPauseTheProcess: a pause of process A pauses A.1 and A.2
// at the same instant, and neither records anything until its resume.
func TestGoroutinesPauseTheProcess(t *testing.T) {
	r := runGoroutines(t, sharedOwnerSetup(fieldbugs.Options{}), 1, "pause A for 300ms at 200ms")
	paused := map[string][2]time.Duration{}
	for _, e := range r.History {
		switch e.Kind {
		case sim.KindPause:
			paused[e.Actor] = [2]time.Duration{e.At, -1}
		case sim.KindResume:
			p := paused[e.Actor]
			paused[e.Actor] = [2]time.Duration{p[0], e.At}
		}
	}
	a1, a2 := paused["A.1"], paused["A.2"]
	if a1[0] != 200*time.Millisecond || a1 != a2 || a1[1] <= a1[0] {
		t.Fatalf("pause of A: want A.1 and A.2 paused together from 200ms, got %v (every pause: %v)", [][2]time.Duration{a1, a2}, paused)
	}
	if _, ok := paused["B.1"]; ok {
		t.Fatalf("pause of A paused B.1: %v", paused)
	}
	for _, e := range r.History {
		if (e.Actor == "A.1" || e.Actor == "A.2") && e.At > a1[0] && e.At < a1[1] {
			t.Fatalf("%s recorded %s at %v, inside A's pause %v-%v", e.Actor, e.Kind, e.At, a1[0], a1[1])
		}
	}
	if len(r.Violations) > 0 {
		t.Fatalf("fixed shared owner under a pause of A: %v", r.Violations)
	}
}

// TestGoroutinesDeterministic: the same seed twice gives the same history.
func TestGoroutinesDeterministic(t *testing.T) {
	a := runGoroutines(t, sharedOwnerSetup(fieldbugs.Options{}), 3, "pause A for 500ms at 300ms")
	b := runGoroutines(t, sharedOwnerSetup(fieldbugs.Options{}), 3, "pause A for 500ms at 300ms")
	if a.History.Hash() != b.History.Hash() {
		t.Fatalf("same seed, two histories: %s and %s", a.History.Hash(), b.History.Hash())
	}
	if acquiredBy(a.History)["A.2"] == 0 {
		t.Fatal("A.2 never acquired")
	}
}

// TestCheckGoroutines: Check's generated runs with two goroutines per
// process hold for the fixed SharedOwner and fail the buggy one with a
// report naming A.1 and A.2 and the option its replay needs.
//
// The test starts itself as a process of its own; there (os.Getenv("REALCLIENT_GOROUTINES_CHECK") != "") it is
// the child that the rest of the test judges.
func TestCheckGoroutines(t *testing.T) {
	if os.Getenv("REALCLIENT_GOROUTINES_CHECK") != "" {
		Check(t, sharedOwnerSetup(fieldbugs.Options{Buggy: true}), WithName("shared-owner"), WithGoroutines(2), WithRuns(3),
			WithFaults(sim.FaultPause), WithCaseDir(os.Getenv("REALCLIENT_CASE_DIR")))
		return
	}
	Check(t, sharedOwnerSetup(fieldbugs.Options{}), WithName("shared-owner"), WithGoroutines(2), WithRuns(3),
		WithFaults(sim.FaultPause), WithCaseDir(t.TempDir()))
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckGoroutines$", "-test.count=1")
	cmd.Env = append(os.Environ(), "REALCLIENT_GOROUTINES_CHECK=1", "REALCLIENT_CASE_DIR="+t.TempDir())
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("Check of the buggy shared owner with two goroutines per process passed:\n%s", out)
	}
	for _, want := range []string{"mutual-exclusion", "A.1", "A.2", "realclient.WithGoroutines(2)"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("the failure does not say %q:\n%s", want, out)
		}
	}
}

// TestGoroutinesCrashTheProcess: a crash of process A with a restart
// crashes and restarts A.1 and A.2 at the same instants, and the restarted
// process builds its shared objects afresh (Env.Shared is per
// incarnation), as a new process would.
func TestGoroutinesCrashTheProcess(t *testing.T) {
	builds := map[string]int{}
	setup := func(env Env) (Lock, error) {
		owner, err := env.Shared("owner", func() (any, error) {
			builds[env.Process]++ // one goroutine at a time: the governor's order
			return fieldbugs.NewOwner(), nil
		})
		if err != nil {
			return nil, err
		}
		return fieldbugs.NewSharedOwner(env.Clients[0], env.Key, env.TTL, owner.(*fieldbugs.Owner), fieldbugs.Options{}), nil
	}
	r := runGoroutines(t, setup, 1, "crash A restart for 300ms at 100ms")
	at := map[string]map[sim.Kind]time.Duration{}
	for _, e := range r.History {
		if e.Kind == sim.KindCrash || e.Kind == sim.KindRestart {
			if at[e.Actor] == nil {
				at[e.Actor] = map[sim.Kind]time.Duration{}
			}
			at[e.Actor][e.Kind] = e.At
		}
	}
	a1, a2 := at["A.1"], at["A.2"]
	if len(a1) != 2 || !maps.Equal(a1, a2) || at["B.1"] != nil {
		t.Fatalf("crash of A with restart: want A.1 and A.2 crashed and restarted together, B untouched; got %v", at)
	}
	if builds["A"] != 2 || builds["B"] != 1 {
		t.Fatalf("shared owners built per process: %v, want A 2 (before the crash, after the restart), B 1", builds)
	}
	if len(r.Violations) > 0 {
		t.Fatalf("fixed shared owner under a crash of A: %v", r.Violations)
	}
	if acquiredBy(r.History)["A.2"] < 2 {
		t.Fatalf("A.2 acquired %d times, want its cycles before and after the restart", acquiredBy(r.History)["A.2"])
	}
}

// TestGoroutinesRedsync: redsync, a correct lock, with two goroutines per
// process and no fault: every goroutine acquires, every invariant holds.
func TestGoroutinesRedsync(t *testing.T) {
	r := runGoroutines(t, newRedsync(), 1)
	if len(r.Violations) > 0 {
		t.Fatalf("redsync with two goroutines per process: %v", r.Violations)
	}
	got := acquiredBy(r.History)
	for _, c := range []string{"A.1", "A.2", "B.1", "B.2"} {
		if got[c] == 0 {
			t.Fatalf("%s never acquired (acquired events by client: %v)", c, got)
		}
	}
}

// TestGoroutinesAcrossProcesses: a run with two goroutines per process
// under a pause gives one history in fresh processes.
func TestGoroutinesAcrossProcesses(t *testing.T) {
	hashes, diff, ok := AcrossProcesses(t, "shared-owner-goroutines", 2, func(t *testing.T) *model.Result {
		return runGoroutines(t, sharedOwnerSetup(fieldbugs.Options{}), 5, "pause A for 400ms after A acquired")
	})
	if !ok {
		return
	}
	if hashes[0] != hashes[1] {
		t.Fatalf("two processes gave hashes %v; first difference:\n%s", hashes, diff)
	}
}
