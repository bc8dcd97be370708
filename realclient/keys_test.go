package realclient

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	goredislib "github.com/redis/go-redis/v9"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// keyLock is a go-redis lock written for these tests whose keys are its
// own: keys on env.Clients[0] (a name with a prefix, a hash tag, or
// several keys of which it needs `need`), SET NX PX on each to acquire
// (giving back what it took when it got fewer than need, retrying every
// 20ms until the context's deadline), compare-and-extend to extend,
// compare-and-delete to release, and a validity from the moment the
// SETs were sent.
type keyLock struct {
	c    *goredislib.Client
	keys []string
	need int
	ttl  time.Duration
	name string
	// pexpireat extends with PEXPIREAT at time.Now()+ttl (an absolute
	// time on the client's clock) instead of PEXPIRE ttl.
	pexpireat bool
	// extendOnly, if above 0, extends only the first extendOnly keys (a
	// bug: the others expire under the holder).
	extendOnly int
	// side, if set, is a second key Lock writes after it took the lock:
	// with sideValue (its own value, with the TTL) or, if sideValue is "",
	// the lock's value without a TTL (the library's bookkeeping).
	side, sideValue string

	n     int
	value string
	until time.Time
}

var (
	keyExtendPX = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`)
	keyExtendAt = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return 0`)
	keyRelease = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)
	errKeyTaken = errors.New("keylock: taken")
)

func newKeyLock(l keyLock) Setup {
	return func(env Env) (Lock, error) {
		k := l
		k.c, k.ttl, k.name = env.Clients[0], env.TTL, env.Client
		if k.need == 0 {
			k.need = len(k.keys)
		}
		return &k, nil
	}
}

func (l *keyLock) Lock(ctx context.Context) error {
	l.n++
	l.value = l.name + ":" + strconv.Itoa(l.n)
	for {
		sent := time.Now()
		var took []string
		for _, k := range l.keys {
			if ok, err := l.c.SetNX(ctx, k, l.value, l.ttl).Result(); err == nil && ok {
				took = append(took, k)
			}
		}
		if len(took) >= l.need {
			l.until = sent.Add(l.ttl)
			if l.side != "" && l.sideValue != "" {
				l.c.Set(ctx, l.side, l.sideValue+strconv.Itoa(l.n), l.ttl)
			} else if l.side != "" {
				l.c.Set(ctx, l.side, l.value, 0)
			}
			return nil
		}
		for _, k := range took {
			keyRelease.Run(ctx, l.c, []string{k}, l.value)
		}
		select {
		case <-ctx.Done():
			return errKeyTaken
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (l *keyLock) Extend(ctx context.Context) error {
	sent := time.Now()
	keys := l.keys
	if l.extendOnly > 0 {
		keys = keys[:l.extendOnly]
	}
	n := 0
	for _, k := range keys {
		var r int64
		var err error
		if l.pexpireat {
			r, err = keyExtendAt.Run(ctx, l.c, []string{k}, l.value, time.Now().Add(l.ttl).UnixMilli()).Int64()
		} else {
			r, err = keyExtendPX.Run(ctx, l.c, []string{k}, l.value, l.ttl.Milliseconds()).Int64()
		}
		if err == nil && r == 1 {
			n++
		}
	}
	if n < min(l.need, len(keys)) {
		return errKeyTaken
	}
	l.until = sent.Add(l.ttl)
	return nil
}

func (l *keyLock) Unlock(ctx context.Context) error {
	for _, k := range l.keys {
		keyRelease.Run(ctx, l.c, []string{k}, l.value)
	}
	if l.side != "" {
		l.c.Del(ctx, l.side)
	}
	return nil
}

func (l *keyLock) Until() time.Time { return l.until }

// keySpec is one cycle per client, work longer than the 1s TTL so that
// the lock must extend (every TTL/3), B starting 10ms after A.
func keySpec(name string) model.Spec {
	return model.Spec{Design: DesignPrefix + name, Options: model.Options{Extend: true},
		Workload: model.Workload{Cycles: 1, Work: 2500 * time.Millisecond, Start: 10 * time.Millisecond}}
}

// acquiredKeys returns the Key and the grants of every acquired event.
func acquiredKeys(h sim.History) (keys []string, grants []string) {
	for _, e := range h {
		if e.Kind == history.KindAcquired {
			keys = append(keys, e.Key)
			for _, g := range history.Grants(e.Peer, e.Key) {
				grants = append(grants, g.Node+"/"+g.Key)
			}
		}
	}
	return keys, grants
}

func violated(r *model.Result, id invariant.ID) []invariant.Violation {
	var out []invariant.Violation
	for _, v := range r.Violations {
		if v.Invariant == id {
			out = append(out, v)
		}
	}
	return out
}

// A lock whose key is its own name (a prefix and a hash tag, not
// Env.Key) is judged on that key: with no faults it holds, the client
// events name its key, and a pause past its lease breaks it with the
// key's expiry named on the node.
func TestLockKeysOfTheLibrarysChoosing(t *testing.T) {
	const key = "myapp:locks:{job}"
	setup := newKeyLock(keyLock{keys: []string{key}})
	r, err := Run(t, locksim.Case{Spec: keySpec("keylock"), Seed: 1}, setup)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Violations) > 0 {
		t.Fatalf("no faults: run error %v, violations %v", r.Err, r.Violations)
	}
	keys, grants := acquiredKeys(r.History)
	if len(keys) != 2 || keys[0] != key || keys[1] != key || !slices.Equal(grants, []string{"r1/" + key, "r1/" + key}) {
		t.Errorf("acquired keys %q grants %q, want %q twice granted by r1", keys, grants, key)
	}

	// A trusting caller paused for 1.5s right after it acquired writes
	// after its key expired and B took it.
	s := keySpec("keylock")
	s.Options.Extend = false
	s.Workload.Work = 100 * time.Millisecond
	s.Faults = []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}}
	r, err = Run(t, locksim.Case{Spec: s, Seed: 1}, setup, WithCaller(CallerTrusting))
	if err != nil {
		t.Fatal(err)
	}
	stale := violated(r, invariant.StaleWrite)
	if len(stale) == 0 || !strings.Contains(stale[0].Explanation, "A's key on r1 expired") {
		t.Errorf("paused past the lease: stale writes %v, want one explained by A's key's expiry", stale)
	}
	if keys, _ := acquiredKeys(r.History); len(keys) == 0 || keys[0] != key {
		t.Errorf("paused: acquired keys %q, want %s", keys, key)
	}
}

