package script

import (
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2/server"
	"github.com/google/go-cmp/cmp"

	"locksim/sim/resp"
)

// readOnlyErr is the fast path's reply to a write into a library table.
func readOnlyErr(frame string) resp.Reply {
	return resp.ErrorReply("ERR Error compiling script (new function): :1: Attempt to modify a readonly table stack traceback:  [G]: in function " +
		frame + "  :1: in main chunk  [G]: ?")
}

// missingGlobalErr is miniredis's reply to reading an unknown global.
func missingGlobalErr(name string) resp.Reply {
	return resp.ErrorReply("ERR Error compiling script (new function): :16: Script attempted to access nonexistent global variable '" +
		name + "' stack traceback:  [G]: in function 'error'  :16: in function <:14>  :1: in main chunk  [G]: ?")
}

func TestSandboxReadOnlyLibraries(t *testing.T) {
	_, e := newNode(t, Options{})
	c := e.NewConn()
	for _, tc := range []struct {
		script string
		want   resp.Reply
	}{
		{"redis.call = nil", readOnlyErr("(anonymous)")},
		{"redis.extra = 1", readOnlyErr("(anonymous)")},
		{"server.call = nil", readOnlyErr("(anonymous)")},
		{"string.upper = nil", readOnlyErr("(anonymous)")},
		{"math.random = function() return 4 end", readOnlyErr("(anonymous)")},
		{"table.insert = nil", readOnlyErr("(anonymous)")},
		{"coroutine.x = 1", readOnlyErr("(anonymous)")},
		{"cjson.encode = nil", readOnlyErr("(anonymous)")},
		{"rawset(redis, 'call', nil)", readOnlyErr("'rawset'")},
		{"rawset(string, 'x', 1)", readOnlyErr("'rawset'")},
		{"table.insert(math, 1)", readOnlyErr("'insert'")},
		{"table.remove(redis)", readOnlyErr("'remove'")},
		{"table.sort(table)", readOnlyErr("'sort'")},
		{"getmetatable('').__index = nil", readOnlyErr("(anonymous)")},
		{"getmetatable('').__index.upper = nil", readOnlyErr("(anonymous)")},
		{"rawset(getmetatable('').__index, 'upper', nil)", readOnlyErr("'rawset'")},
		{"setmetatable(redis, {})", resp.ErrorReply("ERR Error compiling script (new function): :1: cannot change a protected metatable stack traceback:  [G]: in function 'setmetatable'  :1: in main chunk  [G]: ?")},
		{"setmetatable(_G, nil)", resp.ErrorReply("ERR Error compiling script (new function): :1: cannot change a protected metatable stack traceback:  [G]: in function 'setmetatable'  :1: in main chunk  [G]: ?")},
		{"return getmetatable(redis)", resp.Nil},
		{"return getmetatable(_G)", resp.Nil},
	} {
		if diff := cmp.Diff(tc.want, c.Do("EVAL", tc.script, "0")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.script, diff)
		}
	}
}

