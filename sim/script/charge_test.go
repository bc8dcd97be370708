package script

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/alicebob/miniredis/v2/server"
)

func TestVMLayout(t *testing.T) {
	if layoutErr != nil {
		t.Fatalf("gopher-lua's internals moved; the memory budget cannot work: %v", layoutErr)
	}
}

// TestChargesCoverHeap checks the memory budget against the Go heap: for
// each shape a script keeps alive, the bytes charged must be at least the
// live heap it grew (measured after a GC, from inside the script), so the
// budget bounds what a run can hold.
func TestChargesCoverHeap(t *testing.T) {
	m, e := newNode(t, Options{MaxInstructions: 50_000_000, MaxMemory: 1 << 30})
	if err := m.Server().Register("LOCKSIM.HEAP", func(c *server.Peer, _ string, _ []string) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		c.WriteInt(int(ms.HeapAlloc))
	}); err != nil {
		t.Fatal(err)
	}
	c := e.NewConn()
	for _, tc := range []struct{ name, build string }{
		{"array of booleans", "t[i] = true"},
		{"array of numbers", "t[i] = i + 0.5"},
		{"array of strings", "t[i] = tostring(i) .. 'x'"},
		{"hash of negative keys", "t[-i] = true"},
		{"hash of string keys", "t['k' .. i] = true"},
		{"empty tables", "t[i] = {}"},
		{"tables of one field", "t[i] = {ok = 'x'}"},
		{"status replies", "t[i] = redis.status_reply('x')"},
		{"closures", "t[i] = function() return i end"},
		{"sparse keys", "t[i * 10] = true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 100_000
			script := `local h0 = redis.call('LOCKSIM.HEAP')
				local t = {} for i = 1, ` + strconv.Itoa(n) + ` do ` + tc.build + ` end
				local h1 = redis.call('LOCKSIM.HEAP')
				return {h0, h1, #t}`
			r := c.Do("EVAL", script, "0")
			if len(r.Elems) != 3 {
				t.Fatalf("script: %s", r)
			}
			live := r.Elems[1].Int - r.Elems[0].Int
			_, charged := e.lua.budget.used()
			t.Logf("live heap %d B/element, charged %d B/element", live/n, charged/n)
			if charged < live {
				t.Errorf("charged %d bytes for a live heap of %d bytes", charged, live)
			}
		})
	}
}
