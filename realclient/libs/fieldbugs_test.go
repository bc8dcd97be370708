package libs

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"locksim"
	"locksim/model"
	"locksim/model/invariant"
	. "locksim/realclient"
	"locksim/realclient/libs/fieldbugs"
	"locksim/scenarios"
	"locksim/sim"
)

// The field-bug corpus (package fieldbugs): each bug reported from the
// field, retold as a small go-redis library with a switch for the bug.
// For each, the buggy build breaks the invariant the bug breaks in
// production under an explicit schedule of at most two faults, and the
// fixed build keeps every invariant under the same schedule on several
// seeds and under variations of it (other durations and offsets of the
// same faults). docs/realclient.md's "Field-bug corpus" table lists them.

// fieldBug is one corpus entry.
type fieldBug struct {
	name string
	// build makes one process's lock on its first master.
	build func(env Env, o fieldbugs.Options) Lock
	spec  model.Spec // workload and options; Design and Faults are set here
	// faults is the buggy build's schedule (at most two faults).
	faults []string
	// variants are more schedules of the same fault kinds, for the fixed build.
	variants [][]string
	// validity runs the test's caller that asks the library (IsAcquired,
	// else Until) right before its write, with work per client: for a
	// library whose callers ask IsAcquired, and for work that differs by
	// client; nil runs the harness's own section with its default caller
	// (CallerValidity: Until right before the write, a reported extension
	// revives the lease).
	validity map[string]time.Duration
	want     invariant.ID
	// stuck, for a library that deadlocks, is where the buggy run's
	// goroutines must be named as blocked for good (the run's error starts
	// with realclient.StuckPrefix); want is then empty.
	stuck string
	// stuckAfter, if set, is realclient.StuckAfter for the entry's runs:
	// the wall time a deadlock on a sync.Mutex takes to be given up.
	stuckAfter time.Duration
	// mechanism says in plain words how the bug breaks the lock.
	mechanism string
	// mention is what the buggy run's explanation must say.
	mention string
	// skip names the harness feature the test waits for.
	skip string
	// redis changes the go-redis options (nil: go-redis's defaults).
	redis func(*redis.Options)
}

