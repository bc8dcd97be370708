package model

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/network"
	"locksim/sim"
	"locksim/sim/resp"
)

// script runs the given steps as client A against one node and the
// resource, and returns every reply rendered as redis-cli does.
func script(t *testing.T, res *Resource, steps func(c *sim.Ctx, do func(target string, args ...string) resp.Reply)) []string {
	t.Helper()
	var got []string
	main := func(c *sim.Ctx) error {
		steps(c, func(target string, args ...string) resp.Reply {
			r, err := c.Call(target, time.Second, args...)
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			got = append(got, r.String())
			return r
		})
		return nil
	}
	if res == nil {
		res = &Resource{}
	}
	cfg := sim.Config{
		Nodes:    []sim.NodeConfig{{Name: "r1"}},
		Groups:   []sim.GroupConfig{{Name: "m1", Primary: "r1"}},
		Clients:  []sim.ClientConfig{{Name: "A", Main: main}},
		Services: []sim.ServiceConfig{{Name: ResourceName, Handler: res}},
		Network:  network.Config{Default: network.Latency{Min: time.Millisecond, Max: time.Millisecond}},
	}
	if h, err := sim.Run(cfg, 1); err != nil {
		t.Fatalf("run: %v\n%s", err, h.Text())
	}
	return got
}

const (
	uuidA = "05a69d76-330e-4ddc-9906-56c91959d089"
	uuidB = "e8d1f73f-bc7a-426d-8d08-dc0147bdcd28"
)

