package script

import (
	"strconv"
	"testing"

	"locksim/sim/resp"
)

// BenchmarkEval runs the lock-release script on a held lock (so both its
// redis.calls, GET and DEL, run) on the fast path and on miniredis's own
// EVAL. The locks are set in batches with the timer stopped, so ns/op and
// allocs/op are the EVAL's alone.
func BenchmarkEval(b *testing.B) {
	const batch = 1024
	keys := make([]string, batch)
	for i := range keys {
		keys[i] = "lock:" + strconv.Itoa(i)
	}
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"fast", Options{}},
		{"miniredis", Options{Slow: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			_, e := newNode(b, bc.opts)
			c := e.NewConn()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if i%batch == 0 {
					b.StopTimer()
					for _, k := range keys {
						c.Do("SET", k, "token")
					}
					b.StartTimer()
				}
				r := c.Do("EVAL", scriptRelease, "1", keys[i%batch], "token")
				if r.Kind != resp.Int || r.Int != 1 {
					b.Fatalf("release: %s", r)
				}
				i++
			}
		})
	}
}

// BenchmarkDispatchGET is the floor: one plain command through Dispatch.
func BenchmarkDispatchGET(b *testing.B) {
	_, e := newNode(b, Options{})
	c := e.NewConn()
	c.Do("SET", "lock", "token")
	b.ReportAllocs()
	for b.Loop() {
		if r := c.Do("GET", "lock"); r.Kind != resp.Bulk {
			b.Fatalf("GET: %s", r)
		}
	}
}

// BenchmarkLoop is a script of 30,000 VM instructions (a counting loop):
// the cost of the budget's poll before every instruction.
func BenchmarkLoop(b *testing.B) {
	_, e := newNode(b, Options{})
	c := e.NewConn()
	b.ReportAllocs()
	for b.Loop() {
		if r := c.Do("EVAL", "local n = 0 for i = 1, 10000 do n = n + i end return n", "0"); r.Kind != resp.Int {
			b.Fatalf("loop: %s", r)
		}
	}
}
