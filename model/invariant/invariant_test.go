package invariant

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/model/history"
	"locksim/sim"
)

// hist builds a hand-made history: at sets the true time of the events
// added next; add assigns Seq and At (and Local = At when unset, a perfect
// clock). Times only move forward.
type hist struct {
	h   sim.History
	now time.Duration
}

func newHist() *hist { return &hist{} }

// at moves to true time t milliseconds.
func (b *hist) at(t float64) *hist {
	d := ms(t)
	if d < b.now {
		panic("hist: time goes backwards")
	}
	b.now = d
	return b
}

func (b *hist) add(es ...sim.Event) *hist {
	for _, e := range es {
		e.Seq, e.At = len(b.h), b.now
		if e.Local == 0 {
			e.Local = b.now
		}
		b.h = append(b.h, e)
	}
	return b
}

// ms converts milliseconds to a duration.
func ms(t float64) time.Duration { return time.Duration(t * float64(time.Millisecond)) }

// Events, as the designs, the workload, the nodes and the resource record
// them. The lock key is "lock" throughout.

func acqStart(c, v string) sim.Event {
	return sim.Event{Actor: c, Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: v, Dur: 3 * time.Second}
}

func acquired(c, v string, token int64, peer string, n int64) sim.Event {
	return sim.Event{Actor: c, Task: "main", Kind: history.KindAcquired, Key: "lock", Value: v, Token: token, Peer: peer, N: n}
}

func acqFailed(c, v string) sim.Event {
	return sim.Event{Actor: c, Task: "main", Kind: history.KindAcquireFailed, Key: "lock", Value: v, Note: "acquire wait ran out"}
}

func release(c, v string, n int64) sim.Event {
	return sim.Event{Actor: c, Task: "main", Kind: history.KindRelease, Key: "lock", Value: v, N: n}
}

func keySet(node, v, cause string) sim.Event {
	return sim.Event{Actor: node, Kind: sim.KindKey, Key: "lock", Value: v, Dur: time.Second, Note: cause}
}

func keyGone(node, cause string) sim.Event {
	return sim.Event{Actor: node, Kind: sim.KindKey, Key: "lock", Note: cause}
}

func expire(node, v string) sim.Event {
	return sim.Event{Actor: node, Kind: sim.KindExpire, Key: "lock", Value: v}
}

func exec(node, client string, args ...string) sim.Event {
	return sim.Event{Actor: node, Kind: sim.KindExec, Peer: client, Args: args}
}

func pause(c string, d float64) sim.Event {
	return sim.Event{Actor: c, Kind: sim.KindPause, Dur: ms(d)}
}

func resume(c string) sim.Event { return sim.Event{Actor: c, Kind: sim.KindResume} }

func crash(c string) sim.Event { return sim.Event{Actor: c, Kind: sim.KindCrash} }

func taskEnd(c string) sim.Event { return sim.Event{Actor: c, Task: "main", Kind: sim.KindTaskEnd} }

func resRead(c string, n int64) sim.Event {
	return sim.Event{Actor: history.ResourceName, Kind: history.KindResRead, Peer: c, N: n, Reply: "(integer) " + itoa(n)}
}

func write(c, v string, token, n int64) sim.Event {
	return sim.Event{Actor: c, Task: "main", Kind: history.KindWrite, Key: "lock", Value: v, Token: token, N: n}
}

// resWrite is the resource's answer to a write: accepted with the new
// value, as model/resource.go records it.
func resWrite(c, v string, token, value int64) sim.Event {
	return sim.Event{Actor: history.ResourceName, Kind: history.KindResWrite, Peer: c, Token: token, Value: v, N: value,
		Reply: "(integer) 1"}
}

