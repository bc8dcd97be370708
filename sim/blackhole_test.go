package sim

import (
	"strings"
	"testing"
	"time"
)

// TestPartitionForeverResetsOrBlackholes: a stream cut for good by a
// partition resets at once by default, while under mode=blackhole its
// request vanishes and nothing comes back: the client learns only by its
// own read deadline (issue 37, point 1).
func TestPartitionForeverResetsOrBlackholes(t *testing.T) {
	for _, blackhole := range []bool{false, true} {
		w, x := extWorld(t, Fault{Kind: FaultPartition, A: []string{"A"}, B: []string{"r1"}, At: 10 * time.Millisecond, Blackhole: blackhole})
		id := x.Dial("r1")
		w.AdvanceTo(5 * time.Millisecond)
		if es := w.TakeEffects(); len(es) != 1 || es[0].Kind != EffectDialed {
			t.Fatalf("blackhole=%v: dial = %+v, want EffectDialed", blackhole, es)
		}
		w.AdvanceTo(20 * time.Millisecond)
		x.Send(id, []string{"PING"})
		w.AdvanceTo(time.Minute)
		es := w.TakeEffects()
		switch {
		case !blackhole && (len(es) != 1 || es[0].Kind != EffectReset):
			t.Errorf("reset: effects = %+v, want one EffectReset", es)
		case blackhole && len(es) != 0:
			t.Errorf("blackhole: effects = %+v, want none (the request vanished, the stream stays up)", es)
		}
		x.Exit("")
		h, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		text := h.Text()
		if blackhole != strings.Contains(text, "the stream stays up") || blackhole == strings.Contains(text, " reset ") {
			t.Errorf("blackhole=%v: history:\n%s", blackhole, text)
		}
		if blackhole && !strings.Contains(text, "(blackhole)") {
			t.Errorf("the partition event does not say blackhole:\n%s", text)
		}
	}
}

// TestDialTimesOut: a dial into a blackhole is never answered and fails
// after Config.DialTimeout (default 5s) with ErrDialTimeout, recorded as
// a timeout of the dial; into a reset partition it fails at once; a dial
// that a healing partition holds back past the timeout times out too.
func TestDialTimesOut(t *testing.T) {
	cases := []struct {
		name string
		f    Fault
		at   time.Duration // when the dial fails
		err  error
	}{
		{"blackhole", Fault{Kind: FaultPartition, A: []string{"A"}, B: []string{"r1"}, Blackhole: true}, DefaultDialTimeout, ErrDialTimeout},
		{"reset", Fault{Kind: FaultPartition, A: []string{"A"}, B: []string{"r1"}}, 0, ErrReset},
		{"held back 6s", Fault{Kind: FaultPartition, A: []string{"A"}, B: []string{"r1"}, Dur: 6 * time.Second}, DefaultDialTimeout, ErrDialTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, x := extWorld(t, c.f)
			w.AdvanceTo(time.Millisecond)
			id := x.Dial("r1")
			w.AdvanceTo(time.Millisecond + c.at - time.Microsecond)
			if es := w.TakeEffects(); c.at > 0 && len(es) != 0 {
				t.Fatalf("before the timeout: %+v, want nothing", es)
			}
			w.AdvanceTo(time.Millisecond + c.at + time.Millisecond)
			es := w.TakeEffects()
			if len(es) != 1 || es[0].Kind != EffectReset || es[0].Stream != id || es[0].Err != c.err {
				t.Fatalf("effects = %+v, want EffectReset with %v", es, c.err)
			}
			w.AdvanceTo(10 * time.Second)
			if es := w.TakeEffects(); len(es) != 0 {
				t.Fatalf("after the failure: %+v, want nothing more", es)
			}
		})
	}
}
