package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/model/history"
	"locksim/sim"
)

// fencingExample is a fenced resource's story as a run (fencing tokens as
// in Kleppmann's "How to do distributed locking", 2016): the resource's last
// accepted token is 40 (C's write); A acquires token 41 and pauses past
// its lease; B acquires token 42 and writes (accepted, 40 -> 42); A
// resumes and writes with 41, which a strict resource rejects.
func fencingExample() *hist {
	return newHist().
		at(0).add(acqStart("C", "C:1")).
		at(1).add(keySet("r1", "C:1", "EVAL")).
		at(2).add(acquired("C", "C:1", 40, "r1", 1)).
		at(3).add(resRead("C", 0)).
		at(10).add(write("C", "C:1", 40, 1), resWrite("C", "C:1", 40, 1)).
		at(20).add(release("C", "C:1", 0), exec("r1", "C", "EVAL"), keyGone("r1", "EVAL")).
		at(30).add(acqStart("A", "A:1")).
		at(31).add(keySet("r1", "A:1", "EVAL")).
		at(32).add(acquired("A", "A:1", 41, "r1", 1)).
		at(33).add(resRead("A", 1)).
		at(34).add(pause("A", 1500)).
		at(100).add(acqStart("B", "B:1")).
		at(1031).add(expire("r1", "A:1")).
		at(1033).add(keySet("r1", "B:1", "EVAL")).
		at(1034).add(acquired("B", "B:1", 42, "r1", 1)).
		at(1040).add(resRead("B", 1)).
		at(1090).add(write("B", "B:1", 42, 2), resWrite("B", "B:1", 42, 2)).
		at(1534).add(resume("A")).
		at(1600).add(write("A", "A:1", 41, 2), resReject("A", "A:1", 41, 42)).
		at(1650).add(release("A", "A:1", 0)).
		at(1700).add(release("B", "B:1", 0), exec("r1", "B", "EVAL"), keyGone("r1", "EVAL"))
}

// tokenRegression: A gets token 42 from primary r1 and pauses; r1 dies
// before replicating the counter; r2 is promoted and gives B token 42
// again; B writes; A resumes and writes with 42. A nonstrict resource
// accepts A's equal token; a strict one rejects it.
func regressionHist(accepted bool) *hist {
	aWrite := resReject("A", "A:1", 42, 42)
	if accepted {
		aWrite = resWrite("A", "A:1", 42, 1)
	}
	return newHist().
		at(0).add(acqStart("A", "A:1")).
		at(1).add(keySet("r1", "A:1", "EVAL")).
		at(2).add(acquired("A", "A:1", 42, "r1", 1)).
		at(3).add(resRead("A", 0)).
		at(4).add(pause("A", 1500)).
		at(10).add(acqStart("B", "B:1")).
		at(100).add(sim.Event{Actor: "r1", Kind: sim.KindNodeCrash}, keyGone("r1", "node crashed")).
		at(200).add(sim.Event{Actor: "r2", Kind: sim.KindPromote, Key: "m1", Peer: "r1"}).
		at(210).add(keySet("r2", "B:1", "EVAL")).
		at(211).add(acquired("B", "B:1", 42, "r2", 1)).
		at(220).add(resRead("B", 0)).
		at(230).add(write("B", "B:1", 42, 1), resWrite("B", "B:1", 42, 1)).
		at(240).add(release("B", "B:1", 0), keyGone("r2", "EVAL")).
		at(1504).add(resume("A")).
		at(1510).add(write("A", "A:1", 42, 1), aWrite).
		at(1520).add(release("A", "A:1", 0))
}

func TestFencingExample(t *testing.T) {
	// Strict: the resource stays safe (no stale write accepted, tokens in
	// order, nothing lost) while mutual exclusion is broken.
	got := Check(fencingExample().h, Config{Fencing: TokenAbove})
	if diff := cmp.Diff([]ID{MutualExclusion}, Broken(got)); diff != "" {
		t.Errorf("fencing example, strict: broken invariants (-want +got):\n%s", diff)
	}
	// Nonstrict, with a reissued token: the source granted 42 twice
	// (token-unique); the resource accepts the equal token, as its rule
	// allows (fencing holds), and an update is lost.
	h := regressionHist(true).h
	got = Check(h, Config{Fencing: TokenAtLeast})
	if diff := cmp.Diff([]ID{MutualExclusion, StaleWrite, LostUpdate, TokenUnique}, Broken(got)); diff != "" {
		t.Errorf("token regression, nonstrict: broken (-want +got):\n%s", diff)
	}
	want := []Violation{{
		Invariant: TokenUnique,
		Clients:   []string{"A", "B"},
		From:      ms(211),
		To:        ms(211),
		Tokens:    []int64{42, 42},
		Events:    []int{seq(h, "A", history.KindAcquired, 1), seq(h, "B", history.KindAcquireStart, 1), seq(h, "r2", sim.KindPromote, 1), seq(h, "B", history.KindAcquired, 1)},
		Explanation: "token 42 was granted twice: to A at 0.002000s from r1 and again to B at 0.211000s from r2, " +
			"although B started acquiring at 0.010000s, after the first grant; r2 was promoted to primary at 0.200000s",
	}}
	if diff := cmp.Diff(want, only(got, TokenUnique)); diff != "" {
		t.Errorf("token regression, nonstrict: token-unique (-want +got):\n%s", diff)
	}
	// Strict: the equal token is rejected, so the data is safe: only the
	// source's duplicate grant (and the lock's overlap) remain.
	got = Check(regressionHist(false).h, Config{Fencing: TokenAbove})
	if diff := cmp.Diff([]ID{MutualExclusion, TokenUnique}, Broken(got)); diff != "" {
		t.Errorf("token regression, strict: broken (-want +got):\n%s", diff)
	}
}

