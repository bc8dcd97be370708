package locksim

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
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
			f := &fakeTB{TB: t, Test: "TestGap"}
			start := time.Now() // wall-clock ok: reported in the log only
			Check(f, setIncr{}, WithFencing(model.FenceStrict), WithSeed(seed),
				WithInvariants(invariant.LostUpdate), WithCaseDir(t.TempDir()))
			if !f.Broke {
				t.Fatalf("seed %d: the default budget did not find the lost update", seed)
			}
			t.Logf("found in %v: %s", time.Since(start).Round(time.Millisecond), firstLines(f.Logs[0], 1))
		})
	}
}

// WithExhaustive: the same user design under every single fault. It
// finds the write-only fencing gap as a named mechanism with its smallest
// schedule, saves it as the test's case, and the saved case fails fast on
// the next run; strict-reads fencing closes the gap, and the passing test
// logs the bounded guarantee.
func TestCheckExhaustive(t *testing.T) {
	dir := t.TempDir()
	f := &fakeTB{TB: t, Test: "TestGapExhaustive"}
	Check(f, setIncr{}, WithFencing(model.FenceStrict), WithClients("A", "B"), WithExhaustive(1),
		WithInvariants(invariant.LostUpdate), WithCaseDir(dir))
	if !f.Broke || len(f.Logs) == 0 {
		t.Fatal("exhaustive mode did not find the lost update")
	}
	for _, want := range []string{"explored all ", "one-fault schedules of design set-incr", "ways it breaks", "the first way it breaks", "replay: go test -run"} {
		if !strings.Contains(f.Logs[0], want) {
			t.Errorf("the log lacks %q:\n%s", want, f.Logs[0])
		}
	}
	again := &fakeTB{TB: t, Test: "TestGapExhaustive"}
	Check(again, setIncr{}, WithFencing(model.FenceStrict), WithClients("A", "B"), WithExhaustive(1),
		WithInvariants(invariant.LostUpdate), WithCaseDir(dir))
	if !again.Broke || !strings.Contains(again.Logs[0], "the saved case still fails") {
		t.Errorf("the saved case did not replay first: %v", again.Logs)
	}
	ok := &fakeTB{TB: t, Test: "TestGapClosed"}
	Check(ok, setIncr{}, WithFencing(model.FenceStrictReads), WithClients("A", "B"), WithExhaustive(1),
		WithInvariants(invariant.LostUpdate), WithCaseDir(dir))
	if ok.Broke || len(ok.Logs) != 1 || !strings.Contains(ok.Logs[0], "0 broke lost-update") {
		t.Errorf("strict-reads: failed %v, logs %v", ok.Broke, ok.Logs)
	}
}

// Under WithExhaustive, options that shape random runs only are refused,
// not silently dropped (a pause placement ignored would make a correct
// release look broken); no fault kinds at all is refused too, and a bad
// depth; WithMaxSchedules and WithDurations reach exhaustive mode.
func TestCheckExhaustiveRefusesRandomOptions(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want string
	}{
		{[]Option{WithExhaustive(1), WithPauseAt(scenarios.PlaceRelease)}, "WithPauseAt applies to random runs"},
		{[]Option{WithExhaustive(1), WithRuns(10)}, "WithRuns applies to random runs"},
		{[]Option{WithExhaustive(1), WithFaults()}, "no fault kinds to place"},
		{[]Option{WithExhaustive(-1)}, "depth -1"},
		{[]Option{WithExhaustive(2), WithMaxSchedules(100)}, "more than the bound of 100"},
		{[]Option{WithExhaustive(1), WithDurations("forever")}, `no duration class "forever"`},
	} {
		f := &fakeTB{TB: t, Test: "TestRefuses"}
		Check(f, model.SetPxLua, append(tc.opts, WithCaseDir(t.TempDir()))...)
		if !f.Broke || !strings.Contains(strings.Join(f.Logs, "\n"), tc.want) {
			t.Errorf("want a failure saying %q, got %v", tc.want, f.Logs)
		}
	}
}