var fieldBugCorpus = []fieldBug{{
	name: "plain-del",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewPlainDel(env.Clients[0], env.Key, env.TTL, o)
	},
	spec:      model.Spec{Workload: model.Workload{Cycles: 2, Work: 800 * time.Millisecond, Start: 10 * time.Millisecond}},
	faults:    []string{"pause A for 1.5s after A release"},
	variants:  [][]string{{"pause A for 1.2s after A release"}, {"pause A for 2.5s after A release"}, {"pause B for 1.5s after B release"}},
	mechanism: "A's lease ran out in a pause after its section; its release deleted B's key with a plain DEL and A took the lock again while B worked",
	mention:   "by A (DEL)",
	want:      invariant.MutualExclusion,
}, {
	name: "setnx-expire",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewSetNXExpire(env.Clients[0], env.Key, env.TTL, o)
	},
	spec:      model.Spec{Workload: model.Workload{Cycles: 4, Start: 10 * time.Millisecond}},
	faults:    []string{"delay r1->A +4s for 10ms after A acquire-send"},
	redis:     ctxTimeouts,
	variants:  [][]string{{"delay r1->A +3.5s for 10ms after A acquire-send"}, {"delay r1->B +4s for 10ms after B acquire-send"}},
	mechanism: "A's SETNX reply came after Lock's deadline, so the EXPIRE was never sent: a key without TTL that nobody deletes",
	mention:   "with no TTL",
	want:      invariant.Liveness,
}, {
	name: "extend-int64",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewExtendInt(env.Clients[0], env.Key, env.TTL, o)
	},
	spec: model.Spec{Options: model.Options{Extend: true},
		Workload: model.Workload{Cycles: 1, Work: 2500 * time.Millisecond, Start: 10 * time.Millisecond}},
	faults:    []string{"pause A for 1.5s after A read"},
	variants:  [][]string{{"pause A for 1.2s after A read"}, {"pause A for 3s after A read"}, {"pause A for 500ms after A read"}},
	validity:  map[string]time.Duration{"A": 2500 * time.Millisecond, "B": 2500 * time.Millisecond},
	mechanism: "the extend script's int64(0) reply, compared with int(0), never equal: an extend on B's key reported success and moved Until, so A wrote under B's lock",
	mention:   "A's lease was gone",
	want:      invariant.StaleWrite,
}, {
	name: "refresh-reacquires",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewRefreshReacquire(env.Clients[0], env.Key, env.TTL, o)
	},
	spec: model.Spec{Options: model.Options{Extend: true},
		Workload: model.Workload{Cycles: 1, Start: 10 * time.Millisecond}},
	faults:    []string{"pause A for 1.5s after A read"},
	variants:  [][]string{{"pause A for 1.2s after A read"}, {"pause A for 1.65s after A read"}, {"pause A for 500ms after A read"}},
	validity:  map[string]time.Duration{"A": 1700 * time.Millisecond},
	mechanism: "A's refresh after its key expired set the key again and reported success: B's whole hold fell inside A's, and A's write undid B's",
	mention:   "increment was lost",
	want:      invariant.LostUpdate,
}, {
	name: "first-attempt-expiry",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewFirstAttempt(env.Clients[0], env.Key, env.TTL, o)
	},
	spec:      model.Spec{Workload: model.Workload{Cycles: 2, Work: 1500 * time.Millisecond, Think: 100 * time.Millisecond, Start: 10 * time.Millisecond}},
	faults:    nil, // contention alone: B waits longer than a TTL
	variants:  [][]string{{"pause A for 300ms after A acquired"}},
	mechanism: "B's expiration counted from its first attempt was over when B got the lock: the auto-extension gave up at once and the key expired while B worked",
	mention:   "B's key on r1 expired",
	want:      invariant.MutualExclusion,
}, {
	name: "sticky-local-lock",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewStickyLocal(env.Clients[0], env.Key, env.TTL, o)
	},
	spec:      model.Spec{Workload: model.Workload{Cycles: 4, Start: 10 * time.Millisecond}},
	faults:    []string{"pause A for 1.5s after A release"},
	variants:  [][]string{{"pause A for 1.2s after A release"}, {"pause B for 1.5s after B release"}},
	mechanism: "Unlock found the key expired and returned before letting the process-local lock go: A's later Locks waited for it while the lock was free",
	mention:   "no node held the lock key",
	want:      invariant.Liveness,
}, {
	name: "is-acquired-flag",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewIsAcquired(env.Clients[0], env.Key, env.TTL, o)
	},
	spec:      model.Spec{Workload: model.Workload{Cycles: 1, Start: 10 * time.Millisecond}},
	faults:    []string{"delay A->r1 +1.5s for 1s after A acquired"},
	variants:  [][]string{{"delay A->r1 +2s for 1s after A acquired"}, {"delay A->r1 +300ms for 1s after A acquired"}},
	validity:  map[string]time.Duration{"A": 1500 * time.Millisecond, "B": 1500 * time.Millisecond},
	mechanism: "A's extensions were held up on the network past the lease; IsAcquired, a flag only Unlock clears, still said true, and A wrote under B's lock",
	mention:   "A's key on r1 expired",
	want:      invariant.StaleWrite,
}, {
	name: "renewal-not-rescheduled",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewRenewOnce(env.Clients[0], env.Key, env.TTL, o)
	},
	spec:      model.Spec{Workload: model.Workload{Cycles: 1, Work: 3 * time.Second, Start: 10 * time.Millisecond}},
	redis:     ctxTimeouts,
	faults:    []string{"delay A->r1 +400ms for 50ms after A acquired +300ms"},
	variants:  [][]string{{"delay A->r1 +400ms for 50ms after A acquired +600ms"}, {"delay A->r1 +300ms for 50ms after A acquired +1.5s"}},
	mechanism: "one renewal timed out and the watchdog was not rescheduled: A's key expired while A worked and B took it",
	mention:   "A's key on r1 expired",
	want:      invariant.MutualExclusion,
}, {
	name: "renewal-entry-left",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewRenewFlag(env.Clients[0], env.Key, env.TTL, o)
	},
	spec:      model.Spec{Workload: model.Workload{Cycles: 2, Work: 1200 * time.Millisecond, Think: 100 * time.Millisecond, Start: 10 * time.Millisecond}},
	redis:     ctxTimeouts,
	faults:    []string{"delay A->r1 +400ms for 100ms after A acquired +600ms"},
	variants:  [][]string{{"delay A->r1 +400ms for 100ms after A acquired +300ms"}, {"delay B->r1 +400ms for 100ms after B acquired +600ms"}},
	mechanism: "a renewal error late in A's first hold killed the watchdog but left its entry: A's second hold was never renewed",
	mention:   "A's key on r1 expired",
	want:      invariant.MutualExclusion,
}, {
	name: "orphan-renewal",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewOrphanRenew(env.Clients[0], env.Key, env.TTL, o)
	},
	spec: model.Spec{Options: model.Options{AcquireWait: 300 * time.Millisecond},
		Workload: model.Workload{Duration: 8 * time.Second, Think: 500 * time.Millisecond, Start: 10 * time.Millisecond}},
	redis:     ctxTimeouts,
	faults:    []string{"delay r1->A +500ms for 10ms after A acquire-send"},
	variants:  [][]string{{"delay r1->A +400ms for 10ms after A acquire-send"}, {"delay r1->A +600ms for 10ms after A acquire-send"}, {"delay r1->B +500ms for 10ms after B acquire-send"}},
	mechanism: "A's SET reply came after Lock gave up; the completion then armed the watchdog, which renews a key nobody holds for as long as the process lives",
	mention:   "held the value",
	want:      invariant.Liveness,
}, {
	name: "sleep-through-deadline",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewSleepThrough(env.Clients[0], env.Key, env.TTL, o)
	},
	spec: model.Spec{Options: model.Options{TTL: 3 * time.Second, AcquireWait: 1200 * time.Millisecond},
		Workload: model.Workload{Cycles: 1, Work: 2 * time.Second, Start: 10 * time.Millisecond}},
	faults:    nil, // contention alone: B's deadline passes while A holds
	variants:  [][]string{{"pause B for 300ms after B acquire-send"}, {"delay r1->B +400ms for 10ms after B acquire-send"}},
	mechanism: "B found the key taken and slept its 500ms retry delay deaf to its context: the deadline passed during the sleep and Lock returned most of a delay late",
	mention:   "across the deadline",
	want:      invariant.AcquireDeadline,
}, {
	name: "renew-from-deadline",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewRenewDrift(env.Clients[0], env.Key, env.TTL, o)
	},
	spec: model.Spec{Options: model.Options{Extend: true},
		Workload: model.Workload{Cycles: 1, Work: 2500 * time.Millisecond, Start: 10 * time.Millisecond}},
	faults:    []string{"pause A for 1.5s after A acquired +500ms"},
	variants:  [][]string{{"pause A for 1.2s after A acquired +500ms"}, {"pause A for 1.5s after A acquired +800ms"}, {"pause A for 500ms after A acquired +500ms"}},
	mechanism: "each extension moved Until a TTL past the previous deadline, not past the extension's start: Until ran ahead of the key, which expired in A's pause while Until still promised the hold",
	mention:   "reported success",
	want:      invariant.PrematureLoss,
}, {
	name: "quorum-waits-on-silent-node",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewQuorumWait(env.Clients, env.Key, env.TTL, o)
	},
	spec: model.Spec{Topology: model.Topology{Masters: 3}, Options: model.Options{AcquireBound: time.Second},
		Workload: model.Workload{Cycles: 2, Start: 10 * time.Millisecond}},
	redis:     ctxTimeouts,
	faults:    []string{"partition r3 | A,B mode=blackhole at 0s"},
	variants:  [][]string{{"partition r2 | A,B mode=blackhole at 0s"}, {"partition r3 | A,B at 0s"}, {"partition r1 | A,B mode=blackhole at 5ms for 3s"}},
	mechanism: "every try waited out go-redis's own timeouts on the silent r3 (5s to dial), longer than the 1s lease, and gave up though r1 and r2 had granted: nobody acquired while a majority was up",
	mention:   "tolerate",
	want:      invariant.Available,
}, {
	name: "gate-notify-deadlock",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewGateNotify(env.Clients[0], env.Key, env.TTL, o)
	},
	spec: model.Spec{Options: model.Options{TTL: 3 * time.Second, AcquireWait: 300 * time.Millisecond},
		Workload: model.Workload{Duration: 5 * time.Second, Work: 1500 * time.Millisecond, Think: 100 * time.Millisecond, Start: 10 * time.Millisecond}},
	faults:    nil, // contention alone: B's Lock gives up while A holds
	variants:  [][]string{{"pause A for 500ms after A acquired"}, {"delay r1->B +200ms for 10ms after B acquire-send"}},
	mechanism: "B's Lock gave up while A held the key and stayed counted as a waiter; B's later Unlock notified its gate with a blocking send nobody receives: B (then A, the same way) blocked for good in Unlock",
	stuck:     "B: locksim/realclient/libs/fieldbugs.(*GateNotify).Unlock at gatenotify.go:",
}, {
	name: "mutex-gate-deadlock",
	build: func(env Env, o fieldbugs.Options) Lock {
		return fieldbugs.NewMutexGate(env.Clients[0], env.Key, env.TTL, o)
	},
	spec: model.Spec{Options: model.Options{TTL: 3 * time.Second, AcquireWait: 300 * time.Millisecond},
		Workload: model.Workload{Duration: 5 * time.Second, Work: 1500 * time.Millisecond, Think: 100 * time.Millisecond, Start: 10 * time.Millisecond}},
	faults:     nil, // contention alone, as gate-notify-deadlock
	variants:   [][]string{{"pause A for 500ms after A acquired"}},
	mechanism:  "as gate-notify-deadlock, but Unlock's blocking send holds the locker's sync.Mutex, on which B's renewal goroutine then waits: not durably blocked, so virtual time stands still and the watchdog gives the run up",
	stuck:      "B: locksim/realclient/libs/fieldbugs.(*MutexGate).renew at mutexgate.go:95 (sync.Mutex.Lock)",
	stuckAfter: 5 * time.Second,
}}