func TestSandboxHolesAbsent(t *testing.T) {
	_, e := newNode(t, Options{})
	c := e.NewConn()
	for _, name := range []string{"getfenv", "setfenv", "require", "module", "package", "dofile", "loadfile", "debug", "_printregs"} {
		if diff := cmp.Diff(missingGlobalErr(name), c.Do("EVAL", "return "+name, "0")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestSandboxNoLeaks runs scripts that try to leave state behind, then one
// that looks for it.
func TestSandboxNoLeaks(t *testing.T) {
	_, e := newNode(t, Options{})
	c := e.NewConn()
	for _, s := range []string{
		"rawset(_G, 'leak', 1)",
		"redis = 5; KEYS = 6; string = 7",
		"KEYS.extra = 1; ARGV[5] = 'x'; setmetatable(KEYS, {__index = function() return 'meta' end})",
		"_G._G = 1",
		"local f = loadstring('rawset(_G, \"leak2\", 2)'); f()",
		"x = 1", // refused
		"local co = coroutine.create(function() rawset(_G, 'leak3', 3); coroutine.yield() end); coroutine.resume(co)",
	} {
		c.Do("EVAL", s, "1", "k1", "a1", "a2")
	}
	got := c.Do("EVAL", `return {type(redis), type(KEYS), type(string), rawget(_G, 'leak') == nil,
		rawget(_G, 'leak2') == nil, rawget(_G, 'leak3') == nil, KEYS.extra == nil, #KEYS, #ARGV, tostring(KEYS[2]),
		type(_G), type(redis.call)}`, "1", "k", "a")
	want := resp.Reply{Kind: resp.Array, Elems: []resp.Reply{
		resp.BulkReply("table"), resp.BulkReply("table"), resp.BulkReply("table"), resp.IntReply(1),
		resp.IntReply(1), resp.IntReply(1), resp.IntReply(1), resp.IntReply(1), resp.IntReply(1), resp.BulkReply("nil"),
		resp.BulkReply("table"), resp.BulkReply("function"),
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state leaked between scripts (-want +got):\n%s", diff)
	}
}

// TestSandboxArgsTablesReused checks that KEYS and ARGV always hold exactly
// the run's arguments, as their tables are reused when left untouched.
func TestSandboxArgsTablesReused(t *testing.T) {
	_, e := newNode(t, Options{})
	c := e.NewConn()
	script := "return {#KEYS, #ARGV, KEYS, ARGV}"
	b := resp.BulkReply
	for _, tc := range []struct {
		args []string
		want resp.Reply
	}{
		{[]string{"2", "a", "b", "x"}, arr(resp.IntReply(2), resp.IntReply(1), arr(b("a"), b("b")), arr(b("x")))},
		{[]string{"1", "a"}, arr(resp.IntReply(1), resp.IntReply(0), arr(b("a")), arr())},
		{[]string{"3", "c", "a", "b", "y", "z"}, arr(resp.IntReply(3), resp.IntReply(2), arr(b("c"), b("a"), b("b")), arr(b("y"), b("z")))},
		{[]string{"0"}, arr(resp.IntReply(0), resp.IntReply(0), arr(), arr())},
	} {
		got := c.Do(append([]string{"EVAL", script}, tc.args...)...)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.args, diff)
		}
		c.Do("EVAL", "KEYS[1] = 'dirty'; table.insert(ARGV, 'more')", "1", "q")
	}
}

// TestEnginesIndependent checks that two engines share nothing and that
// math.random follows Options.Seed.
func TestEnginesIndependent(t *testing.T) {
	_, a := newNode(t, Options{Seed: 7})
	_, b := newNode(t, Options{Seed: 7})
	_, other := newNode(t, Options{Seed: 8})
	ca, cb, co := a.NewConn(), b.NewConn(), other.NewConn()
	ca.Do("SET", "k", "a")
	if got := cb.Do("EVAL", "return redis.call('GET', 'k')", "0"); !got.IsNil() {
		t.Errorf("engine b sees engine a's key: %s", got)
	}
	rnd := "return {math.random(1000000), math.random(1000000), math.random(1, 6)}"
	ra, rb, ro := ca.Do("EVAL", rnd, "0"), cb.Do("EVAL", rnd, "0"), co.Do("EVAL", rnd, "0")
	if diff := cmp.Diff(ra, rb); diff != "" {
		t.Errorf("same seed, different math.random (-a +b):\n%s", diff)
	}
	if cmp.Equal(ra, ro) {
		t.Errorf("seeds 7 and 8 gave the same math.random draws %s", ra)
	}
	if next := ca.Do("EVAL", rnd, "0"); cmp.Equal(ra, next) {
		t.Errorf("math.random repeated across runs: %s", next)
	}
	ca.Do("EVAL", "math.randomseed(3)", "0")
	cb.Do("EVAL", "math.randomseed(3)", "0")
	if x, y := ca.Do("EVAL", rnd, "0"), cb.Do("EVAL", rnd, "0"); !cmp.Equal(x, y) {
		t.Errorf("math.randomseed(3) on both engines: %s vs %s", x, y)
	}
	if got := ca.Do("EVAL", "return math.random(0)", "0"); !strings.Contains(got.Str, "interval is empty") {
		t.Errorf("math.random(0): %s", got)
	}
}

// TestGoPanicRecovered makes a command panic inside redis.call: the script
// gets an error reply, and the engine rebuilds its Lua state.
func TestGoPanicRecovered(t *testing.T) {
	m, e := newNode(t, Options{})
	if err := m.Server().Register("LOCKSIM.PANIC", func(*server.Peer, string, []string) { panic("boom") }); err != nil {
		t.Fatal(err)
	}
	c := e.NewConn()
	s := "return redis.call('LOCKSIM.PANIC')"
	want := resp.ErrorReply(msgGoPanic(sha1Hex(s), "boom"))
	if diff := cmp.Diff(want, c.Do("EVAL", s, "0")); diff != "" {
		t.Errorf("panic (-want +got):\n%s", diff)
	}
	if e.lua != nil {
		t.Errorf("Lua state kept after a Go panic")
	}
	if got := c.Do("EVAL", "return redis.call('PING')", "0"); got.Str != "PONG" {
		t.Errorf("after the panic: %s", got)
	}
}

func TestResultConversionLimits(t *testing.T) {
	_, e := newNode(t, Options{MaxInstructions: 100_000})
	c := e.NewConn()
	for _, tc := range []struct {
		script string
		want   resp.Reply
	}{
		{"local t = {}; t[1] = t; return t", resp.ErrorReply(msgReplyTooDeep)},
		{"return setmetatable({}, {__index = function(t, i) if i < 3 then return i * 10 end end})",
			resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.IntReply(10), resp.IntReply(20)}}},
		{"return setmetatable({}, {__index = function(t, i) return i end})",
			resp.ErrorReply(msgBudget(sha1Hex("return setmetatable({}, {__index = function(t, i) return i end})"), 100_000))},
		{"return setmetatable({}, {__index = function(t, i) error('in index') end})",
			// miniredis panics here; the fast path reports the error, with
			// its converter as the bottom frame.
			resp.ErrorReply("ERR Error compiling script (new function): :1: in index stack traceback:  [G]: in function 'error'  :1: in function <:1>  [G]: in main chunk  [G]: ?")},
		{"return print", resp.Nil},
		{"return coroutine.create(function() end)", resp.Nil},
	} {
		if diff := cmp.Diff(tc.want, c.Do("EVAL", tc.script, "0")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.script, diff)
		}
	}
}