func TestTokens(t *testing.T) {
	regress := newHist().
		at(0).add(acqStart("A", "A:1")).
		at(10).add(acquired("A", "A:1", 42, "r1", 1)).
		at(20).add(acqStart("B", "B:1")).
		at(30).add(acquired("B", "B:1", 41, "r1", 1)).h
	concurrent := newHist().
		at(0).add(acqStart("A", "A:1")).
		at(5).add(acqStart("B", "B:1")).
		at(10).add(acquired("A", "A:1", 42, "r1", 1)).
		at(30).add(acquired("B", "B:1", 41, "r1", 1)).h
	brokenResource := newHist().
		at(10).add(resWrite("A", "A:1", 42, 1)).
		at(20).add(resWrite("B", "B:1", 41, 2)).h
	tests := []struct {
		name string
		h    sim.History
		cfg  Config
		want []Violation
	}{
		{
			name: "an acquisition that started after a grant got a smaller token",
			h:    regress,
			want: []Violation{{
				Invariant:   TokenUnique,
				Clients:     []string{"A", "B"},
				From:        ms(30),
				To:          ms(30),
				Tokens:      []int64{42, 41},
				Events:      []int{1, 2, 3},
				Explanation: "B started acquiring at 0.020000s, after A was granted token 42 at 0.010000s, yet was granted the smaller token 41 at 0.030000s from r1",
			}},
		},
		{
			name: "concurrent acquisitions may get tokens in either order",
			h:    concurrent,
		},
		{
			name: "nested reentrant acquires repeat the same grant",
			h: newHist().
				at(0).add(acqStart("A", "A:1")).
				at(10).add(acquired("A", "A:1", 7, "r1", 1)).
				at(20).add(acquired("A", "A:1", 7, "r1", 2)).h,
		},
		{
			name: "a strict resource that accepts an older token",
			h:    brokenResource,
			cfg:  Config{Fencing: TokenAbove},
			want: []Violation{{
				Invariant:   Fencing,
				Clients:     []string{"A", "B"},
				From:        ms(20),
				To:          ms(20),
				Tokens:      []int64{42, 41},
				Events:      []int{0, 1},
				Explanation: "the resource accepted B's write with token 41 at 0.020000s although it had already accepted token 42 from A at 0.010000s: a strict resource must reject a token at or below one it accepted",
			}},
		},
		{
			name: "a nonstrict resource may accept an equal token",
			h: newHist().
				at(10).add(resWrite("A", "A:1", 42, 1)).
				at(20).add(resWrite("B", "B:1", 42, 2)).h,
			cfg: Config{Fencing: TokenAtLeast},
		},
		{
			name: "a strict resource may not",
			h: newHist().
				at(10).add(resWrite("A", "A:1", 42, 1)).
				at(20).add(resWrite("B", "B:1", 42, 2)).h,
			cfg: Config{Fencing: TokenAbove},
			want: []Violation{{
				Invariant:   Fencing,
				Clients:     []string{"A", "B"},
				From:        ms(20),
				To:          ms(20),
				Tokens:      []int64{42, 42},
				Events:      []int{0, 1},
				Explanation: "the resource accepted B's write with token 42 at 0.020000s although it had already accepted token 42 from A at 0.010000s: a strict resource must reject a token at or below one it accepted",
			}},
		},
		{
			name: "an unfenced resource makes no token promise",
			h:    brokenResource,
			cfg:  Config{Fencing: NoFencing},
		},
		{
			name: "fencing example, strict",
			h:    fencingExample().h,
			cfg:  Config{Fencing: TokenAbove},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := append(only(Check(tt.h, tt.cfg), TokenUnique), only(Check(tt.h, tt.cfg), Fencing)...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check token invariants (-want +got):\n%s", diff)
			}
		})
	}
}