// ctxTimeouts makes go-redis honour context deadlines on the socket
// (ContextTimeoutEnabled), as a library that bounds a call by its context
// needs: without it go-redis ignores the context's deadline and waits for
// the reply.
func ctxTimeouts(o *redis.Options) { o.ContextTimeoutEnabled = true }

// fbHolds remembers every lock a run built, to find the one behind a
// Resource (by its hold's value) for the validity-checking caller.
type fbHolds struct {
	mu    sync.Mutex
	locks []fbHold
}

type fbHold struct {
	client string
	lock   Lock
}

func (h *fbHolds) setup(build func(Env, fieldbugs.Options) Lock, o fieldbugs.Options) Setup {
	return func(env Env) (Lock, error) {
		l := build(env, o)
		h.mu.Lock()
		h.locks = append(h.locks, fbHold{env.Client, l})
		h.mu.Unlock()
		return l, nil
	}
}

func (h *fbHolds) find(value string) (fbHold, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, x := range h.locks {
		if v, ok := x.lock.(Valuer); ok && v.Value() == value {
			return x, true
		}
	}
	return fbHold{}, false
}

// validityCaller is the caller that trusts its library: it reads, works,
// asks the library right before the write whether it still holds the lock
// (IsAcquired, else Until), and writes if it says so.
func validityCaller(h *fbHolds, work map[string]time.Duration) CriticalSection {
	return func(ctx context.Context, r *Resource) error {
		hold, ok := h.find(r.Value)
		v, err := r.Read(ctx)
		if err != nil || !ok {
			return nil
		}
		d, ok := work[hold.client]
		if !ok {
			d = 50 * time.Millisecond
		}
		r.Sleep(d)
		switch l := hold.lock.(type) {
		case interface{ IsAcquired() bool }:
			if !l.IsAcquired() {
				return nil
			}
		case Validity:
			if until := l.Until(); !time.Now().Before(until) { // the library first, then the clock
				return nil
			}
		}
		_, _ = r.Write(ctx, v+1)
		return nil
	}
}

