package sim

import (
	"strings"
	"testing"
	"time"

	"locksim/network"
)

// trackWorld is extWorld with RESP3 on and two external clients, A and B.
func trackWorld(t *testing.T, faults ...Fault) (*World, *External, *External) {
	t.Helper()
	w, err := New(Config{
		RESP3:   true,
		Nodes:   []NodeConfig{{Name: "r1"}},
		Groups:  []GroupConfig{{Name: "m1", Primary: "r1"}},
		Clients: []ClientConfig{{Name: "A", External: true}, {Name: "B", External: true}},
		Network: network.Config{Default: network.Latency{Min: time.Millisecond, Max: time.Millisecond}},
		Faults:  faults,
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.Start()
	return w, w.External("A"), w.External("B")
}

// replies renders the effects of one process: data as the reply, a push
// as "push " and the reply.
func rendered(es []Effect, proc string) []string {
	var out []string
	for _, e := range es {
		if e.Proc != proc {
			continue
		}
		switch e.Kind {
		case EffectData:
			out = append(out, e.Reply.String())
		case EffectPush:
			out = append(out, "push "+e.Reply.String())
		}
	}
	return out
}

func expect(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// A RESP3 connection with tracking on is told when a key it read
// changes: by another client's write (at once), by its own write (after
// its reply; not with NOLOOP), by expiry; a failed SET NX and a write
// to a key it did not read tell it nothing; a key is told once, until
// read again; FLUSHALL sends the flush push.
func TestTrackingInvalidations(t *testing.T) {
	w, a, b := trackWorld(t)
	sa, sb := a.Dial("m1"), b.Dial("m1")
	stepAll(w)
	a.Send(sa, []string{"HELLO", "3"})
	a.Send(sa, []string{"CLIENT", "TRACKING", "ON"})
	a.Send(sa, []string{"GET", "k"})
	es := stepAll(w)
	got := rendered(es, "A")
	if len(got) != 3 || !strings.HasPrefix(got[0], `{"server": "redis", "version": "7.0.15", "proto": (integer) 3, "id": (integer) 3`) || got[1] != "OK" || got[2] != "(nil)" {
		t.Fatalf("HELLO 3, tracking on, GET: %q", got)
	}
	b.Send(sb, []string{"SET", "other", "x"})
	b.Send(sb, []string{"SET", "k", "v"})
	b.Send(sb, []string{"SET", "k", "w", "NX"})
	b.Send(sb, []string{"SET", "k", "v2", "XX"})
	es = stepAll(w)
	expect(t, "B's writes, A told", rendered(es, "A"), `push >["invalidate", ["k"]]`)
	expect(t, "B's replies", rendered(es, "B"), "OK", "OK", "(nil)", "OK")

	a.Send(sa, []string{"EVAL", "redis.call('GET', KEYS[1]); return redis.call('PEXPIRE', KEYS[1], 100000)", "1", "k"})
	es = stepAll(w)
	expect(t, "A's own PEXPIRE in a script", rendered(es, "A"), "(integer) 1", `push >["invalidate", ["k"]]`)

	a.Send(sa, []string{"CLIENT", "TRACKING", "ON", "NOLOOP"})
	a.Send(sa, []string{"EVAL", "redis.call('GET', KEYS[1]); return redis.call('SET', KEYS[1], 'z')", "1", "k"})
	es = stepAll(w)
	expect(t, "NOLOOP", rendered(es, "A"), "OK", "OK")

	a.Send(sa, []string{"SET", "e", "1", "PX", "50"})
	a.Send(sa, []string{"GET", "e"})
	es = stepAll(w)
	expect(t, "expiry", rendered(es, "A"), "OK", `"1"`, `push >["invalidate", ["e"]]`)

	b.Send(sb, []string{"FLUSHALL"})
	es = stepAll(w)
	expect(t, "FLUSHALL", rendered(es, "A"), `push >["invalidate", (nil)]`)

	a.Exit("")
	b.Exit("")
	h, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	text := h.Text()
	for _, k := range []string{" invalidate ", " push "} {
		if !strings.Contains(text, k) {
			t.Errorf("history has no %q event", k)
		}
	}
}

// BCAST with a prefix: every modified key under it, one push per
// command; OPTIN tracks only after CLIENT CACHING YES; REDIRECT and a
// coroutine process's tracking are refused with the reason.
func TestTrackingModes(t *testing.T) {
	w, a, b := trackWorld(t)
	sa, sb := a.Dial("m1"), b.Dial("m1")
	stepAll(w)
	a.Send(sa, []string{"HELLO", "3"})
	a.Send(sa, []string{"CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "lock:"})
	b.Send(sb, []string{"HELLO", "3"})
	b.Send(sb, []string{"CLIENT", "TRACKING", "ON", "OPTIN"})
	b.Send(sb, []string{"GET", "x"})
	b.Send(sb, []string{"CLIENT", "CACHING", "YES"})
	b.Send(sb, []string{"GET", "y"})
	stepAll(w)
	b.Send(sb, []string{"MSET", "lock:1", "a", "lock:2", "b", "x", "1", "y", "2"})
	es := stepAll(w)
	expect(t, "BCAST", rendered(es, "A"), `push >["invalidate", ["lock:1", "lock:2"]]`)
	expect(t, "OPTIN", rendered(es, "B"), "OK", `push >["invalidate", ["y"]]`)

	a.Send(sa, []string{"CLIENT", "TRACKING", "ON", "REDIRECT", "7"})
	a.Send(sa, []string{"CLIENT", "TRACKING", "ON", "PREFIX", "a"})
	a.Send(sa, []string{"CLIENT", "TRACKING", "ON", "BCAST", "OPTIN"})
	a.Send(sa, []string{"CLIENT", "TRACKINGINFO"})
	es = stepAll(w)
	expect(t, "refusals", rendered(es, "A"), "(error) "+msgNoRedirect, "(error) ERR PREFIX option requires BCAST mode to be enabled",
		"(error) ERR OPTIN and OPTOUT are not compatible with BCAST", `{"flags": {"on", "bcast"}, "redirect": (integer) 0, "prefixes": ["lock:"]}`)
}

// A push travels the stream: a partition delays it, a drop window loses
// it and breaks the stream.
func TestTrackingPushesTravelTheNetwork(t *testing.T) {
	w, a, b := trackWorld(t, Fault{Kind: FaultPartition, At: 20 * time.Millisecond, Dur: 100 * time.Millisecond, A: []string{"A"}, B: []string{"r1"}})
	sa, sb := a.Dial("m1"), b.Dial("m1")
	a.Send(sa, []string{"HELLO", "3"})
	w.AdvanceTo(5 * time.Millisecond)
	a.Send(sa, []string{"CLIENT", "TRACKING", "ON"})
	a.Send(sa, []string{"GET", "k"})
	w.AdvanceTo(15 * time.Millisecond)
	w.TakeEffects()
	w.AdvanceTo(25 * time.Millisecond)
	b.Send(sb, []string{"SET", "k", "v"})
	w.AdvanceTo(110 * time.Millisecond)
	if got := rendered(w.TakeEffects(), "A"); len(got) != 0 {
		t.Errorf("A got %q during the partition, want nothing", got)
	}
	w.AdvanceTo(200 * time.Millisecond)
	expect(t, "after the heal", rendered(w.TakeEffects(), "A"), `push >["invalidate", ["k"]]`)
}
