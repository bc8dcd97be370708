package sim

import (
	"strconv"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"locksim/clock"
	"locksim/network"
	"locksim/sim/resp"
	"locksim/sim/script"
)

// counter is a minimal resource for the standard run: READ and WRITE v.
type counter struct{ v int64 }

func (c *counter) Handle(_ *ServiceCtx, _ string, args []string) resp.Reply {
	if args[0] == "WRITE" {
		c.v, _ = strconv.ParseInt(args[1], 10, 64)
		return resp.IntReply(1)
	}
	return resp.IntReply(c.v)
}

// standardClient is the benchmark workload: back-to-back lock cycles for
// 60s of its clock: SET NX PX 1000 with exponential backoff, a 50ms
// read-modify-write, a Lua compare-and-delete.
func standardClient(c *Ctx) error {
	for i := 0; c.Now() < 60*time.Second; i++ {
		v := c.Name() + strconv.Itoa(i)
		backoff := 5 * ms
		for {
			r, err := c.Call("m1", 200*ms, "SET", "lock", v, "NX", "PX", "1000")
			if err == nil && r.Kind == resp.Status {
				break
			}
			c.Sleep(backoff/2 + time.Duration(c.Rand().Int64N(int64(backoff/2))))
			backoff = min(2*backoff, 100*ms)
		}
		r, _ := c.Call("resource", 200*ms, "READ")
		c.Sleep(50 * ms)
		c.Call("resource", 200*ms, "WRITE", strconv.FormatInt(r.Int+1, 10))
		c.Call("m1", 200*ms, "EVAL", "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) else return 0 end", "1", "lock", v)
	}
	return nil
}

func standardConfig() Config {
	return Config{
		Nodes:    []NodeConfig{{Name: "r1"}},
		Groups:   []GroupConfig{{Name: "m1", Primary: "r1"}},
		Services: []ServiceConfig{{Name: "resource", Handler: &counter{}}},
		Clients:  []ClientConfig{{Name: "A", Main: standardClient}, {Name: "B", Main: standardClient}},
		Network:  network.Config{Default: network.Latency{Min: ms, Max: ms}},
	}
}

// BenchmarkStandardRun reports runs/s and virtual seconds per wall second
// (vsec/s) of the standard 60s two-client run.
func BenchmarkStandardRun(b *testing.B) {
	b.ReportAllocs()
	var events int
	for i := 0; i < b.N; i++ {
		w, err := New(standardConfig(), uint64(i))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Run(); err != nil {
			b.Fatal(err)
		}
		events = w.Events()
	}
	perRun := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(1/perRun, "runs/s")
	b.ReportMetric(60/perRun, "vsec/s")
	b.ReportMetric(float64(events), "events/run")
}

// BenchmarkStandardRunDispatchFloor replays the standard run's command
// stream straight into miniredis's dispatch path (SetTime per command, no
// simulation): the floor the simulator's overhead is measured against.
func BenchmarkStandardRunDispatchFloor(b *testing.B) {
	h, err := Run(standardConfig(), 0)
	if err != nil {
		b.Fatal(err)
	}
	type cmd struct {
		local time.Duration
		args  []string
	}
	var stream []cmd
	for _, e := range h {
		if e.Actor == "r1" && e.Kind == KindExec {
			stream = append(stream, cmd{e.Local, e.Args})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := miniredis.NewMiniRedis()
		m.SetTime(clock.Epoch)
		m.ClockTTL(true)
		eng, err := script.NewEngine(m, script.Options{})
		if err != nil {
			b.Fatal(err)
		}
		rc := eng.NewConn()
		for _, c := range stream {
			m.SetTime(clock.Epoch.Add(c.local))
			rc.Do(c.args...)
		}
	}
	b.ReportMetric(float64(len(stream)), "cmds/run")
}
