package locksim

import (
	"strconv"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim/resp"
)

// setIncr is a user's fenced design, from a new-user trial: SET NX PX to
// acquire, then a separate INCR for the fencing token, and a Lua
// compare-and-delete release. Under write-only strict fencing it loses
// updates: a stale holder's write that lands after the new holder read but
// before it wrote is accepted (its token is still the highest written).
type setIncr struct{}

func (setIncr) Name() string { return "set-incr" }

func (setIncr) TryAcquire(c *model.Client, value string) (model.Lease, bool, error) {
	g := c.Masters()[0]
	r, err := c.Call(g, "SET", c.Key, value, "NX", "PX", c.TTLms())
	if err != nil || r.Str != "OK" {
		return model.Lease{}, false, err
	}
	t, err := c.Call(g, "INCR", c.TokenKey)
	if err != nil || t.Kind != resp.Int {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: value, Token: t.Int, Nodes: []string{c.Primary(g)}}, true, nil
}

func (setIncr) Release(c *model.Client, l *model.Lease) error {
	_, err := c.Call(c.Masters()[0], "EVAL", "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) end return 0", "1", c.Key, l.Value)
	return err
}

// TestFindsWriteOnlyFencingGap: the Go API's default budget finds the
// lost update above every time (five base seeds), as the CLI's default
// does; the trial found that rapid's default of 100 checks passed it ten
// times out of ten.
func TestFindsWriteOnlyFencingGap(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			f := &fakeTB{TB: t, name: "TestGap"}
			start := time.Now() // wall-clock ok: reported in the log only
			Check(f, setIncr{}, WithFencing(model.FenceStrict), WithSeed(seed),
				WithInvariants(invariant.LostUpdate, invariant.Fencing), WithCaseDir(t.TempDir()))
			if !f.failed {
				t.Fatalf("seed %d: the default budget did not find the lost update", seed)
			}
			t.Logf("found in %v: %s", time.Since(start).Round(time.Millisecond), firstLines(f.logs[0], 1))
		})
	}
}
