package history

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/clock"
	"locksim/sim"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// h builds a history from events, numbering them and setting Local to At
// where unset (a perfect clock).
func h(es ...sim.Event) sim.History {
	for i := range es {
		es[i].Seq = i
		if es[i].Local == 0 {
			es[i].Local = es[i].At
		}
	}
	return es
}

// TrueAt inverts a client's monotonic clock from its own events, exactly
// (to the nanosecond) across rate changes, as clock.TrueAfterMono does.
func TestTrueAtFollowsTheClientClock(t *testing.T) {
	c, _ := clock.New(clock.Config{RatePPM: 20_000})
	before, _ := clock.New(clock.Config{RatePPM: 20_000}) // the same clock, never changed
	var es []sim.Event
	for at := time.Duration(0); at <= ms(2000); at += ms(137) {
		if at == ms(959) {
			_ = c.SetRatePPM(at, -150_000)
			es = append(es, sim.Event{At: at, Actor: "A", Kind: sim.KindClockDrift, N: -150_000, Local: c.Mono(at)})
			continue
		}
		es = append(es, sim.Event{At: at, Actor: "A", Kind: sim.KindCall, Local: c.Mono(at)})
	}
	ix := New(h(es...))
	for _, target := range []time.Duration{ms(5), ms(500), ms(958), ms(1500), ms(1999), ms(3000)} {
		want := before.TrueAfterMono(0, target-before.Mono(0))
		if target > c.Mono(ms(959)) {
			want = c.TrueAfterMono(ms(959), target-c.Mono(ms(959)))
		}
		if got := ix.TrueAt("A", target); got < want-1 || got > want+1 {
			t.Errorf("TrueAt(mono %v) = %v, want %v (within 1ns)", target, got, want)
		}
	}
}

// A section ends at the instant the client's believed lease runs out,
// before the release it invokes later; a renewal that came back in time
// moves the deadline, one that came back after it does not.
func TestSectionEndsAtTheDeadline(t *testing.T) {
	acq := sim.Event{At: ms(10), Actor: "A", Task: "main", Kind: KindAcquired, Key: "lock", Value: "A:1", N: 1, Dur: ms(100), Peer: "r1"}
	renew := func(at, dur int) sim.Event {
		return sim.Event{At: ms(at), Actor: "A", Task: "watchdog", Kind: KindRenew, Key: "lock", Value: "A:1", N: 1, Dur: ms(dur)}
	}
	rel := sim.Event{At: ms(400), Actor: "A", Task: "main", Kind: KindRelease, Key: "lock", Value: "A:1"}
	for _, tc := range []struct {
		name string
		es   []sim.Event
		to   time.Duration
		end  SectionEnd
	}{
		{"no renewal", []sim.Event{acq, rel}, ms(110), EndDeadline},
		{"renewed in time", []sim.Event{acq, renew(60, 100), rel}, ms(160), EndDeadline},
		{"renewed too late", []sim.Event{acq, renew(120, 100), rel}, ms(110), EndDeadline},
		{"released first", []sim.Event{acq, renew(60, 400), rel}, ms(400), EndReleased},
	} {
		ix := New(h(tc.es...))
		s := ix.Sections[0]
		if s.To != tc.to || s.End != tc.end {
			t.Errorf("%s: section ends at %v (%s), want %v (%s)", tc.name, s.To, s.End, tc.to, tc.end)
		}
	}
}

