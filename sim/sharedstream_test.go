package sim

import (
	"strings"
	"testing"
	"time"

	"locksim/network"
)

// TestSharedStream: external clients of one process (ClientConfig.Process,
// the goroutines A.1 and A.2 of process A) share a stream A.1 dialed: a
// command A.2 sends on it is A.2's call, runs on the node as A.2's and
// its reply comes back as A.2's; once A.1's program has returned, the
// stream's reset goes to A.2, which still uses it. A client of another
// process may not send on it.
func TestSharedStream(t *testing.T) {
	var hist []Event
	w, err := New(Config{
		Observe: func(_ *World, e Event) { hist = append(hist, e) },
		Nodes:   []NodeConfig{{Name: "r1"}},
		Groups:  []GroupConfig{{Name: "m1", Primary: "r1"}},
		Clients: []ClientConfig{{Name: "A.1", External: true, Process: "A"}, {Name: "A.2", External: true, Process: "A"},
			{Name: "B", External: true}},
		Network: network.Config{Default: network.Latency{Min: time.Millisecond, Max: time.Millisecond}},
		Faults:  []Fault{{Kind: FaultNodeCrash, Target: "r1", At: 20 * time.Millisecond}},
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	a1, a2 := w.External("A.1"), w.External("A.2")
	id := a1.Dial("m1")
	w.AdvanceTo(3 * time.Millisecond)
	w.TakeEffects()
	a1.Send(id, []string{"SET", "k", "one"})
	a2.Send(id, []string{"SET", "k", "two"})
	w.AdvanceTo(6 * time.Millisecond)
	es := w.TakeEffects()
	if len(es) != 2 || es[0].Proc != "A.1" || es[1].Proc != "A.2" || es[1].Stream != id {
		t.Fatalf("replies = %+v, want A.1's then A.2's on stream %d", es, id)
	}
	a1.Exit("")
	w.AdvanceTo(30 * time.Millisecond) // r1 crashes: the stream resets
	es = w.TakeEffects()
	if len(es) != 1 || es[0].Kind != EffectReset || es[0].Proc != "A.2" {
		t.Fatalf("after A.1 exited, the reset went to %+v, want A.2", es)
	}
	var calls, execs, replies []string
	for _, e := range hist {
		switch e.Kind {
		case KindCall:
			calls = append(calls, e.Actor+" "+strings.Join(e.Args, " "))
		case KindExec:
			execs = append(execs, e.Peer+" "+strings.Join(e.Args, " "))
		case KindReply:
			replies = append(replies, e.Actor)
		}
	}
	if strings.Join(calls, ",") != "A.1 SET k one,A.2 SET k two" || strings.Join(execs, ",") != "A.1 SET k one,A.2 SET k two" || strings.Join(replies, ",") != "A.1,A.2" {
		t.Fatalf("calls %q, execs %q, replies %q: want each command its sender's", calls, execs, replies)
	}
	w.External("B").Send(id, []string{"GET", "k"})
	if _, err := w.Finish(); err == nil || !strings.Contains(err.Error(), "Send on unknown stream") {
		t.Fatalf("B sent on A's stream: got %v, want the world to fail", err)
	}
}
