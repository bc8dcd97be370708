package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/model/history"
	"locksim/sim"
)

// reentrantHold: the reentrant-hash design stores owner=count in a hash;
// A holds twice, then (if lose) the key expires and B takes it before A
// writes.
func reentrantHold(lose bool) *hist {
	b := newHist().
		at(0).add(acqStart("A", "A:1")).
		at(1).add(keySet("r1", "A:1=1", "EVAL")).
		at(2).add(acquired("A", "A:1", 0, "r1", 1)).
		at(3).add(keySet("r1", "A:1=2", "EVAL")).
		at(4).add(acquired("A", "A:1", 0, "r1", 2)).
		at(5).add(resRead("A", 0))
	if lose {
		b.at(1002).add(expire("r1", "A:1=2")).
			at(1003).add(acqStart("B", "B:1"), keySet("r1", "B:1=1", "EVAL")).
			at(1004).add(acquired("B", "B:1", 0, "r1", 1))
	}
	return b.at(1500).add(write("A", "A:1", 0, 1), resWrite("A", "A:1", 0, 1))
}

// TestStaleWrite: histories built in Go. gc-pause with tokens, redlock's
// clock jump, the reentrant hash, failover and the edges (same instant,
// a node down) are in testdata/check/stale_write.txt (TestCheckData).
func TestStaleWrite(t *testing.T) {
	gc := gcPause().h
	tests := []struct {
		name string
		h    sim.History
		cfg  Config
		want []Violation
	}{
		{
			name: "reentrant hash: a hold count field keeps the lease alive",
			h:    reentrantHold(false).h,
		},
		{
			name: "a single-node lease is judged on its one node whatever the quorum",
			h:    gcPause().h[:seq(gc, history.ResourceName, history.KindResWrite, 1)+1],
			cfg:  Config{Quorum: 3},
		},
		{
			name: "no node is known to have granted the lease",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "", 1)).
				at(10).add(resWrite("A", "A:1", 0, 1)).h,
			want: []Violation{{
				Invariant:   StaleWrite,
				Clients:     []string{"A"},
				From:        ms(10),
				To:          ms(10),
				Events:      []int{0, 1},
				Explanation: "A wrote 1 at 0.010000s and the resource accepted it, but A's lease was gone: no node is known to have granted it",
			}},
		},
		{
			name: "a write sent inside the lease and delivered after it",
			h: newHist().
				at(0).add(acqStart("A", "A:1")).
				at(1).add(keySet("r1", "A:1", "SET")).
				at(2).add(acquired("A", "A:1", 0, "r1", 1)).
				at(3).add(resRead("A", 0)).
				at(50).add(write("A", "A:1", 0, 1)).
				at(52).add(release("A", "A:1", 0)).
				at(53).add(exec("r1", "A", "EVAL"), keyGone("r1", "EVAL")).
				at(60).add(acqStart("B", "B:1"), keySet("r1", "B:1", "SET")).
				at(61).add(acquired("B", "B:1", 0, "r1", 1)).
				at(62).add(resRead("B", 0)).
				at(70).add(write("B", "B:1", 0, 1), resWrite("B", "B:1", 0, 1)).
				at(80).add(release("B", "B:1", 0)).
				at(1550).add(resWrite("A", "A:1", 0, 1)).h,
			want: []Violation{{
				Invariant: StaleWrite,
				Clients:   []string{"A", "B"},
				From:      ms(1550),
				To:        ms(1550),
				Events:    []int{2, 4, 6, 7, 10, 15},
				Explanation: "A wrote 1 at 1.550000s and the resource accepted it, but A's lease was gone: " +
					"A sent the write at 0.050000s, before its lease was lost; " +
					"A's key on r1 was deleted at 0.053000s by A (EVAL); " +
					"B acquired at 0.061000s from r1",
			}},
		},
		{
			name: "a write with another client's value",
			h: newHist().
				at(0).add(acqStart("A", "A:1")).
				at(1).add(keySet("r1", "A:1", "SET")).
				at(2).add(acquired("A", "A:1", 0, "r1", 1)).
				at(10).add(resRead("Z", 0), resWrite("Z", "A:1", 0, 1)).h,
			want: []Violation{{
				Invariant:   StaleWrite,
				Clients:     []string{"Z"},
				From:        ms(10),
				To:          ms(10),
				Events:      []int{4},
				Explanation: `Z wrote 1 at 0.010000s and the resource accepted it, but Z never acquired the lock with value "A:1"`,
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := only(Check(tt.h, tt.cfg), StaleWrite)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check stale write (-want +got):\n%s", diff)
			}
		})
	}
}

