package sim

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStalledNodeServesAtTheResume: a node stalled for 300ms at 100ms
// serves nothing meanwhile (A's GET and B's SET NX wait and time out on
// the client), its clock runs on, so the key A set with a 150ms TTL
// expires during the stall: at the resume the node records the expiry
// first, then runs the queued commands in arrival order, so B's queued
// SET NX succeeds on a key that is gone.
func TestStalledNodeServesAtTheResume(t *testing.T) {
	a := func(c *Ctx) error {
		c.Call("m1", 50*ms, "SET", "lock", "a", "NX", "PX", "150")
		c.Sleep(100 * ms) // the stall starts meanwhile
		c.Call("m1", 50*ms, "GET", "lock")
		return nil
	}
	b := func(c *Ctx) error {
		c.Sleep(150 * ms)
		c.Call("m1", 50*ms, "SET", "lock", "b", "NX", "PX", "1000")
		c.Sleep(time.Second)
		return nil
	}
	cfg := oneNode(ClientConfig{Name: "A", Main: a}, ClientConfig{Name: "B", Main: b})
	cfg.Network.Default.Max = cfg.Network.Default.Min // 1ms each way
	cfg.Faults = []Fault{{Kind: FaultNodeStall, Target: "r1", At: 50 * ms, Dur: 300 * ms}}
	h := mustRun(t, cfg, 1)

	stall, resume := kinds(h, "r1", KindNodeStall), kinds(h, "r1", KindNodeResume)
	if len(stall) != 1 || len(resume) != 1 || resume[0].At != 350*ms || resume[0].N != 2 {
		t.Fatalf("stall %v, resume %v: want one stall and one resume at 350ms with 2 commands waiting\n%s", stall, resume, h.Text())
	}
	var order []string
	for _, e := range h {
		if e.Actor != "r1" || e.At <= 50*ms || e.At > 350*ms {
			continue
		}
		switch e.Kind {
		case KindExec:
			if e.At != 350*ms {
				t.Errorf("r1 executed %v at %v, during its stall (50ms to 350ms)", e.Args, e.At)
			}
			order = append(order, e.Peer+" "+e.Args[0]+" "+e.Reply)
		case KindExpire:
			if e.At != 350*ms {
				t.Errorf("the key expired at %v; a stalled node drops it at its resume (350ms)", e.At)
			}
			order = append(order, "expire "+e.Key)
		}
	}
	want := []string{"expire lock", "A GET (nil)", "B SET OK"}
	if !slices.Equal(order, want) {
		t.Errorf("at the resume r1 did %q, want %q\n%s", order, want, h.Text())
	}
	for _, c := range []string{"A", "B"} {
		if len(kinds(h, c, KindTimeout)) != 1 || len(kinds(h, c, KindLateReply)) != 1 {
			t.Errorf("%s: want its stalled call to time out and its reply to come late\n%s", c, h.Text())
		}
	}
}

// TestStallPastDownAfterFailsOver: the sentinel gets no answer from a
// stalled primary, so a stall longer than down-after promotes the replica;
// the old primary, resumed, is demoted when it is reachable again.
func TestStallPastDownAfterFailsOver(t *testing.T) {
	main := func(c *Ctx) error {
		c.Call("m1", 100*ms, "SET", "k", "v")
		c.Sleep(3 * time.Second)
		return nil
	}
	for _, tc := range []struct {
		dur     time.Duration
		promote bool
	}{{500 * ms, false}, {1500 * ms, true}} {
		cfg := replicated(1, main)
		cfg.Faults = []Fault{{Kind: FaultNodeStall, Target: "r1", At: 100 * ms, Dur: tc.dur}}
		h := mustRun(t, cfg, 1)
		if got := len(kinds(h, "r2", KindPromote)) == 1; got != tc.promote {
			t.Errorf("stall of %v with down-after 1s: promoted %v, want %v\n%s", tc.dur, got, tc.promote, h.Text())
		}
		if tc.promote && len(kinds(h, "r1", KindDemote)) != 1 {
			t.Errorf("the old primary was not demoted after its stall\n%s", h.Text())
		}
	}
}

// TestNodeStallLine: the kind reads and prints as its table says, and a
// stall needs a positive length.
func TestNodeStallLine(t *testing.T) {
	f := Fault{Kind: FaultNodeStall, Target: "r1", At: time.Second, Dur: 300 * ms}
	if got, want := f.String(), "node-stall r1 at 1s for 300ms"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	cfg := oneNode(ClientConfig{Name: "A", Main: lockLoop(1, time.Second, ms)})
	cfg.Faults = []Fault{{Kind: FaultNodeStall, Target: "r1", At: ms}}
	if _, err := Run(cfg, 1); err == nil || !strings.Contains(err.Error(), "node-stall needs a positive duration") {
		t.Errorf("a stall without a length: err = %v", err)
	}
	cfg.Faults[0].Target = "A"
	cfg.Faults[0].Dur = ms
	if _, err := Run(cfg, 1); err == nil || !strings.Contains(err.Error(), `unknown node "A"`) {
		t.Errorf("a stall of a client: err = %v", err)
	}
}

// TestStalledNodeEvictsAndExpiresAtTheResume: a stalled node's thread
// runs nothing, so an eviction placed during the stall waits for the
// resume, and a clock jump moves its clock at once but the key it expires
// goes at the resume too; an eviction that finds its key gone by then
// never fired.
func TestStalledNodeEvictsAndExpiresAtTheResume(t *testing.T) {
	set := func(ttl string) func(c *Ctx) error {
		return func(c *Ctx) error {
			c.Call("m1", 50*ms, "SET", "lock", "a", "PX", ttl)
			c.Sleep(time.Second)
			return nil
		}
	}
	for _, tc := range []struct {
		name, ttl string
		fault     Fault
		kind      Kind // the event that takes the key
		fired     bool
	}{
		{"evict", "5000", Fault{Kind: FaultEvict, Target: "r1", Key: "lock", At: 100 * ms}, KindKey, true},
		{"clock jump", "300", Fault{Kind: FaultClockJump, Target: "r1", By: time.Second, At: 100 * ms}, KindExpire, true},
		// the key's TTL runs out during the stall: nothing is left to evict
		{"evict after the TTL", "100", Fault{Kind: FaultEvict, Target: "r1", Key: "lock", At: 200 * ms}, KindExpire, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := oneNode(ClientConfig{Name: "A", Main: set(tc.ttl)})
			cfg.Network.Default.Max = cfg.Network.Default.Min
			cfg.Faults = []Fault{{Kind: FaultNodeStall, Target: "r1", At: 50 * ms, Dur: 300 * ms}, tc.fault}
			w, err := New(cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			h, err := w.Run()
			if err != nil {
				t.Fatal(err)
			}
			var gone []Event
			for _, e := range h {
				if e.Actor == "r1" && e.Key == "lock" && (e.Kind == KindExpire || e.Kind == KindKey && e.Value == "") {
					gone = append(gone, e)
				}
			}
			if len(gone) != 1 || gone[0].Kind != tc.kind || gone[0].At != 350*ms {
				t.Errorf("the key went by %v; want one %s at the resume (350ms)\n%s", gone, tc.kind, h.Text())
			}
			if got := w.FaultOutcomes()[1].Fired(); got != tc.fired {
				t.Errorf("the %s fired: %v, want %v", tc.fault.Kind, got, tc.fired)
			}
		})
	}
}
