package model

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/clock"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// pauseAfterRead is the gc-pause story: A pauses for longer than the TTL
// between reading the resource and writing it.
func pauseAfterRead(d time.Duration) []sim.Fault {
	return []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: d, After: &sim.Trigger{Actor: "A", Kind: history.KindRead}}}
}

func run(t *testing.T, s Spec, seed uint64) *Result {
	t.Helper()
	r, err := Run(s, seed)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("run stopped: %v\n%s", r.Err, r.History.Text())
	}
	return r
}

// Every design is safe on fault-free runs with three contending clients.
func TestDesignsSafeWithoutFaults(t *testing.T) {
	seeds := uint64(200)
	if testing.Short() {
		seeds = 20
	}
	for _, id := range DesignIDs() {
		t.Run(id, func(t *testing.T) {
			for seed := uint64(0); seed < seeds; seed++ {
				s := Spec{Design: id, Clients: []string{"A", "B", "C"}, Workload: Workload{Cycles: 2, Reentry: 2}}
				r := run(t, s, seed)
				if len(r.Violations) > 0 {
					t.Fatalf("seed %d: %v\n%s", seed, r.Violations, r.History.Text())
				}
				if n := count(r.History, history.KindAcquired, 1); n != 6 {
					t.Fatalf("seed %d: %d outermost acquisitions, want 6\n%s", seed, n, r.History.Text())
				}
			}
		})
	}
}

// count counts events of kind with N == n (n < 0: any).
func count(h sim.History, kind sim.Kind, n int64) int {
	c := 0
	for _, e := range h {
		if e.Kind == kind && (n < 0 || e.N == n) {
			c++
		}
	}
	return c
}

// The pause-after-acquire case breaks mutual exclusion for set-px-lua and
// loses an update; fenced also loses mutual exclusion but the strict
// resource rejects A's stale token. The checkers find both.
func TestPauseAfterAcquire(t *testing.T) {
	cases := []struct {
		design string
		broken []invariant.ID
	}{
		{SetPxLua, []invariant.ID{invariant.MutualExclusion, invariant.StaleWrite, invariant.LostUpdate}},
		{Fenced, []invariant.ID{invariant.MutualExclusion}},
	}
	for _, tc := range cases {
		t.Run(tc.design, func(t *testing.T) {
			s := Spec{Design: tc.design, Faults: pauseAfterRead(1500 * time.Millisecond)}
			r := run(t, s, 1)
			if diff := cmp.Diff(tc.broken, invariant.Broken(r.Violations)); diff != "" {
				t.Errorf("broken invariants (-want +got):\n%s\n%v\n%s", diff, r.Violations, r.History.Text())
			}
			if tc.design == Fenced && !strings.Contains(r.History.Text(), "rejected: token 1 <= last 2") {
				t.Errorf("the resource did not reject A's stale token\n%s", r.History.Text())
			}
		})
	}
}

// A reentrant lock's waiter is woken by the release message.
func TestReentrantWaiterNotified(t *testing.T) {
	r := run(t, Spec{Design: ReentrantHash, Workload: Workload{Cycles: 1, Reentry: 2, Work: 300 * time.Millisecond}}, 1)
	if count(r.History, sim.KindMessage, -1) == 0 {
		t.Errorf("no release notification reached the waiter\n%s", r.History.Text())
	}
	var counts []int64
	for _, e := range r.History {
		if e.Actor == "A" && (e.Kind == history.KindAcquired || e.Kind == history.KindRelease) {
			counts = append(counts, e.N)
		}
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 2, 1, 0}, counts); diff != "" {
		t.Errorf("A's hold counts (-want +got):\n%s", diff)
	}
}

func TestBadSpecs(t *testing.T) {
	cases := map[string]Spec{
		"unknown design":  {Design: "zookeeper"},
		"negative ttl":    {Design: SetPxLua, Options: Options{TTL: -time.Second}},
		"quorum > nodes":  {Design: Redlock, Options: Options{Quorum: 6}},
		"bad fencing":     {Design: Fenced, Fencing: "maybe"},
		"lua no scripts":  {Design: LuaDesignID},
		"lua bad syntax":  {Design: LuaDesignID, Lua: &LuaScripts{Acquire: "return (", Release: "return 1", AcquireFile: "acq.lua"}},
		"unknown clock":   {Design: SetPxLua, Topology: Topology{NodeClocks: map[string]clock.Config{"r9": {}}}},
		"negative cycles": {Design: SetPxLua, Workload: Workload{Cycles: -1}},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Run(s, 1); err == nil {
				t.Error("Run accepted a bad spec")
			} else {
				t.Log(err)
			}
		})
	}
}

