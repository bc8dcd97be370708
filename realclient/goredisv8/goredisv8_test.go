package goredisv8_test

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-redis/redis/v8"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/realclient"
	"locksim/realclient/goredisv8"
	"locksim/sim"
)

// v8Lock is a small correct lock on go-redis v8: SET NX PX, a validity
// from the moment the SET was sent, compare-and-delete to release.
type v8Lock struct {
	c       *redis.Client
	key, me string
	n       int
	value   string
	ttl     time.Duration
	until   time.Time
}

var cad = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

func (l *v8Lock) Lock(ctx context.Context) error {
	l.n++
	l.value = l.me + ":" + strconv.Itoa(l.n)
	for {
		sent := time.Now()
		ok, err := l.c.SetNX(ctx, l.key, l.value, l.ttl).Result()
		if err == nil && ok {
			l.until = sent.Add(l.ttl)
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("v8lock: not acquired")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (l *v8Lock) Until() time.Time { return l.until }

func (l *v8Lock) Unlock(ctx context.Context) error {
	return cad.Run(ctx, l.c, []string{l.key}, l.value).Err()
}

func setup(env realclient.Env) (realclient.Lock, error) {
	c := goredisv8.Clients(env, nil)[0]
	return &v8Lock{c: c, key: env.Key, me: env.Client, ttl: env.TTL}, nil
}

func run(t *testing.T, s model.Spec, seed uint64) *model.Result {
	t.Helper()
	s.Design = realclient.DesignPrefix + "v8lock"
	r, err := realclient.Run(t, locksim.Case{Spec: s, Seed: seed}, setup)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("run failed: %v", r.Err)
	}
	return r
}

// A permanent partition between A and its node: A's commands time out
// for the rest of the run, the run still ends, its clients are closed,
// and no goroutine is left behind (synctest would fail the run on a
// goroutine blocked in its bubble; this counts the process's too).
func TestV8PermanentPartitionLeavesNoGoroutine(t *testing.T) {
	spec := model.Spec{Workload: model.Workload{Cycles: 2, Work: 50 * time.Millisecond, Start: 10 * time.Millisecond},
		Faults: []sim.Fault{{Kind: sim.FaultPartition, A: []string{"A"}, B: []string{"r1"}, At: 30 * time.Millisecond}}}
	run(t, spec, 1) // warm up: go-redis's and the harness's lazily started goroutines
	before := runtime.NumGoroutine()
	r := run(t, spec, 2)
	var after int
	for range 50 { // goroutines outside the bubble (the world's) end just after the run
		if after = runtime.NumGoroutine(); after <= before {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after the run, %d before:\n%s", after, before, buf[:runtime.Stack(buf, true)])
	}
	closes := 0
	for _, e := range r.History {
		if e.Kind == history.KindReleased && e.Actor == "B" {
			closes++
		}
	}
	if closes == 0 {
		t.Errorf("B never released: the partition of A stopped the run\n%v", r.History)
	}
	if !slices.ContainsFunc(r.Modules, func(m string) bool { return strings.HasPrefix(m, "github.com/go-redis/redis/v8 v8.") }) {
		t.Errorf("modules %q do not name go-redis v8", r.Modules)
	}
}

// The ordering hook: the same seed gives the same history, under the
// seeded interleaving too, with faults.
func TestV8Determinism(t *testing.T) {
	spec := model.Spec{Workload: model.Workload{Cycles: 3, Work: 50 * time.Millisecond, Start: 5 * time.Millisecond},
		Faults: []sim.Fault{
			{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}},
			{Kind: sim.FaultDelay, From: "A", To: "r1", Extra: 300 * time.Millisecond, Dur: time.Second}}}
	for _, il := range []realclient.Interleave{realclient.InterleaveFixed, realclient.InterleaveRandom} {
		hashes := map[string]int{}
		for range 10 {
			s := spec
			s.Design = realclient.DesignPrefix + "v8lock"
			r, err := realclient.Run(t, locksim.Case{Spec: s, Seed: 7}, setup, realclient.WithInterleave(il))
			if err != nil || r.Err != nil {
				t.Fatal(err, r.Err)
			}
			hashes[r.History.Hash()]++
		}
		if len(hashes) != 1 {
			t.Errorf("%v: 10 runs with one seed gave %d histories", il, len(hashes))
		}
	}
}
