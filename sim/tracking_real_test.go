package sim

import (
	"strings"
	"testing"
	"time"

	"locksim/sim/resp"
	"locksim/sim/script/redistest"
)

// trackOps are two connections' commands: A tracks, B writes. After each
// one, A sends PING; what A receives before its PONG (the command's reply
// if it was A's, then the pushes) is compared between the simulated node
// and redis-server 7.0.15.
var trackOps = []struct {
	who  string
	args []string
}{
	{"A", []string{"HELLO", "3"}},
	{"A", []string{"CLIENT", "TRACKING", "ON"}},
	{"A", []string{"GET", "k"}},
	{"B", []string{"SET", "k", "v"}},
	{"B", []string{"SET", "k", "w"}},
	{"A", []string{"GET", "k"}},
	{"B", []string{"SET", "k", "w", "NX"}},
	{"B", []string{"SET", "k", "v"}},
	{"A", []string{"GET", "k"}},
	{"B", []string{"SET", "k", "v"}}, // the same value: Redis signals it
	{"A", []string{"GET", "k"}},
	{"B", []string{"PEXPIRE", "k", "100000"}},
	{"A", []string{"GET", "k"}},
	{"B", []string{"PEXPIRE", "k", "100000", "NX"}},
	{"B", []string{"PEXPIRE", "k", "200000"}},
	{"B", []string{"PEXPIREAT", "k", "4102444800000"}},
	{"A", []string{"GET", "k"}},
	{"B", []string{"PEXPIREAT", "k", "4102444800000"}}, // the same deadline: Redis signals it
	{"A", []string{"GET", "k"}},
	{"A", []string{"EVAL", "redis.call('GET', KEYS[1]); return redis.call('PEXPIRE', KEYS[1], 300000)", "1", "k"}},
	{"A", []string{"EVAL", "redis.call('GET', KEYS[1]); return redis.call('SET', KEYS[1], 'q', 'NX')", "1", "k"}},
	{"B", []string{"DEL", "k"}},
	{"A", []string{"CLIENT", "TRACKING", "ON", "NOLOOP"}},
	{"A", []string{"EVAL", "redis.call('GET', KEYS[1]); return redis.call('SET', KEYS[1], 'z')", "1", "k"}},
	{"B", []string{"DEL", "k"}},
	{"A", []string{"MGET", "k", "k2"}},
	{"B", []string{"MSET", "k", "1", "k2", "2"}},
	{"A", []string{"GET", "k"}},
	{"B", []string{"DEL", "nokey"}},
	{"B", []string{"FLUSHALL"}},
	{"A", []string{"CLIENT", "TRACKING", "OFF"}},
	{"A", []string{"CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "p:"}},
	{"B", []string{"MSET", "p:1", "a", "q", "b", "p:2", "c"}},
	{"B", []string{"SET", "q", "x"}},
	{"A", []string{"CLIENT", "TRACKING", "OFF"}},
	{"A", []string{"CLIENT", "TRACKING", "ON", "OPTIN"}},
	{"A", []string{"GET", "k"}},
	{"A", []string{"CLIENT", "CACHING", "YES"}},
	{"A", []string{"GET", "k2"}},
	{"B", []string{"MSET", "k", "3", "k2", "4"}},
	{"A", []string{"HELLO", "2"}},
}

// renderFrame renders a frame for the comparison: HELLO's map only by
// its kind (its client id differs).
func renderFrame(args []string, r resp.Reply) string {
	if args[0] == "HELLO" && (r.Kind == resp.Map || r.Kind == resp.Array) {
		return "(hello reply)"
	}
	return r.String()
}

// TestTrackingAgainstRedis runs trackOps on the simulated node and on
// redis-server (required with LOCKSIM_REQUIRE_REDIS=1).
func TestTrackingAgainstRedis(t *testing.T) {
	sim := trackingSim(t)
	if !redistest.Available() {
		redistest.NoteMissing(t)
		return
	}
	srv := redistest.Start(t, nil)
	if rel := redistest.Release(t, srv.Client); rel != Redis70.String() {
		redistest.Mismatch(t, rel, Redis70.String())
		return
	}
	conns := map[string]*redistest.Client{"A": srv.Client, "B": srv.Dial(t)}
	for i, op := range trackOps {
		var got []string
		r := conns[op.who].Do(t, op.args...)
		if op.who == "A" {
			got = append(got, renderFrame(op.args, r))
		} else {
			got = append(got, "B: "+r.String())
		}
		for f := conns["A"].Do(t, "PING"); f.Kind != resp.Status || f.Str != "PONG"; f = conns["A"].Read(t) {
			got = append(got, "push "+f.String())
		}
		if strings.Join(got, "\n") != strings.Join(sim[i], "\n") {
			t.Errorf("%s %q:\n  real %q\n  sim  %q", op.who, op.args, got, sim[i])
		}
	}
}

// trackingSim runs trackOps on the simulated node.
func trackingSim(t *testing.T) [][]string {
	w, a, b := trackWorld(t)
	streams := map[string]uint64{"A": a.Dial("m1"), "B": b.Dial("m1")}
	xs := map[string]*External{"A": a, "B": b}
	// Each step runs 10ms of virtual time (1ms links), not to the end:
	// the keys' TTLs must not run out.
	at := 10 * time.Millisecond
	step := func() []Effect {
		at += 10 * time.Millisecond
		w.AdvanceTo(at)
		return w.TakeEffects()
	}
	step()
	var out [][]string
	for _, op := range trackOps {
		xs[op.who].Send(streams[op.who], op.args)
		es := step()
		var got []string
		if op.who == "B" {
			for _, e := range es {
				if e.Proc == "B" && e.Kind == EffectData {
					got = append(got, "B: "+e.Reply.String())
				}
			}
		}
		a.Send(streams["A"], []string{"PING"})
		es = append(es, step()...)
		for _, e := range es {
			switch {
			case e.Proc != "A":
			case e.Kind == EffectPush:
				got = append(got, "push "+e.Reply.String())
			case e.Kind == EffectData && e.Reply.Kind == resp.Status && e.Reply.Str == "PONG":
			case e.Kind == EffectData:
				got = append(got, renderFrame(op.args, e.Reply))
			}
		}
		out = append(out, got)
	}
	return out
}
