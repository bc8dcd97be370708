package script

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/sim/resp"
)

func TestInstructionBudget(t *testing.T) {
	const limit = 50_000
	_, e := newNode(t, Options{MaxInstructions: limit})
	c := e.NewConn()
	for _, s := range []string{
		"while true do end",
		"local i = 0; repeat i = i + 1 until false",
		"local function f() return f() end; return f()", // a tail call: no stack growth
		"while true do pcall(function() while true do end end) end",
		"local ok = pcall(function() while true do end end); return 'survived'",
		"coroutine.wrap(function() while true do end end)()",
		"local co = coroutine.create(function() while true do end end); local ok, err = coroutine.resume(co); return {ok, err}",
		"local co = coroutine.wrap(function() while true do coroutine.yield() end end); while true do co() end",
		"for i = 1, 10 do coroutine.resume(coroutine.create(function() for j = 1, 10000 do end end)) end; return 1",
		"return setmetatable({}, {__index = function(t, i) while true do end end})",
	} {
		want := resp.ErrorReply(msgBudget(sha1Hex(s), limit))
		if diff := cmp.Diff(want, c.Do("EVAL", s, "0")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s, diff)
		}
	}
	// The budget is per run, and the state works after a spent budget.
	loop := "for i = 1, 10000 do end; return 1" // about 20k instructions
	for range 5 {
		if got := c.Do("EVAL", loop, "0"); got.Kind != resp.Int || got.Int != 1 {
			t.Fatalf("a script within budget: %s", got)
		}
	}
}

// TestDefaultBudgetEndsLoop runs an endless loop with the default budget:
// it must come back with the budget error (after ~10M instructions).
func TestDefaultBudgetEndsLoop(t *testing.T) {
	_, e := newNode(t, Options{})
	s := "local co = coroutine.wrap(function() while true do end end); co()"
	want := resp.ErrorReply(msgBudget(sha1Hex(s), DefaultMaxInstructions))
	if diff := cmp.Diff(want, e.NewConn().Do("EVAL", s, "0")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
