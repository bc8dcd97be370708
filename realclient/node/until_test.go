package node

import (
	"sync"
	"testing"
)

// An until() that is a pure question (redlock's: the lock's expiration,
// or 0) is answered from each step's report, with no round trip; one that
// reads the clock (the redis-semaphore wrapper's Date.now() + 1 h while
// held) is asked over the pipe each time, as the clock moves between
// steps; one that answers null (no news: the last answer stands) is asked
// too, never sent as 0. Either way the caller checks before each write.
func TestUntilFromTheReport(t *testing.T) {
	requireNode(t)
	for _, tc := range []struct {
		name, path string
		fromReport bool
	}{
		{"redlock-4.2.0", "js/libs/redlock-4.2.0.cjs", true},
		{"redis-semaphore-5.8.0", "js/libs/redis-semaphore-5.8.0.cjs", false},
		{"until-null", "js/test/until-null.cjs", false},
	} {
		var mu sync.Mutex
		asked := 0
		hook := WithStepHook(func(s Step) {
			if s.Event == "call" && s.Fn == "until" {
				mu.Lock()
				asked++
				mu.Unlock()
			}
		})
		before := UntilAnswered.Load()
		run(t, tc.name, tc.path, 1, nil, hook)
		answered := UntilAnswered.Load() - before
		t.Logf("%s: until() asked over the pipe %d times, answered from a report %d times", tc.name, asked, answered)
		if tc.fromReport && (asked != 0 || answered == 0) {
			t.Errorf("%s: a pure until() was asked over the pipe %d times (answered from reports: %d), want 0", tc.name, asked, answered)
		}
		if !tc.fromReport && (asked == 0 || answered != 0) {
			t.Errorf("%s: an until() that reads the clock or answers null was answered from a report %d times (asked: %d), want 0", tc.name, answered, asked)
		}
	}
}