// A "Redlock" of three keys on one node (redlock-one-node) needs two of
// them: its lease is alive while two still hold it, so that nobody else
// can gather two. Evicting one key keeps it; a restart that empties the
// node loses all three at once.
func TestStaleWriteThreeKeysOfOneNode(t *testing.T) {
	keyOf := func(e sim.Event, k string) sim.Event { e.Key = k; return e }
	build := func(lose func(*hist) *hist) sim.History {
		b := newHist().at(0).add(acqStart("A", "A:1"))
		for i, k := range []string{"lock1", "lock2", "lock3"} {
			b.at(float64(1+i)).add(exec("r1", "A", "EVAL", k, "A:1"), keyOf(keySet("r1", "A:1=1", "EVAL"), k))
		}
		b.at(5).add(acquired("A", "A:1", 0, "r1/lock1,r1/lock2,r1/lock3", 1))
		lose(b)
		return b.at(400).add(write("A", "A:1", 0, 1), resWrite("A", "A:1", 0, 1)).h
	}
	evictOne := build(func(b *hist) *hist {
		return b.at(100).add(keyOf(keyGone("r1", "evicted"), "lock2"))
	})
	restart := build(func(b *hist) *hist {
		b.at(100).add(sim.Event{Actor: "r1", Kind: sim.KindNodeCrash})
		b.at(101).add(keyOf(keyGone("r1", "node crashed"), "lock1"), keyOf(keyGone("r1", "node crashed"), "lock2"), keyOf(keyGone("r1", "node crashed"), "lock3"))
		return b.at(110).add(sim.Event{Actor: "r1", Kind: sim.KindNodeUp, Note: "persistence none"})
	})
	cfg := Config{Quorum: 2} // 3 keys - a majority of 2 + 1
	if got := only(Check(evictOne, cfg), StaleWrite); got != nil {
		t.Errorf("one key of three evicted: %v", got)
	}
	got := only(Check(restart, cfg), StaleWrite)
	want := "A wrote 1 at 0.400000s and the resource accepted it, but A's lease was gone (alive on 0 of 3 granted keys, 2 needed): " +
		"r1 restarted at 0.110000s without A's key lock1 (persistence none), after a crash at 0.100000s; " +
		"r1 restarted at 0.110000s without A's key lock2 (persistence none), after a crash at 0.100000s; " +
		"r1 restarted at 0.110000s without A's key lock3 (persistence none), after a crash at 0.100000s"
	if len(got) != 1 || got[0].Explanation != want {
		t.Errorf("r1 restarted empty:\n got: %v\nwant: %s", got, want)
	}
}

// TestSectionsBeforeIsTheBinarySearch: the walk from a hint (sectionOf's
// answer for the write before) finds what the binary search finds, from
// every hint, for every position, with repeated Acq values and with the
// hint past the end or beyond the answer.
func TestSectionsBeforeIsTheBinarySearch(t *testing.T) {
	acqs := []int{2, 3, 3, 5, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 30, 31, 40}
	for n := 0; n <= len(acqs); n++ {
		ss := make([]history.Section, n)
		for i := range ss {
			ss[i].Acq = acqs[i]
		}
		for pos := 0; pos <= 42; pos++ {
			want := 0
			for want < n && ss[want].Acq < pos {
				want++
			}
			for hint := 0; hint <= n+1; hint++ {
				if got := sectionsBefore(ss, pos, hint); got != want {
					t.Fatalf("%d sections, pos %d, hint %d: %d, want %d", n, pos, hint, got, want)
				}
			}
		}
	}
}
