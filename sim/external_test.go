package sim

import (
	"slices"
	"strings"
	"testing"
	"time"

	"locksim/network"
	"locksim/sim/resp"
)

// extWorld builds a world with one node r1 and one external client A.
func extWorld(t *testing.T, faults ...Fault) (*World, *External) {
	t.Helper()
	w, err := New(Config{
		Nodes:   []NodeConfig{{Name: "r1"}},
		Groups:  []GroupConfig{{Name: "m1", Primary: "r1"}},
		Clients: []ClientConfig{{Name: "A", External: true}},
		Network: network.Config{Default: network.Latency{Min: time.Millisecond, Max: time.Millisecond}},
		Faults:  faults,
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	return w, w.External("A")
}

// stepAll runs every event and returns the effects in order.
func stepAll(w *World) []Effect {
	var out []Effect
	for w.Step() {
		out = append(out, w.TakeEffects()...)
	}
	return append(out, w.TakeEffects()...)
}

func effectKinds(es []Effect) []EffectKind {
	var out []EffectKind
	for _, e := range es {
		out = append(out, e.Kind)
	}
	return out
}

func TestExternalStreamRoundTrip(t *testing.T) {
	w, x := extWorld(t)
	id := x.Dial("m1")
	es := stepAll(w)
	if len(es) != 1 || es[0].Kind != EffectDialed || es[0].Stream != id {
		t.Fatalf("dial effects = %+v, want one EffectDialed", es)
	}
	x.Send(id, []string{"SET", "k", "v", "NX", "PX", "1000"})
	x.Send(id, []string{"HELLO", "3"})
	x.Send(id, []string{"CLIENT", "SETINFO", "LIB-NAME", "go-redis"})
	x.Send(id, []string{"GET", "k"})
	w.AdvanceTo(4 * time.Millisecond) // dialed at 2ms; one round trip
	es = w.TakeEffects()
	want := []resp.Reply{resp.OK, resp.ErrorReply("ERR unknown command 'HELLO': locksim's nodes speak RESP2 only"), resp.OK, resp.BulkReply("v")}
	if len(es) != len(want) {
		t.Fatalf("effects = %+v, want %d replies", es, len(want))
	}
	for i, e := range es {
		if e.Kind != EffectData || e.Reply.String() != want[i].String() {
			t.Errorf("effect %d = %+v, want data %v", i, e, want[i])
		}
	}
	x.Exit("")
	h, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	text := h.Text()
	for _, k := range []string{"dial ", "dialed ", "call ", "reply ", "exec ", "task-end"} {
		if !strings.Contains(text, " "+k) {
			t.Errorf("history has no %q event:\n%s", k, text)
		}
	}
}

func TestExternalStreamResetByNodeCrash(t *testing.T) {
	w, x := extWorld(t, Fault{Kind: FaultNodeCrash, Target: "r1", At: 10 * time.Millisecond, Dur: 100 * time.Millisecond})
	id := x.Dial("r1")
	w.AdvanceTo(5 * time.Millisecond)
	w.TakeEffects()
	w.AdvanceTo(20 * time.Millisecond)
	if es := w.TakeEffects(); len(es) != 1 || es[0].Kind != EffectReset || es[0].Stream != id {
		t.Fatalf("effects after the crash = %+v, want EffectReset", es)
	}
	id2 := x.Dial("r1")
	w.AdvanceTo(30 * time.Millisecond)
	if es := w.TakeEffects(); len(es) != 1 || es[0].Kind != EffectRefused || es[0].Stream != id2 {
		t.Fatalf("dial to a crashed node = %+v, want EffectRefused", es)
	}
	w.AdvanceTo(200 * time.Millisecond)
	id3 := x.Dial("r1")
	w.AdvanceTo(210 * time.Millisecond)
	if es := w.TakeEffects(); len(es) != 1 || es[0].Kind != EffectDialed || es[0].Stream != id3 {
		t.Fatalf("dial after the restart = %+v, want EffectDialed", es)
	}
}

func TestExternalPauseHoldsDeliveries(t *testing.T) {
	// A pause triggered by the client's own call: the reply arrives while
	// it is frozen and comes out at the resume, before EffectResume.
	w, x := extWorld(t, Fault{Kind: FaultPause, Target: "A", Dur: time.Second, After: &Trigger{Actor: "A", Kind: KindCall}})
	id := x.Dial("r1")
	w.AdvanceTo(5 * time.Millisecond)
	w.TakeEffects()
	x.Send(id, []string{"PING"})
	if es := w.TakeEffects(); len(es) != 1 || es[0].Kind != EffectPause {
		t.Fatalf("effects right after the call = %+v, want EffectPause", es)
	}
	w.AdvanceTo(500 * time.Millisecond)
	if es := w.TakeEffects(); len(es) != 0 {
		t.Fatalf("effects during the pause = %+v, want none", es)
	}
	w.AdvanceTo(2 * time.Second)
	es := w.TakeEffects()
	if got := effectKinds(es); len(got) != 2 || got[0] != EffectData || got[1] != EffectResume {
		t.Fatalf("effects at the resume = %+v, want data then resume", es)
	}
}

func TestExternalDropBreaksStream(t *testing.T) {
	w, x := extWorld(t, Fault{Kind: FaultDrop, From: "r1", To: "A", Count: 1, At: 0, Dur: time.Hour})
	id := x.Dial("r1")
	es := stepAll(w)
	// The dial's answer is the first message r1 -> A: lost, so the dial breaks.
	if len(es) != 1 || es[0].Kind != EffectReset || es[0].Stream != id {
		t.Fatalf("effects = %+v, want EffectReset", es)
	}
}

func TestExternalFaultsRefused(t *testing.T) {
	for _, f := range []Fault{
		{Kind: FaultClockJump, Target: "A", By: time.Second, At: time.Millisecond},
		{Kind: FaultClockDrift, Target: "A", RatePPM: 1000, At: time.Millisecond},
	} {
		_, err := New(Config{
			Nodes:   []NodeConfig{{Name: "r1"}},
			Groups:  []GroupConfig{{Name: "m1", Primary: "r1"}},
			Clients: []ClientConfig{{Name: "A", External: true}},
			Faults:  []Fault{f},
		}, 1)
		if err == nil || !strings.Contains(err.Error(), "client A is external") {
			t.Errorf("%s: err = %v, want a refusal naming the external client", f, err)
		}
	}
}

// A crash of an external process breaks its streams (a command on its way
// vanishes), delivers nothing more to it, and with a restart asks the
// driver for a new program (EffectRestart) after the downtime.
func TestExternalCrashAndRestart(t *testing.T) {
	w, x := extWorld(t, Fault{Kind: FaultCrash, Target: "A", At: 5 * time.Millisecond, Restart: true, Dur: 10 * time.Millisecond})
	id := x.Dial("r1")
	for w.Step() {
		if es := w.TakeEffects(); len(es) > 0 && es[0].Kind == EffectDialed {
			break
		}
	}
	x.Send(id, []string{"SET", "k", "v"})
	var got []EffectKind
	for w.Step() {
		got = append(got, effectKinds(w.TakeEffects())...)
	}
	if want := []EffectKind{EffectData, EffectCrash, EffectRestart}; !slices.Equal(got, want) && !slices.Equal(got, want[1:]) {
		t.Fatalf("effects = %v, want the crash, then the restart", got)
	}
	if slices.Contains(got, EffectData) && slices.Index(got, EffectData) > slices.Index(got, EffectCrash) {
		t.Errorf("a reply reached the crashed process: %v", got)
	}
	kinds := map[Kind]bool{}
	for _, e := range w.log.history() {
		kinds[e.Kind] = true
	}
	if !kinds[KindCrash] || !kinds[KindRestart] {
		t.Errorf("history lacks the crash or the restart: %v", kinds)
	}
}

func TestExternalSentinelEndpoint(t *testing.T) {
	w, err := New(Config{
		Nodes:    []NodeConfig{{Name: "r1"}, {Name: "r2"}},
		Groups:   []GroupConfig{{Name: "m1", Primary: "r1", Replicas: []string{"r2"}}},
		Clients:  []ClientConfig{{Name: "A", External: true}},
		Sentinel: SentinelConfig{Enabled: true, DownAfter: time.Second},
		Network:  network.Config{Default: network.Latency{Min: time.Millisecond, Max: time.Millisecond}},
		Faults:   []Fault{{Kind: FaultNodeCrash, Target: "r1", At: 100 * time.Millisecond}},
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	x := w.External("A")
	id := x.Dial(SentinelName)
	w.AdvanceTo(10 * time.Millisecond)
	w.TakeEffects()
	x.Send(id, []string{"SENTINEL", "get-master-addr-by-name", "m1"})
	x.Send(id, []string{"SUBSCRIBE", "+switch-master"})
	w.AdvanceTo(20 * time.Millisecond)
	var got []string
	for _, e := range w.TakeEffects() {
		got = append(got, e.Reply.String())
	}
	w.AdvanceTo(2 * time.Second) // r1 down at 0.1s, r2 promoted at 1.1s
	for _, e := range w.TakeEffects() {
		got = append(got, e.Reply.String())
	}
	want := []string{`["r1", "6379"]`, `["subscribe", "+switch-master", (integer) 1]`, `["message", "+switch-master", "m1 r1 6379 r2 6379"]`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sentinel replies:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