// A Lua design whose script fails at run time stops the run with an error
// naming the script file; an endless script is stopped by the budget.
func TestLuaScriptErrors(t *testing.T) {
	for name, src := range map[string]string{
		"runtime error": "return redis.call('NOPE', KEYS[1])",
		"newer command": "return redis.call('DELEX', KEYS[1], 'IFEQ', ARGV[1])",
		"endless":       "while true do end",
		"memory":        "local s = 'x' while true do s = s .. s end",
		"wrong reply":   "return {1, 2}",
		"negative":      "return -5",
	} {
		t.Run(name, func(t *testing.T) {
			s := Spec{Design: LuaDesignID, Lua: &LuaScripts{Acquire: src, AcquireFile: "my-acquire.lua", Release: "return 1"}}
			r, err := Run(s, 1)
			if err != nil {
				t.Fatal(err)
			}
			if r.Err == nil || !strings.Contains(r.Err.Error(), "my-acquire.lua") {
				t.Errorf("run error = %v, want one naming my-acquire.lua", r.Err)
			}
			if name == "runtime error" && !strings.Contains(r.Err.Error(), "run-time error: line 1:") {
				t.Errorf("run error = %v, want it to say run-time error and the line", r.Err)
			}
			if name == "runtime error" && strings.Contains(r.Err.Error(), "&c.") {
				t.Errorf("run error = %v, carries miniredis's script SHA", r.Err)
			}
			if name == "runtime error" && !strings.Contains(r.Err.Error(), "Unknown Redis command called from script (NOPE: no such command in redis-7.0)") {
				t.Errorf("run error = %v, want it to name the unknown command", r.Err)
			}
			// Redis 8.4's DELEX under the default release: unknown, and named.
			if name == "newer command" && !strings.Contains(r.Err.Error(), "Unknown Redis command called from script (DELEX: no such command in redis-7.0)") {
				t.Errorf("run error = %v, want it to name DELEX", r.Err)
			}
			if name == "memory" && (!strings.Contains(r.Err.Error(), "run-time error: script exceeded the memory budget") || strings.Contains(r.Err.Error(), "f_")) {
				t.Errorf("run error = %v, want the memory budget without the script's SHA", r.Err)
			}
			if name == "endless" && !strings.Contains(r.Err.Error(), "did not finish within 10000000 Lua instructions") {
				t.Errorf("run error = %v, want it to say the script did not finish", r.Err)
			}
		})
	}
}

// TestLuaAcquireReplies: what an acquire script may return.
func TestLuaAcquireReplies(t *testing.T) {
	for src, want := range map[string]bool{
		"return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])": true, // status OK
		"return 'OK'":                        true, // a bulk string
		"return redis.call('INCR', KEYS[2])": true, // a token
		"return 0":                           false,
		"return false":                       false, // nil
	} {
		r, err := Run(Spec{Design: LuaDesignID, Lua: &LuaScripts{Acquire: src, Release: "return redis.call('DEL', KEYS[1])"}}, 1)
		if err != nil || r.Err != nil {
			t.Fatalf("%s: %v %v", src, err, r.Err)
		}
		got := count(r.History, history.KindAcquired, 1) > 0
		if got != want {
			t.Errorf("%s: acquired %v, want %v", src, got, want)
		}
	}
	r, _ := Run(Spec{Design: LuaDesignID, Lua: &LuaScripts{Acquire: "return 'yes'", Release: "return 1"}}, 1)
	if r.Err == nil || !strings.Contains(r.Err.Error(), `acquire returned "yes"`) {
		t.Errorf("return 'yes': run error %v", r.Err)
	}
}