// A lease survives a crash the node comes back from with the key; it is
// lost at the restart when the node comes back without it, and at a
// promotion of a node without it.
func TestLeaseAcrossCrashesAndFailovers(t *testing.T) {
	set := sim.Event{At: ms(1), Actor: "r1", Kind: sim.KindKey, Key: "lock", Value: "A:1", Dur: time.Second, Note: "SET"}
	acq := sim.Event{At: ms(2), Actor: "A", Kind: KindAcquired, Key: "lock", Value: "A:1", N: 1, Peer: "r1"}
	crash := []sim.Event{{At: ms(10), Actor: "r1", Kind: sim.KindNodeCrash, Dur: ms(90)}, {At: ms(10), Actor: "r1", Kind: sim.KindKey, Key: "lock", Note: "node crashed"}}
	up := sim.Event{At: ms(100), Actor: "r1", Kind: sim.KindNodeUp, Note: "persistence aof-always"}
	back := sim.Event{At: ms(100), Actor: "r1", Kind: sim.KindKey, Key: "lock", Value: "A:1", Note: "restart"}
	end := sim.Event{At: ms(500), Actor: "A", Kind: KindRelease, Key: "lock", Value: "A:1"}
	promote := sim.Event{At: ms(50), Actor: "r2", Kind: sim.KindPromote, Key: "m1", Peer: "r1"}

	kept := New(h(append(append([]sim.Event{set, acq}, crash...), up, back, end)...))
	for _, pos := range []int{3, 5, 6, 7} { // down, at the node-up, after the restore
		if !kept.Alive("r1", "lock", "A:1", pos) {
			t.Errorf("kept: lease dead before event %d", pos)
		}
	}
	empty := New(h(append(append([]sim.Event{set, acq}, crash...), up, end)...))
	if !empty.Alive("r1", "lock", "A:1", 4) {
		t.Errorf("empty: lease dead while the node was down")
	}
	l, lost := empty.LossOf("r1", "lock", "A:1", 6)
	if want := (Loss{Pos: 4, Cause: LostRestart, Node: "r1"}); !lost || !cmp.Equal(want, l) {
		t.Errorf("empty: loss %+v (%v), want %+v", l, lost, want)
	}
	failover := New(h(append(append([]sim.Event{set, acq}, crash...), promote, end)...))
	if failover.Alive("r1", "lock", "A:1", 5) {
		t.Errorf("failover: lease alive after r2 was promoted without it")
	}
	if l, _ := failover.LossOf("r1", "lock", "A:1", 5); l.Cause != LostFailover || l.Node != "r2" {
		t.Errorf("failover: loss %+v, want a failover to r2", l)
	}
}

// Writes are matched to the requests that carried them in FIFO order per
// client; a request the network lost never reaches the resource.
func TestWritesMatchTheirRequests(t *testing.T) {
	call := func(at int, args ...string) sim.Event {
		return sim.Event{At: ms(at), Actor: "A", Kind: sim.KindCall, Peer: ResourceName, Args: args}
	}
	ix := New(h(
		sim.Event{At: ms(1), Actor: "A", Kind: KindWrite, Value: "A:1", N: 1},
		call(1, "WRITE", "0", "A:1", "1"),
		sim.Event{At: ms(1), Actor: "A", Kind: sim.KindLost, Peer: ResourceName, Note: "partitioned (request)"},
		sim.Event{At: ms(5), Actor: "A", Kind: KindWrite, Value: "A:2", N: 2},
		call(5, "WRITE", "0", "A:2", "2"),
		call(6, "READ"),
		sim.Event{At: ms(7), Actor: ResourceName, Kind: KindResWrite, Peer: "A", Value: "A:2", N: 2, Reply: "(integer) 1"},
		sim.Event{At: ms(8), Actor: ResourceName, Kind: KindResRead, Peer: "A", N: 2, Reply: "(integer) 2"},
	))
	want := []Write{
		{Client: "A", Prepared: 0, Sent: 1, Applied: -1, Value: "A:1", N: 1},
		{Client: "A", Prepared: 3, Sent: 4, Applied: 6, Accepted: true, Value: "A:2", N: 2},
	}
	if diff := cmp.Diff(want, ix.Writes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Read{{Client: "A", Sent: 5, Served: 7, N: 2}}, ix.Reads); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}

