package consensus

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"locksim/network"
	"locksim/sim"
	"locksim/sim/resp"
)

func TestKVCommands(t *testing.T) {
	s := newKV()
	step := func(idx uint64, cmd string) string {
		args := strings.Fields(cmd)
		if r, ok := validate(args); !ok && args[0] != opExpire {
			return short(r)
		}
		r, _ := s.apply(idx, args)
		return short(r)
	}
	for _, tc := range []struct{ cmd, want string }{
		{"GRANT 1000", "[10 1000]"},
		{"PUTNX lock A:1 10", "[1 10]"},
		{"PUTNX lock B:1 10", "(nil)"},
		{"PUTNX lock A:1 10", "[1 10]"}, // a retry of the same acquisition
		{"KEEPALIVE 10", "1000"},
		{"DEL lock B:1", "0"},
		{"EXPIRE 10", "1"},
		{"KEEPALIVE 10", "0"},
		{"GRANT 500", "[19 500]"},
		{"PUTNX lock B:1 19", "[3 19]"}, // the expire was revision 2
		{"DEL lock B:1", "1"},
		{"REVOKE 19", "1"},
		{"PUTNX lock C:1 19", "ERR lease not found"},
		{"GRANT 0", "ERR invalid TTL"},
		{"PUTNX lock", "ERR wrong number of arguments for 'PUTNX'"},
	} {
		idx := uint64(10)
		if strings.HasPrefix(tc.cmd, "GRANT 500") {
			idx = 19
		}
		if got := step(idx, tc.cmd); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.cmd, got, tc.want)
		}
	}
	if r, ok := validate([]string{"EXPIRE", "10"}); ok || short(r) != "ERR unknown command 'EXPIRE'" {
		t.Errorf("a client may send EXPIRE: %s", r.String())
	}
	if s.rev != 4 {
		t.Errorf("revision %d after four writes", s.rev)
	}
}

// short renders a reply compactly: 7, [1 2], (nil), or the error text.
func short(r resp.Reply) string {
	switch r.Kind {
	case resp.Int:
		return strconv.FormatInt(r.Int, 10)
	case resp.Array:
		var ws []string
		for _, e := range r.Elems {
			ws = append(ws, short(e))
		}
		return "[" + strings.Join(ws, " ") + "]"
	case resp.Error:
		return r.Str
	}
	return r.String()
}

// leaseRun grants a 2s lease at 2s, binds a key to it, keeps it alive
// every 300ms while keepFor lasts, and reports when the key's lease ran
// out (the first expire event) in true time.
func leaseRun(t *testing.T, keepFor time.Duration, leaderPPM int64) (expired time.Duration, h sim.History) {
	t.Helper()
	cl, err := NewCluster(clusterNames, Config{})
	if err != nil {
		t.Fatal(err)
	}
	call := func(ctx *sim.Ctx, args ...string) resp.Reply {
		for range 20 {
			for _, n := range clusterNames {
				if r, err := ctx.Call(n, time.Second, args...); err == nil && !r.IsError() {
					return r
				}
			}
		}
		t.Errorf("%v: no node answered", args)
		return resp.Reply{}
	}
	client := func(ctx *sim.Ctx) error {
		ctx.Sleep(2 * time.Second)
		g := call(ctx, "GRANT", "2000")
		id := strconv.FormatInt(g.Elems[0].Int, 10)
		call(ctx, "PUTNX", "lock", "A:1", id)
		for start := ctx.Now(); ctx.Now()-start < keepFor; {
			ctx.Sleep(300 * time.Millisecond)
			call(ctx, "KEEPALIVE", id)
		}
		ctx.Sleep(5 * time.Second)
		return nil
	}
	var faults []sim.Fault
	if leaderPPM != 0 {
		for _, n := range clusterNames { // whichever leads runs fast
			faults = append(faults, sim.Fault{Kind: sim.FaultClockDrift, Target: n, At: time.Second, RatePPM: leaderPPM})
		}
	}
	h, err = sim.Run(sim.Config{
		Nodes:   cl.NodeConfigs(nil),
		Clients: []sim.ClientConfig{{Name: "A", Main: client}},
		Network: network.Config{Default: network.Latency{Min: time.Millisecond, Max: 3 * time.Millisecond}},
		Faults:  faults,
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range h {
		if e.Kind == sim.KindExpire {
			return e.At, h
		}
	}
	return -1, h
}

func TestLeaseExpiresOnLeaderClock(t *testing.T) {
	plain, _ := leaseRun(t, 0, 0)
	kept, _ := leaseRun(t, 3*time.Second, 0)
	fast, _ := leaseRun(t, 0, 500_000) // every clock at 1.5x the true rate
	if plain < 4*time.Second || plain > 4500*time.Millisecond {
		t.Errorf("an unrenewed 2s lease granted at 2s expired at %v, want about 4s (a tick and a commit late)", plain)
	}
	if kept < plain+3*time.Second {
		t.Errorf("a lease kept alive 3s expired at %v, the unrenewed one at %v", kept, plain)
	}
	if fast < 0 || fast > plain-500*time.Millisecond {
		t.Errorf("with the leader's clock at 1.5x the lease expired at %v, at 1x at %v: want about a third of the TTL earlier", fast, plain)
	}
	t.Logf("expired at %v, kept alive %v, leader at 1.5x %v", plain, kept, fast)
}
