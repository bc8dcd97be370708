package realclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	goredislib "github.com/redis/go-redis/v9"

	"locksim/model"
)

// dbFirstLock is a correct lock whose scripts take something else before
// the value (a database number, as @sesamecare-oss/redlock's do): the
// harness reads the first script argument as the value unless
// WithValueArg names another.
type dbFirstLock struct {
	c     *goredislib.Client
	key   string
	name  string
	ttl   time.Duration
	n     int
	value string
}

var (
	dbFirstAcquire = goredislib.NewScript(`if redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[3]) then return 1 end
return 0`)
	dbFirstRelease = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[2] then return redis.call('DEL', KEYS[1]) end
return 0`)
)

func (l *dbFirstLock) Lock(ctx context.Context) error {
	l.n++
	l.value = l.name + "-" + string(rune('0'+l.n%10))
	for {
		if n, err := dbFirstAcquire.Run(ctx, l.c, []string{l.key}, "0", l.value, l.ttl.Milliseconds()).Int(); err == nil && n == 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("dbfirst: taken")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (l *dbFirstLock) Unlock(ctx context.Context) error {
	return dbFirstRelease.Run(ctx, l.c, []string{l.key}, "0", l.value).Err()
}

// A run whose granted locks' values no node ever held is refused with the
// reason, not judged on keys that never held the lock (judged, it gave
// false stale-writes for a Node library whose scripts take the database
// number first); told where the value is (WithValueArg(2)), the same lock
// holds.
func TestAValueNoNodeHeldIsRefused(t *testing.T) {
	s := model.Spec{Design: DesignPrefix + "dbfirst", Workload: model.Workload{Cycles: 1, Work: 50 * time.Millisecond, Start: 10 * time.Millisecond}}
	setup := func(env Env) (Lock, error) {
		return &dbFirstLock{c: env.Clients[0], key: env.Key, name: env.Client, ttl: env.TTL}, nil
	}
	run := func(opts ...Option) (*model.Result, error) {
		cfg, err := newConfig(append([]Option{WithName("dbfirst")}, opts...))
		if err != nil {
			t.Fatal(err)
		}
		r, err := cfg.run(t, s.WithDefaults(), 1, setup)
		if err == nil && r.Err != nil {
			err = r.Err
		}
		return r, err
	}
	if _, err := run(); err == nil || !strings.Contains(err.Error(), `no node ever held the value of a granted lock (values read: "0")`) {
		t.Fatalf("the database number read as the value: got %v, want the refusal", err)
	}
	r, err := run(WithValueArg(2))
	if err != nil || len(r.Violations) > 0 {
		t.Fatalf("WithValueArg(2): %v, %v", err, r.Violations)
	}
}

// An explicit TTL, run count or worker count of zero or less is refused
// before any run, as locksim.Check refuses it (harness.Settings.Refused):
// as the zero value it silently meant the default.
func TestExplicitZerosRefused(t *testing.T) {
	for _, c := range []struct {
		opt  Option
		want string
	}{
		{WithTTL(0), "WithTTL(0s)"},
		{WithRuns(-3), "WithRuns(-3)"},
		{WithWorkers(0), "WithWorkers(0)"},
	} {
		if _, err := newConfig([]Option{c.opt}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a refusal naming it", c.want, err)
		}
	}
}
