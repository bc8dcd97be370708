package script

import (
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	lua "github.com/yuin/gopher-lua"

	"locksim/sim/resp"
)

func TestNewEngineValidates(t *testing.T) {
	if _, err := NewEngine(nil, Options{}); err == nil {
		t.Errorf("NewEngine(nil): no error")
	}
	if _, err := NewEngine(miniredis.NewMiniRedis(), Options{MaxInstructions: -1}); err == nil {
		t.Errorf("NewEngine with MaxInstructions -1: no error")
	}
}

// TestDoRefusesBlocking checks the guard against commands that would block
// or start goroutines in miniredis, outside MULTI.
func TestDoRefusesBlocking(t *testing.T) {
	_, e := newNode(t, Options{})
	c := e.NewConn()
	c.Do("XADD", "s", "1-1", "f", "v")
	for _, tc := range []struct {
		args []string
		want resp.Reply
	}{
		{cmd("BLPOP", "l", "0"), resp.ErrorReply(msgNotSimulated("BLPOP"))},
		{cmd("brpoplpush", "a", "b", "1"), resp.ErrorReply(msgNotSimulated("brpoplpush"))},
		{cmd("SUBSCRIBE", "ch"), resp.ErrorReply(msgNotSimulated("SUBSCRIBE"))},
		{cmd("XREAD", "BLOCK", "0", "STREAMS", "s", "$"), resp.ErrorReply(msgNotSimulated("XREAD"))},
		{cmd("BLPOP", "l"), resp.ErrorReply("ERR wrong number of arguments for 'blpop' command")},
		{cmd("XREAD", "COUNT", "1", "STREAMS", "s", "0"),
			arr(arr(resp.BulkReply("s"), arr(arr(resp.BulkReply("1-1"), arr(resp.BulkReply("f"), resp.BulkReply("v"))))))},
		{cmd(), resp.ErrorReply("ERR locksim: empty command")},
	} {
		if diff := cmp.Diff(tc.want, c.Do(tc.args...)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.args, diff)
		}
	}
}

func arr(elems ...resp.Reply) resp.Reply {
	return resp.Reply{Kind: resp.Array, Elems: append([]resp.Reply{}, elems...)}
}

// TestFlush checks Engine.Flush on both paths: loaded scripts are gone.
func TestFlush(t *testing.T) {
	for _, opts := range []Options{{}, {Slow: true}} {
		_, e := newNode(t, opts)
		c := e.NewConn()
		sha := c.Do("SCRIPT", "LOAD", "return 1").Str
		e.Flush()
		if diff := cmp.Diff(resp.ErrorReply(msgNoScriptFound), c.Do("EVALSHA", sha, "0")); diff != "" {
			t.Errorf("slow=%v: EVALSHA after Flush (-want +got):\n%s", opts.Slow, diff)
		}
	}
}

// TestConnsKeepTheirDB checks that each Conn has its own selected DB and
// that scripts follow it.
func TestConnsKeepTheirDB(t *testing.T) {
	_, e := newNode(t, Options{})
	a, b := e.NewConn(), e.NewConn()
	a.Do("SELECT", "5")
	a.Do("EVAL", "return redis.call('SET', 'k', 'five')", "0")
	b.Do("EVAL", "return redis.call('SET', 'k', 'zero')", "0")
	got := []resp.Reply{a.Do("GET", "k"), b.Do("GET", "k"), a.Do("EVAL", "return redis.call('GET', 'k')", "0")}
	want := []resp.Reply{resp.BulkReply("five"), resp.BulkReply("zero"), resp.BulkReply("five")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCompileClearsVarArgNeedsArg(t *testing.T) {
	proto, err := compile(scriptRelease)
	if err != nil {
		t.Fatal(err)
	}
	if proto.IsVarArg&lua.VarArgNeedsArg != 0 {
		t.Errorf("IsVarArg = %b: vararg-needs-arg still set", proto.IsVarArg)
	}
}
