package model

import (
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

// Seed 000, "SET NX PX": two acquisitions in a row, then GET.
// Output: OK, nil, A's UUID.
func TestSeedSetNXPXTwice(t *testing.T) {
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

// Seed 000, "EVAL compare-and-delete": B owns the key; A's stale release
// returns 0 and leaves B's key; B's release returns 1. Output: OK, 0, B's
// token, 1.
func TestSeedStaleOwnerRelease(t *testing.T) {
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

// Seed 000, "PEXPIRE after owner check": the owner renews (1, PTTL in
// (0, 30000]); another value does not (0).
func TestSeedOwnerCheckedRenewal(t *testing.T) {
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

// Seed 000, FencingResource: last token 40; token 42 is accepted, 41 is
// rejected; the state ends CANCELLED.
func TestSeedFencingResource(t *testing.T) {
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

// Seed 004, Redisson RLock: reentrant holds count 1, 2, 3 and back to 0;
// the last release deletes the key and publishes to waiters.
func TestSeedReentrantCounts(t *testing.T) {
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

// Seed 001 5.4, the conditional UPDATE with a version (`... WHERE id=? AND
// version=?`): a write that carries the version it read applies and bumps
// it; a second write with the same, now old, version is refused, and so is
// one with no version. Output: [0, 0], 1, 0, 0, [1, 1].
func TestSeedVersionCheck(t *testing.T) {
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