// Overlapping pauses merge into one span that ends at the resume.
func TestPausesMerge(t *testing.T) {
	ix := New(h(
		sim.Event{At: ms(0), Actor: "A", Kind: sim.KindPause, Dur: ms(100)},
		sim.Event{At: ms(50), Actor: "A", Kind: sim.KindPause, Dur: ms(100)},
		sim.Event{At: ms(150), Actor: "A", Kind: sim.KindResume},
	))
	if want := []Span{{From: 0, To: ms(150), FromPos: 0, ToPos: 2}}; !cmp.Equal(want, ix.Pauses["A"]) {
		t.Errorf("pauses %+v, want %+v", ix.Pauses["A"], want)
	}
}

// Owner names the client of a value's first acquire-start or acquired
// event, whichever came first (the map is built on the first call, from
// Attempts and Acquisitions merged in history order), reads a reentrant
// hash's "owner=count" rendering by its field, and is rebuilt for the
// next history of a reused index.
func TestOwnerIsTheFirstToDrawTheValue(t *testing.T) {
	hist := h(
		sim.Event{At: ms(1), Actor: "A", Kind: KindAcquireStart, Key: "lock", Value: "v1"},
		sim.Event{At: ms(2), Actor: "B", Kind: KindAcquired, Key: "lock", Value: "v1", Peer: "r1", N: 1},
		sim.Event{At: ms(3), Actor: "B", Kind: KindAcquired, Key: "lock", Value: "v2", Peer: "r1", N: 1},
		sim.Event{At: ms(4), Actor: "A", Kind: KindAcquireStart, Key: "lock", Value: "v2"},
		sim.Event{At: ms(5), Actor: "C", Kind: KindAcquireStart, Key: "lock", Value: "v3"},
	)
	ix := New(hist)
	for v, want := range map[string]string{"v1": "A", "v2": "B", "v3": "C", "v3=2": "C", "v3=1,x=2": "C", "v4": "", "": ""} {
		if got := ix.Owner(v); got != want {
			t.Errorf("Owner(%q) = %q, want %q", v, got, want)
		}
	}
	ix.Reuse(hist[3:])
	if got := ix.Owner("v1"); got != "" {
		t.Errorf("after Reuse, Owner(v1) = %q, want none: the last history's owners leaked", got)
	}
	if got := ix.Owner("v2"); got != "A" {
		t.Errorf("after Reuse, Owner(v2) = %q, want A", got)
	}
}

// Owner is safe for concurrent use on a new index, whose owner map the
// first call builds (run with -race to see a missing lock).
func TestOwnerConcurrently(t *testing.T) {
	ix := New(h(
		sim.Event{At: ms(1), Actor: "A", Kind: KindAcquireStart, Key: "lock", Value: "v1"},
		sim.Event{At: ms(2), Actor: "B", Kind: KindAcquireStart, Key: "lock", Value: "v2"},
	))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if got, want := ix.Owner([]string{"v1", "v2"}[i%2]), []string{"A", "B"}[i%2]; got != want {
				t.Errorf("Owner = %q, want %q", got, want)
			}
		})
	}
	wg.Wait()
}

// The pass's grants (cut from chunks) are Grants and their distinct
// nodes, for every shape of Peer, each slice capped at its length.
func TestBuilderGrantsAreSplitGrants(t *testing.T) {
	b := newBuilder(&Index{})
	for _, peer := range []string{"", "r1", " r1", "r1 ", "r1\u00a0", "r1,r2", "r1,,r2", " , ", "r1/k2", "r1/k1,r1/k2",
		"r1,r1", "r1,r2/x", "r1/lock", "/k"} {
		gs, nodes := b.grants(peer, "lock")
		want := splitGrants(peer, "lock")
		if diff := cmp.Diff(want, gs); diff != "" {
			t.Errorf("grants(%q) (-want +got):\n%s", peer, diff)
		}
		if diff := cmp.Diff(grantNodes(want), nodes); diff != "" {
			t.Errorf("nodes of %q (-want +got):\n%s", peer, diff)
		}
		if len(gs) > 0 && (cap(gs) != len(gs) || cap(nodes) != len(nodes)) {
			t.Errorf("grants(%q): capacity beyond the length: an append would write over the next section's", peer)
		}
	}
}