// SET NX PX: two acquisitions in a row, then GET.
// Output: OK, nil, A's UUID.
func TestSetNXPXTwice(t *testing.T) {
	got := script(t, nil, func(c *sim.Ctx, do func(string, ...string) resp.Reply) {
		do("m1", "SET", "lab:{locks}:order", uuidA, "NX", "PX", "30000")
		do("m1", "SET", "lab:{locks}:order", uuidB, "NX", "PX", "30000")
		do("m1", "GET", "lab:{locks}:order")
	})
	want := []string{"OK", "(nil)", strconv.Quote(uuidA)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// EVAL compare-and-delete: B owns the key; A's stale release
// returns 0 and leaves B's key; B's release returns 1. Output: OK, 0, B's
// token, 1.
func TestStaleOwnerRelease(t *testing.T) {
	got := script(t, nil, func(c *sim.Ctx, do func(string, ...string) resp.Reply) {
		do("m1", "SET", "lab:{locks}:release", uuidB, "NX", "PX", "30000")
		do("m1", "EVAL", scriptRelease, "1", "lab:{locks}:release", uuidA)
		do("m1", "GET", "lab:{locks}:release")
		do("m1", "EVAL", scriptRelease, "1", "lab:{locks}:release", uuidB)
	})
	want := []string{"OK", "(integer) 0", strconv.Quote(uuidB), "(integer) 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// PEXPIRE after an owner check: the owner renews (1, PTTL in
// (0, 30000]); another value does not (0).
func TestOwnerCheckedRenewal(t *testing.T) {
	var pttl int64
	got := script(t, nil, func(c *sim.Ctx, do func(string, ...string) resp.Reply) {
		do("m1", "SET", "lab:{locks}:renew", uuidA, "NX", "PX", "30000")
		c.Sleep(5 * time.Second)
		do("m1", "EVAL", scriptRenew, "1", "lab:{locks}:renew", uuidA, "30000")
		pttl = do("m1", "PTTL", "lab:{locks}:renew").Int
		do("m1", "EVAL", scriptRenew, "1", "lab:{locks}:renew", uuidB, "30000")
	})
	if pttl <= 0 || pttl > 30000 {
		t.Errorf("PTTL after renewal = %d, want in (0, 30000]", pttl)
	}
	got = append(got[:2], got[3:]...)
	want := []string{"OK", "(integer) 1", "(integer) 0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// A fenced resource (fencing tokens as in Kleppmann, "How to do
// distributed locking", 2016): last token 40; token 42 is accepted, 41 is
// rejected; the state ends CANCELLED.
func TestFencingResource(t *testing.T) {
	res := &Resource{Fencing: FenceStrict, LastToken: 40, State: "CREATED"}
	got := script(t, res, func(c *sim.Ctx, do func(string, ...string) resp.Reply) {
		do(ResourceName, "WRITE", "42", "B", "1", "CANCELLED")
		do(ResourceName, "WRITE", "41", "A", "1", "PAID")
		do(ResourceName, "STATE")
	})
	want := []string{"(integer) 1", "(integer) 0", `["CANCELLED", (integer) 42, (integer) 1]`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// Redisson's RLock: reentrant holds count 1, 2, 3 and back to 0;
// the last release deletes the key and publishes to waiters.
func TestReentrantCounts(t *testing.T) {
	owner := "client-1:thread-7"
	ch := "redisson_lock__channel:{lock}"
	var counts []string
	got := script(t, nil, func(c *sim.Ctx, do func(string, ...string) resp.Reply) {
		for i := 0; i < 3; i++ {
			do("m1", "EVAL", scriptReentrantAcquire, "1", "lock", "30000", owner)
			counts = append(counts, do("m1", "HGET", "lock", owner).Str)
		}
		for i := 0; i < 3; i++ {
			do("m1", "EVAL", scriptReentrantRelease, "2", "lock", ch, "0", "30000", owner)
		}
		do("m1", "EXISTS", "lock")
	})
	if diff := cmp.Diff([]string{"1", "2", "3"}, counts); diff != "" {
		t.Errorf("hold counts (-want +got):\n%s", diff)
	}
	// Acquires reply nil; releases reply 0, 0, then 1 (deleted, published).
	want := []string{"(nil)", `"1"`, "(nil)", `"2"`, "(nil)", `"3"`, "(integer) 0", "(integer) 0", "(integer) 1", "(integer) 0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// Optimistic locking, the conditional UPDATE with a version (`... WHERE id=? AND
// version=?`): a write that carries the version it read applies and bumps
// it; a second write with the same, now old, version is refused, and so is
// one with no version. Output: [0, 0], 1, 0, 0, [1, 1].
func TestVersionCheckCommands(t *testing.T) {
	res := &Resource{Fencing: FenceVersion}
	got := script(t, res, func(c *sim.Ctx, do func(string, ...string) resp.Reply) {
		do(ResourceName, "READ")
		do(ResourceName, "WRITE", "0", "B", "1", "VERSION", "0")
		do(ResourceName, "WRITE", "0", "A", "1", "VERSION", "0")
		do(ResourceName, "WRITE", "0", "A", "2")
		do(ResourceName, "READ")
	})
	want := []string{"[(integer) 0, (integer) 0]", "(integer) 1", "(integer) 0", "(integer) 0", "[(integer) 1, (integer) 1]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// Redisson's getFairLock: A takes the lock; B and C queue behind it
// (each told how long to wait: B until A's lease runs out, C until B's
// place does); B tries again and is still queued; A releases, and B, the
// head of the queue, is told on its own channel; C, not the head, cannot
// take the free lock; B can. Then C gives up (acquireFailed) and leaves
// the queue, which B's release finds empty.
func TestFairLockQueue(t *testing.T) {
	const now = "1767225600000" // every client's wall clock, in ms, frozen here
	keys := []string{"3", "lock", "redisson_lock_queue:{lock}", "redisson_lock_timeout:{lock}"}
	acquire := func(owner string) []string {
		return append(append([]string{"EVAL", scriptFairAcquire}, keys...), "30000", owner, "5000", now)
	}
	release := func(owner string) []string {
		return append([]string{"EVAL", scriptFairRelease, "4", "lock", "redisson_lock_queue:{lock}", "redisson_lock_timeout:{lock}",
			"redisson_lock__channel:{lock}"}, "0", "30000", owner, now)
	}
	var queue, left []string
	got := script(t, nil, func(c *sim.Ctx, do func(string, ...string) resp.Reply) {
		do("m1", acquire("A")...)
		do("m1", acquire("B")...)
		do("m1", acquire("C")...)
		do("m1", acquire("B")...)
		for _, e := range do("m1", "LRANGE", "redisson_lock_queue:{lock}", "0", "-1").Elems {
			queue = append(queue, e.Str)
		}
		do("m1", "SUBSCRIBE", "redisson_lock__channel:{lock}:B")
		do("m1", release("A")...)
		do("m1", acquire("C")...)
		do("m1", acquire("B")...)
		do("m1", "EVAL", scriptFairAbandon, "2", "redisson_lock_queue:{lock}", "redisson_lock_timeout:{lock}", "C", "5000")
		for _, e := range do("m1", "LRANGE", "redisson_lock_queue:{lock}", "0", "-1").Elems {
			left = append(left, e.Str)
		}
	})
	// A: nil (taken); B: ~30s (A's lease, less the round trips since);
	// C: ~35s (B's place: lease + wait); B again: A's PTTL; the queue B,
	// C; subscribed; A's release: 1; C: 0 (B is first); B: nil; C leaves;
	// the queue is empty.
	want := []string{"(nil)", "~30s", "~35s", "~30s", `["B", "C"]`, "OK", "(integer) 1", "(integer) 0", "(nil)", "(integer) 1", "[]"}
	if diff := cmp.Diff(want, roughly(got)); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"B", "C"}, queue); diff != "" || len(left) != 0 {
		t.Errorf("queue %v, then %v (want empty)", queue, left)
	}
}

// Redisson's getReadLock/getWriteLock: two readers share the lock, a
// writer is told to wait (the PTTL) while they read; once both released
// the writer takes it and a reader must wait.
func TestReadWriteLockCommands(t *testing.T) {
	read := func(owner string) []string {
		return []string{"EVAL", scriptReadAcquire, "2", "lock", "{lock}:" + owner + ":rwlock_timeout", "30000", owner, owner + ":write"}
	}
	unread := func(owner string) []string {
		return []string{"EVAL", scriptReadRelease, "4", "lock", "redisson_rwlock:{lock}", "{lock}:" + owner + ":rwlock_timeout", "{lock}", "0", owner}
	}
	write := []string{"EVAL", scriptWriteAcquire, "1", "lock", "30000", "W"}
	got := script(t, nil, func(c *sim.Ctx, do func(string, ...string) resp.Reply) {
		do("m1", read("R1")...)
		do("m1", read("R2")...)
		do("m1", "HGETALL", "lock")
		do("m1", write...)
		do("m1", unread("R1")...)
		do("m1", write...)
		do("m1", unread("R2")...)
		do("m1", write...)
		do("m1", read("R1")...)
		do("m1", "EVAL", scriptWriteRelease, "2", "lock", "redisson_rwlock:{lock}", "0", "30000", "W")
		do("m1", "EXISTS", "lock")
	})
	want := []string{"(nil)", "(nil)", `["R1", "1", "R2", "1", "mode", "read"]`, "~30s",
		"(integer) 0", "~30s", "(integer) 1", "(nil)", "~30s", "(integer) 1", "(integer) 0"}
	if diff := cmp.Diff(want, roughly(got)); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

// roughly renders a PTTL reply within 100ms under 30s or 35s as "~30s" or
// "~35s": the simulated round trips take a few ms each.
func roughly(replies []string) []string {
	out := make([]string, len(replies))
	for i, r := range replies {
		out[i] = r
		var n int64
		if _, err := fmt.Sscanf(r, "(integer) %d", &n); err != nil {
			continue
		}
		switch {
		case n > 29_900 && n <= 30_000:
			out[i] = "~30s"
		case n > 34_900 && n <= 35_000:
			out[i] = "~35s"
		}
	}
	return out
}