// rueidislock's layout: three keys on one node, a lock needs two of them.
var quorumKeys = []string{"q:0:job", "q:1:job", "q:2:job"}

// A lock of several keys on one node is judged over its keys with its own
// quorum: the correct lock holds with no faults, and one whose extension
// renews only one of its three keys loses its lease when the other two
// expire (B gathers them): A's write after that is stale, though one key
// still holds A's value, because a lease needs two of three.
func TestLockKeysQuorumOverKeysOnOneNode(t *testing.T) {
	r, err := Run(t, locksim.Case{Spec: keySpec("quorum"), Seed: 1}, newKeyLock(keyLock{keys: quorumKeys, need: 2}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Violations) > 0 {
		t.Fatalf("no faults: run error %v, violations %v", r.Err, r.Violations)
	}
	keys, grants := acquiredKeys(r.History)
	if len(keys) == 0 || keys[0] != quorumKeys[0] || len(grants) != 6 {
		t.Errorf("acquired keys %q grants %q, want %s and three grants each", keys, grants, quorumKeys[0])
	}

	r, err = Run(t, locksim.Case{Spec: keySpec("quorum"), Seed: 1}, newKeyLock(keyLock{keys: quorumKeys, need: 2, extendOnly: 1}), WithCaller(CallerTrusting))
	if err != nil {
		t.Fatal(err)
	}
	var stale []invariant.Violation
	for _, v := range violated(r, invariant.StaleWrite) {
		if strings.HasPrefix(v.Explanation, "A wrote") {
			stale = append(stale, v)
		}
	}
	if len(stale) == 0 || !strings.Contains(stale[0].Explanation, "alive on 1 of 3 granted keys, 2 needed") {
		t.Errorf("one key of three renewed: A's stale writes %v (all: %v), want one alive on 1 of its grants", stale, r.Violations)
	}
}

// Finding is refused where it is ambiguous: the lock writes a second key
// with a value of its own that stands beside the lock's, or the lock's
// value to a second key without an expiry. WithLockKeys names the key and
// the lock is judged.
func TestLockKeysAmbiguousIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		lock keyLock
		want string
	}{
		{"own-value", keyLock{keys: []string{"job:lock"}, side: "job:holder", sideValue: "holder-"}, "held \"holder-1\""},
		{"no-ttl", keyLock{keys: []string{"job:lock"}, side: "job:owner"}, "without one"},
	} {
		_, err := Run(t, locksim.Case{Spec: keySpec("side"), Seed: 1}, newKeyLock(tc.lock))
		if err == nil || !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), "WithLockKeys") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want the keys refused as ambiguous (%q), naming WithLockKeys", tc.name, err, tc.want)
		}
		r, err := Run(t, locksim.Case{Spec: keySpec("side"), Seed: 1}, newKeyLock(tc.lock), WithLockKeys("job:lock"))
		if err != nil {
			t.Fatalf("%s: WithLockKeys: %v", tc.name, err)
		}
		if r.Err != nil || len(r.Violations) > 0 {
			t.Errorf("%s: WithLockKeys, no faults: run error %v, violations %v", tc.name, r.Err, r.Violations)
		}
		if keys, _ := acquiredKeys(r.History); len(keys) == 0 || keys[0] != "job:lock" {
			t.Errorf("%s: WithLockKeys: acquired keys %q, want job:lock", tc.name, keys)
		}
	}
	if _, err := Run(t, locksim.Case{Spec: keySpec("side"), Seed: 1}, newKeyLock(keyLock{keys: []string{"job:lock"}}), WithLockKeys("other:*")); err == nil || !strings.Contains(err.Error(), "WithLockKeys(\"other:*\")") {
		t.Errorf("a pattern that matches no key: error %v, want it refused", err)
	}
}