// resReject is a write of 1 the resource rejected (rows affected 0).
func resReject(c, v string, token, last int64) sim.Event {
	return sim.Event{Actor: history.ResourceName, Kind: history.KindResWrite, Peer: c, Token: token, Value: v, N: 1,
		Reply: "(integer) 0", Note: "rejected: token " + itoa(token) + " <= last " + itoa(last)}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// only keeps the violations of one invariant.
func only(vs []Violation, inv ID) []Violation {
	var out []Violation
	for _, v := range vs {
		if v.Invariant == inv {
			out = append(out, v)
		}
	}
	return out
}

func TestBrokenAndOrder(t *testing.T) {
	vs := []Violation{
		{Invariant: TokenUnique, From: ms(5), Clients: []string{"B"}},
		{Invariant: MutualExclusion, From: ms(5), Clients: []string{"B", "C"}},
		{Invariant: MutualExclusion, From: ms(5), Clients: []string{"A", "C"}},
		{Invariant: StaleWrite, From: ms(1)},
	}
	sortViolations(vs)
	want := []Violation{
		{Invariant: StaleWrite, From: ms(1)},
		{Invariant: MutualExclusion, From: ms(5), Clients: []string{"A", "C"}},
		{Invariant: MutualExclusion, From: ms(5), Clients: []string{"B", "C"}},
		{Invariant: TokenUnique, From: ms(5), Clients: []string{"B"}},
	}
	if diff := cmp.Diff(want, vs); diff != "" {
		t.Errorf("sortViolations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]ID{MutualExclusion, StaleWrite, TokenUnique}, Broken(vs)); diff != "" {
		t.Errorf("Broken (-want +got):\n%s", diff)
	}
	if got := Broken(nil); got != nil {
		t.Errorf("Broken(nil) = %v, want nil", got)
	}
}

func TestCheckCapsEachInvariant(t *testing.T) {
	// Seven clients each hold the lock from their own acquire to the end
	// of the history, with A: 21 overlapping pairs, capped at 5.
	b := newHist()
	for i, c := range []string{"A", "B", "C", "D", "E", "F", "G"} {
		b.at(float64(10 * i)).add(acquired(c, c+":1", 0, "r1", 1))
	}
	got := Check(b.h, Config{})
	if len(got) != MaxPerInvariant {
		t.Fatalf("got %d violations, want %d", len(got), MaxPerInvariant)
	}
	var pairs [][]string
	for _, v := range got {
		pairs = append(pairs, v.Clients)
	}
	want := [][]string{{"A", "B"}, {"A", "C"}, {"B", "C"}, {"A", "D"}, {"B", "D"}}
	if diff := cmp.Diff(want, pairs); diff != "" {
		t.Errorf("first violations kept (-want +got):\n%s", diff)
	}
}

func TestCheckEmptyHistory(t *testing.T) {
	if got := Check(nil, Config{LivenessBound: time.Second, Reentrant: true}); got != nil {
		t.Errorf("Check(nil) = %v, want nil", got)
	}
}

// seq returns the Seq of the nth (from 1) event of actor and kind in h.
func seq(h sim.History, actor string, kind sim.Kind, nth int) int {
	for _, e := range h {
		if e.Actor == actor && e.Kind == kind {
			if nth--; nth == 0 {
				return e.Seq
			}
		}
	}
	panic("seq: no event " + actor + " " + string(kind))
}

// gcPause is the catalogue's gc-pause scenario on a single node with an
// unfenced resource: A acquires (ttl 1s) and reads 0, pauses 1.5s; its key
// expires; B acquires, reads 0, writes 1; A resumes, writes 1 (accepted)
// and releases; B releases.
func gcPause() *hist { return gcPauseTokens(0, 0, false) }

// gcPauseTokens is gcPause with fencing tokens tokA and tokB; with reject
// the resource rejects A's write.
func gcPauseTokens(tokA, tokB int64, reject bool) *hist {
	aWrite := resWrite("A", "A:1", tokA, 1)
	if reject {
		aWrite = resReject("A", "A:1", tokA, tokB)
	}
	return newHist().
		at(0).add(acqStart("A", "A:1")).
		at(1).add(exec("r1", "A", "SET", "lock", "A:1", "NX", "PX", "1000"), keySet("r1", "A:1", "SET")).
		at(50).add(acquired("A", "A:1", tokA, "r1", 1)).
		at(51).add(resRead("A", 0)).
		at(52).add(pause("A", 1500)).
		at(100).add(acqStart("B", "B:1")).
		at(1001).add(expire("r1", "A:1")).
		at(1003).add(exec("r1", "B", "SET", "lock", "B:1", "NX", "PX", "1000"), keySet("r1", "B:1", "SET")).
		at(1004).add(acquired("B", "B:1", tokB, "r1", 1)).
		at(1010).add(resRead("B", 0)).
		at(1060).add(write("B", "B:1", tokB, 1), resWrite("B", "B:1", tokB, 1)).
		at(1552).add(resume("A")).
		at(1600).add(write("A", "A:1", tokA, 1), aWrite).
		at(1650).add(release("A", "A:1", 0)).
		at(1700).add(release("B", "B:1", 0), exec("r1", "B", "EVAL"), keyGone("r1", "EVAL"))
}