// runFieldBug runs one build of a corpus entry under faults with seed.
func runFieldBug(t *testing.T, b fieldBug, buggy bool, faults []string, seed uint64) *model.Result {
	t.Helper()
	s := b.spec
	s.Design = DesignPrefix + b.name
	s.Faults = nil
	for _, line := range faults {
		f, err := scenarios.ParseFault(line)
		if err != nil {
			t.Fatalf("%s: fault %q: %v", b.name, line, err)
		}
		s.Faults = append(s.Faults, f)
	}
	h := &fbHolds{}
	var opts []Option
	if b.redis != nil {
		opts = append(opts, WithRedisOptions(b.redis))
	}
	if b.validity != nil {
		opts = append(opts, WithCriticalSection(validityCaller(h, b.validity)))
	}
	r, err := Run(t, locksim.Case{Spec: s, Seed: seed}, h.setup(b.build, fieldbugs.Options{Buggy: buggy}), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil && !(buggy && b.stuck != "") {
		t.Fatalf("%s (buggy=%v): run failed: %v", b.name, buggy, r.Err)
	}
	return r
}

func TestFieldBugCorpus(t *testing.T) {
	for _, b := range fieldBugCorpus {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			if b.stuckAfter > 0 {
				defer func(d time.Duration) { StuckAfter = d }(StuckAfter)
				StuckAfter = b.stuckAfter
			}
			if len(b.faults) > 2 {
				t.Fatalf("%d faults: the corpus allows at most two", len(b.faults))
			}
			r := runFieldBug(t, b, true, b.faults, 1)
			explainFieldBug(t, "buggy", r)
			t.Logf("mechanism: %s", b.mechanism)
			switch {
			case b.stuck != "":
				if r.Err == nil || !strings.HasPrefix(r.Err.Error(), StuckPrefix) || !strings.Contains(r.Err.Error(), b.stuck) {
					t.Errorf("buggy build under %q: run error %v, want stuck naming %q (%s)", b.faults, r.Err, b.stuck, b.mechanism)
				}
				if b.stuckAfter == 0 && r.Err != nil { // the same run names the same goroutines
					if again := runFieldBug(t, b, true, b.faults, 1); again.Err == nil || again.Err.Error() != r.Err.Error() {
						t.Errorf("buggy build run again: %v, want the same stuck text %q", again.Err, r.Err)
					}
				}
			case !slices.Contains(invariant.Broken(r.Violations), b.want):
				t.Errorf("buggy build under %q: broken %v, want %s (%s)", b.faults, invariant.Broken(r.Violations), b.want, b.mechanism)
			}
			if b.mention != "" && !slices.ContainsFunc(r.Violations, func(v invariant.Violation) bool {
				return strings.Contains(v.Explanation, b.mention)
			}) {
				t.Errorf("buggy build: no explanation mentions %q", b.mention)
			}
			schedules := [][]string{b.faults, b.faults, b.faults}
			schedules = append(schedules, b.variants...)
			for i, faults := range schedules {
				seed := uint64(1)
				if i < 3 {
					seed = uint64(i + 1)
				}
				r := runFieldBug(t, b, false, faults, seed)
				if len(r.Violations) > 0 {
					explainFieldBug(t, "fixed", r)
					t.Errorf("fixed build under %q, seed %d: broken %v, want none", faults, seed, invariant.Broken(r.Violations))
				}
			}
		})
	}
}

func explainFieldBug(t *testing.T, build string, r *model.Result) {
	t.Helper()
	t.Logf("%s: broken %v", build, invariant.Broken(r.Violations))
	if r.Err != nil {
		t.Logf("  run: %v", r.Err)
	}
	for _, v := range r.Violations {
		t.Logf("  %s: %s", v.Invariant, v.Explanation)
	}
	for _, e := range r.History {
		if e.Kind == sim.KindTaskEnd && e.Note != "" {
			t.Logf("  %s ended: %s", e.Actor, e.Note)
		}
	}
}