// One wall clock: a lock that extends with PEXPIREAT at its own
// time.Now() plus the TTL keeps its key, as against real Redis (the nodes
// count from the bubble's epoch, not from another year).
func TestOneWallClockPEXPIREAT(t *testing.T) {
	r, err := Run(t, locksim.Case{Spec: keySpec("pexpireat"), Seed: 1}, newKeyLock(keyLock{keys: []string{"lock"}, pexpireat: true}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Violations) > 0 {
		t.Fatalf("no faults: run error %v, violations %v", r.Err, r.Violations)
	}
	extended := 0
	for _, e := range r.History {
		if e.Kind == sim.KindExec && len(e.Args) > 0 && strings.HasPrefix(strings.ToUpper(e.Args[0]), "EVAL") && e.Reply == "(integer) 1" {
			extended++
		}
	}
	if extended == 0 {
		t.Errorf("no PEXPIREAT extension succeeded")
	}
}

// A client that turns on client-side-caching invalidations (CLIENT
// TRACKING) on its RESP3 connection is judged: the nodes answer HELLO 3
// and push an invalidation on its stream when a key it read changes
// (sim/tracking.go). Here A's first connection reads the lock key with
// tracking on, and the lock's own writes (A's and B's) invalidate it.
func TestClientTrackingWorks(t *testing.T) {
	setup := func(env Env) (Lock, error) {
		if env.Client == "A" {
			ctx := context.Background()
			if err := env.Clients[0].Do(ctx, "CLIENT", "TRACKING", "ON").Err(); err != nil {
				return nil, err
			}
			if err := env.Clients[0].Do(ctx, "GET", "lock").Err(); err != nil && err.Error() != "redis: nil" {
				return nil, err
			}
		}
		return newKeyLock(keyLock{keys: []string{"lock"}})(env)
	}
	r, err := Run(t, locksim.Case{Spec: keySpec("tracking"), Seed: 1}, setup)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil || len(r.Violations) > 0 {
		t.Fatalf("no faults: run error %v, violations %v", r.Err, r.Violations)
	}
	hello, sent, got := 0, 0, 0
	for _, e := range r.History {
		switch {
		case e.Kind == sim.KindExec && len(e.Args) == 2 && e.Args[0] == "hello" && strings.HasPrefix(e.Reply, `{"server": "redis"`):
			hello++
		case e.Kind == sim.KindInvalidate && e.Peer == "A" && slices.Equal(e.Args, []string{"lock"}):
			sent++
		case e.Kind == sim.KindPush && e.Actor == "A":
			got++
		}
	}
	if hello == 0 || sent == 0 || got != sent {
		t.Errorf("HELLO 3 answered %d times, invalidations of lock sent to A %d, received %d: want the nodes to speak RESP3 and push them", hello, sent, got)
	}
}

// Lock values are renamed whole, in order of first use: a value "1" is
// renamed where it is a field, an argument, a quoted reply or a hash
// field, never inside "1000" or "(integer) 1".
func TestRenameValuesWhole(t *testing.T) {
	h := sim.History{
		{Actor: "A", Kind: history.KindAcquireSend, Value: "zz", Args: []string{"SET", "lock", "zz", "PX", "1000"}},
		{Actor: "r1", Kind: sim.KindExec, Peer: "A", Args: []string{"SET", "lock", "zz", "PX", "1000"}, Reply: "OK"},
		{Actor: "B", Kind: history.KindAcquired, Value: "1", Reply: "(integer) 1"},
		{Actor: "r1", Kind: sim.KindExec, Peer: "B", Args: []string{"GET", "lock"}, Reply: `"1"`},
		{Actor: "r1", Kind: sim.KindKey, Key: "h", Value: "1=2,10=1"},
		{Actor: "r1", Kind: sim.KindExec, Peer: "B", Args: []string{"EVAL", "s", "1", "lock", "1000"}, Reply: `1) "1000"`},
		{Actor: "r1", Kind: sim.KindExec, Peer: "B", Args: []string{"EVALSHA", "s", "1", "1", "1"}},
	}
	renameValues(h, []string{"A", "B"}, map[string]bool{"zz": true})
	want := []string{
		`A acquire-send args=[SET lock v1 PX 1000] value=v1`,
		`r1 exec args=[SET lock v1 PX 1000] reply=OK`,
		`B acquired value=v2 reply=(integer) 1`,
		`r1 exec args=[GET lock] reply="v2"`,
		`r1 key value=v2=2,10=1`,
		`r1 exec args=[EVAL s 1 lock 1000] reply=1) "1000"`,
		`r1 exec args=[EVALSHA s 1 1 v2]`,
	}
	for i, e := range h {
		got := e.Actor + " " + string(e.Kind)
		if len(e.Args) > 0 {
			got += " args=[" + strings.Join(e.Args, " ") + "]"
		}
		if e.Value != "" {
			got += " value=" + e.Value
		}
		if e.Reply != "" {
			got += " reply=" + e.Reply
		}
		if got != want[i] {
			t.Errorf("event %d: %s, want %s", i, got, want[i])
		}
	}
}

// TestHoldsAnyIsHoldsLease checks foundKeys's set-based matcher against
// history.HoldsLease, value by value, over renderings of plain values and
// reentrant hashes, values with "=" and "," in them, and the empty value.
func TestHoldsAnyIsHoldsLease(t *testing.T) {
	values := []string{"", "v", "v1", "a=b", "a,b", "x", "=", "tok-1"}
	rendered := []string{"", "v", "v1", "v=1", "v1=2,x=1", "a=b", "a=b=3", "a,b", "a,b=1", "x=1,v=2", "=1", "==", "vv=1", "v1", "y=1,a=b=1", "tok-1=1"}
	for _, r := range rendered {
		for mask := 0; mask < 1<<len(values); mask++ {
			set := map[string]bool{}
			want := false
			for i, v := range values {
				if mask&(1<<i) != 0 {
					set[v] = true
					want = want || history.HoldsLease(r, v)
				}
			}
			if got := holdsAny(r, set); got != want {
				t.Fatalf("holdsAny(%q, %v) = %v, HoldsLease says %v", r, set, got, want)
			}
		}
	}
}

// TestValueArgsFrom checks where a command's possible lock values start:
// after an EVAL's (any case) keys, after any other command's key.
func TestValueArgsFrom(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"evalsha", "abc", "1", "lock", "v"}, 4},
		{[]string{"EVAL", "return 1", "2", "a", "b", "v"}, 5},
		{[]string{"Eval_Ro", "s", "0", "v"}, 3},
		{[]string{"fcall", "f", "1", "k", "v"}, 4},
		{[]string{"FCALL_RO", "f", "x", "v"}, 4}, // a key count that is no number: nothing
		{[]string{"set", "lock", "v", "NX"}, 2},
		{[]string{"evalx", "s", "1", "k", "v"}, 2},
		{[]string{"ev", "s", "1"}, 2},
		{[]string{"EVALSHA"}, 2},
	} {
		if got := valueArgsFrom(tc.args); got != tc.want {
			t.Errorf("valueArgsFrom(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}
