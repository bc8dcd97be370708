package realclient

import (
	"context"
	"testing"
	"time"

	goredislib "github.com/redis/go-redis/v9"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// pttlLock is the correct twin whose validity comes from Redis: Until
// asks the node, with a compare-and-PTTL script, how long its key has
// left, and adds that to the moment the query was sent. It is correct (the
// key lives at least until then), but Until takes a round trip.
type pttlLock struct{ *twinLock }

var pttlScript = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PTTL', KEYS[1]) end
return -2`)

func newPTTLLock(env Env) (Lock, error) {
	l, _ := newTwin(twinBugs{})(env)
	return pttlLock{l.(*twinLock)}, nil
}

func (l pttlLock) Until() time.Time {
	sent := time.Now()
	ms, err := pttlScript.Run(context.Background(), l.c, []string{l.key}, l.value).Int64()
	if err != nil || ms <= 0 {
		return sent // lost, expired or unknown: no validity left
	}
	return sent.Add(time.Duration(ms) * time.Millisecond)
}

// A caller as careful as the user's: the validity check before the
// write asks the library first and reads the clock after. A's Until query
// is sent 100ms into its hold (900ms left) and its reply is delayed 1.5s:
// the lock answers "valid until 1s", correctly, at 1.6s. A caller that
// read the clock before asking (100ms) would write at 1.6s, after the key
// had expired and B had taken it: a false alarm on a correct lock.
func TestValidityAskedBeforeTheClock(t *testing.T) {
	r := runSpec(t, "pttl", model.Spec{
		Workload: model.Workload{Cycles: 1, Work: 100 * time.Millisecond, Start: 10 * time.Millisecond},
		Faults:   []sim.Fault{{Kind: sim.FaultDelay, From: "r1", To: "A", Extra: 1500 * time.Millisecond, At: 60 * time.Millisecond, Dur: 100 * time.Millisecond}},
	}, newPTTLLock)
	explain(t, "pttl", r)
	if len(r.Violations) > 0 {
		t.Errorf("a correct lock whose Until queries Redis was flagged: %v", r.Violations)
	}
	lost := false
	for _, e := range r.History {
		if e.Actor == "A" && e.Kind == history.KindWrite {
			t.Errorf("A wrote after its validity had passed: %v", e)
		}
		if e.Actor == "A" && e.Kind == history.KindLeaseLost {
			lost = true
		}
	}
	if !lost {
		t.Errorf("A did not give up its write (no lease-lost event): the delay did not reach its Until query")
	}
}
