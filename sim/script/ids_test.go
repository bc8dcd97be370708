package script

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/sim/resp"
)

// TestNoAddressesInValues: tables, functions, threads and userdata print as
// a per-run id in order of first print, never as a Go address, so the same
// command gives the same bytes on every engine and every run.
func TestNoAddressesInValues(t *testing.T) {
	b := resp.BulkReply
	for _, tc := range []struct {
		script string
		want   resp.Reply
	}{
		{"return tostring({})", b("table: 0x0001")},
		{"local t = {} return {tostring(t), tostring({}), tostring(t), tostring(print), tostring(print)}",
			arr(b("table: 0x0001"), b("table: 0x0002"), b("table: 0x0001"), b("function: 0x0003"), b("function: 0x0003"))},
		{"return tostring(coroutine.create(function() end))", b("thread: 0x0001")},
		{"return tostring(newproxy())", b("userdata: 0x0001")},
		{"return tostring(setmetatable({}, {__tostring = function() return 'mine' end}))", b("mine")},
		{"return string.format('%s and %s', tostring({}), tostring(print))", b("table: 0x0001 and function: 0x0002")},
		{"return {err = tostring({})}", resp.ErrorReply("table: 0x0001")},
		{"return {ok = tostring(print)}", resp.Reply{Kind: resp.Status, Str: "function: 0x0001"}},
		{"return tostring(12) .. tostring(nil) .. tostring(true)", b("12niltrue")},
		{"local ok, e = pcall(function() local x = 1; x[{}] = 2 end) return e",
			b(":1: attempt to index a non-table object(number) with key 'table: 0x0001'")},
		{"return 'table: 0x12345678'", b("table: 0x12345678")}, // a script's own text is its own
	} {
		for _, e := range []*Engine{newEngine(t), newEngine(t)} {
			c := e.NewConn()
			for range 2 { // ids restart with every run
				if diff := cmp.Diff(tc.want, c.Do("EVAL", tc.script, "0")); diff != "" {
					t.Errorf("%s (-want +got):\n%s", tc.script, diff)
				}
			}
		}
	}
}

func TestNoAddressesInErrors(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"error({})", "ERR Error compiling script (new function): table: 0x0001"},
		{"error(print)", "ERR Error compiling script (new function): function: 0x0001"},
		{"_G[{}] = 1", "Script attempted to create global variable 'table: 0x0001'"},
		{"local x = 1; x[{}] = 2", "with key 'table: 0x0001'"},
		{"local x = 1; return x[print]", "with key 'function: 0x0001'"},
	} {
		for _, e := range []*Engine{newEngine(t), newEngine(t)} {
			got := e.NewConn().Do("EVAL", tc.script, "0")
			if got.Kind != resp.Error || !strings.Contains(got.Str, tc.want) || strings.Contains(got.Str, "0xc") {
				t.Errorf("%s: got %s, want an error containing %q", tc.script, got, tc.want)
			}
		}
	}
}

func newEngine(t *testing.T) *Engine {
	_, e := newNode(t, Options{})
	return e
}