// TestReleasedStateReused: a Lua state released by one engine serves the
// next engine as a fresh one would: redis.call reaches the new engine's
// node, math.random follows the new engine's seed, the budget is the new
// engine's, and nothing the first engine's scripts tried to leave is seen.
func TestReleasedStateReused(t *testing.T) {
	_, a := newNode(t, Options{Seed: 1})
	ca := a.NewConn()
	ca.Do("SET", "k", "from-a")
	for _, s := range []string{"rawset(_G, 'leak', 1)", "redis = 5", "math.randomseed(99)"} {
		ca.Do("EVAL", s, "0")
	}
	st := a.lua
	a.Release()
	if a.lua != nil {
		t.Fatal("Release kept the state")
	}

	_, b := newNode(t, Options{Seed: 7, MaxInstructions: 1000})
	cb := b.NewConn()
	cb.Do("SET", "k", "from-b")
	rnd := "return {math.random(1000000), math.random(1000000)}"
	got := cb.Do("EVAL", "return {redis.call('GET', 'k'), rawget(_G, 'leak') == nil, type(redis)}", "0")
	if b.lua != st {
		t.Skip("the pool did not hand back the released state (a GC ran?); nothing to compare")
	}
	want := arr(resp.BulkReply("from-b"), resp.IntReply(1), resp.BulkReply("table"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reused state (-want +got):\n%s", diff)
	}
	_, fresh := newNode(t, Options{Seed: 7})
	if x, y := cb.Do("EVAL", rnd, "0"), fresh.NewConn().Do("EVAL", rnd, "0"); !cmp.Equal(x, y) {
		t.Errorf("math.random on the reused state %s, on a fresh one %s", x, y)
	}
	// 2000 loop iterations: within the first engine's default budget,
	// beyond the new engine's 1000 instructions.
	if got := cb.Do("EVAL", "for i = 1, 2000 do end return 1", "0"); !strings.Contains(got.Str, "budget of 1000") {
		t.Errorf("a long script on the reused state: %s, want the new engine's budget of 1000 to stop it", got)
	}
}