// TestFencingNeedsTokens: a resource that rejects every write without a
// token, guarding a design that gives none, is a configuration error, not
// a safe run that wrote nothing; nonstrict accepts token 0 and runs.
func TestFencingNeedsTokens(t *testing.T) {
	for _, tc := range []struct {
		design  string
		fencing Fencing
		wantErr bool
	}{
		{SetPxLua, FenceStrict, true},
		{SetPxLua, FenceStrictReads, true},
		{SetPxLua, FenceNonstrict, false},
		{SetPxLua, FenceOff, false},
		{Fenced, FenceStrict, false},
	} {
		r, err := Run(Spec{Design: tc.design, Fencing: tc.fencing}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Err != nil && strings.Contains(r.Err.Error(), "acquired without a fencing token"); got != tc.wantErr {
			t.Errorf("%s with fencing %s: run error %v, want the no-token error: %v", tc.design, tc.fencing, r.Err, tc.wantErr)
		}
	}
}

// groupNodes is a broken custom design: it lists the group, not the node.
type groupNodes struct{ setPxLua }

func (groupNodes) Name() string { return "group-nodes" }

func (d groupNodes) TryAcquire(c *Client, value string) (Lease, bool, error) {
	l, ok, err := d.setPxLua.TryAcquire(c, value)
	l.Nodes = []string{"m1"}
	return l, ok, err
}

func TestLeaseNodesMustBeNodes(t *testing.T) {
	r, err := Run(Spec{Custom: groupNodes{}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err == nil || !strings.Contains(r.Err.Error(), `"m1", which is not a Redis node`) {
		t.Errorf("run error = %v, want one saying m1 is not a node", r.Err)
	}
}

// Verdict reuses history memory across runs; it must find exactly what Run
// finds, run after run.
func TestVerdictMatchesRun(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		for _, id := range []string{SetPxLua, Fenced, Redlock} {
			s := Spec{Design: id, Faults: pauseAfterRead(time.Duration(seed) * 100 * time.Millisecond)}
			if seed == 0 {
				s.Faults = nil
			}
			r := run(t, s, seed)
			o, err := Verdict(s, seed)
			vs, runErr := o.Violations, o.Err
			if err != nil || runErr != nil {
				t.Fatal(err, runErr)
			}
			if diff := cmp.Diff(r.Violations, vs); diff != "" {
				t.Fatalf("%s seed %d: Verdict differs from Run (-run +verdict):\n%s", id, seed, diff)
			}
		}
	}
}

// A Lua design on 3 of 5 masters needs a majority of those 3 (review
// finding: it needed all 3 when the quorum came from all 5 masters).
func TestLuaQuorumOfItsMasters(t *testing.T) {
	s := Spec{Design: LuaDesignID,
		Lua:      &LuaScripts{Acquire: "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])", Release: "return redis.call('DEL', KEYS[1])"},
		Options:  Options{LuaMasters: 3},
		Topology: Topology{Masters: 5},
		Faults:   []sim.Fault{{Kind: sim.FaultNodeCrash, Target: "r1", At: 0}},
	}
	r := run(t, s, 1)
	if n := count(r.History, history.KindAcquired, 1); n != 2 {
		t.Errorf("%d acquisitions with r1 down, want 2 (a majority of 3 masters is 2)\n%s", n, r.History.Text())
	}
}

// Redlock does not renew by itself: in a critical section longer than the
// TTL its lease runs out on the client's own clock, so its section ends
// there and it does not write (no overlap, no stale write: the validity
// check does its job); with Options.Extend its Extend keeps the lease and
// the write goes through.
func TestRedlockExtend(t *testing.T) {
	for _, extend := range []bool{false, true} {
		s := Spec{Design: Redlock, Options: Options{Extend: extend}, Workload: Workload{Work: 2500 * time.Millisecond}}
		r := run(t, s, 1)
		if len(r.Violations) > 0 {
			t.Errorf("extend=%v: %v", extend, r.Violations)
		}
		writes, lost := count(r.History, history.KindWrite, -1), 0
		for _, e := range r.History {
			if e.Kind == history.KindLeaseLost {
				lost++
			}
		}
		if extend && (writes == 0 || count(r.History, history.KindRenew, 1) == 0) {
			t.Errorf("extend: %d writes and no successful extension recorded", writes)
		}
		if !extend && lost == 0 {
			t.Errorf("no extend: no lease-lost recorded, the lease outlived its validity")
		}
	}
}

// Redisson's lock, unlock and renewal scripts run unmodified as a Lua
// design: their KEYS/ARGV order is mapped (lease time before owner; a
// channel key and a message literal for unlock) and nil means acquired.
// With no faults nothing breaks; a pause past the lease breaks mutual
// exclusion, as for the catalogue's reentrant-hash.
func TestRedissonScriptsUnmodified(t *testing.T) {
	lua := &LuaScripts{
		Acquire: scriptReentrantAcquire, Release: scriptReentrantRelease, Renew: scriptReentrantRenew,
		AcquireArgs: ArgMap{Keys: []string{"lock"}, Argv: []string{"ttl", "value"}},
		ReleaseArgs: ArgMap{Keys: []string{"lock", "redisson_lock__channel:{lock}"}, Argv: []string{"0", "ttl", "value"}},
		RenewArgs:   ArgMap{Keys: []string{"lock"}, Argv: []string{"ttl", "value"}},
		Held:        HeldNil,
	}
	if err := lua.Validate(); err != nil {
		t.Fatal(err)
	}
	s := Spec{Design: LuaDesignID, Lua: lua, Workload: Workload{Cycles: 2, Work: 1500 * time.Millisecond}}
	r := run(t, s, 1)
	if len(r.Violations) > 0 || count(r.History, history.KindAcquired, -1) != 4 || count(r.History, history.KindRenew, 1) == 0 {
		t.Errorf("no faults: %d acquisitions, %d renewals, violations %v", count(r.History, history.KindAcquired, -1), count(r.History, history.KindRenew, 1), r.Violations)
	}
	s.Workload.Work = 50 * time.Millisecond
	s.Faults = []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindWrite}}}
	if broken := invariant.Broken(run(t, s, 1).Violations); !slices.Contains(broken, invariant.MutualExclusion) {
		t.Errorf("gc-pause: broken %v, want mutual-exclusion", broken)
	}
	if m, err := ParseArgMap("KEYS=lock,redisson_lock__channel:{lock} ARGV=0,ttl,value"); err != nil || !cmp.Equal(m, lua.ReleaseArgs) {
		t.Errorf("ParseArgMap: %+v %v", m, err)
	}
}
