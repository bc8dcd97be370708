package invariant

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/sim"
)

// TestLiveness: histories built in Go. The setnx-expire deadlock, a crash
// holding the lock, and the edges (the bound, the heal, a holder's
// deadline) are in testdata/check/liveness.txt (TestCheckData).
func TestLiveness(t *testing.T) {
	tests := []struct {
		name  string
		h     sim.History
		bound time.Duration
		want  []Violation
	}{
		{
			name: "a client whose task ended no longer wants the lock",
			h: newHist().
				at(0).add(acquired("B", "B:1", 0, "r1", 1)).
				at(10).add(acqStart("A", "A:1")).
				at(20).add(taskEnd("A")).
				at(100).add(release("B", "B:1", 0)).
				at(3000).add(resRead("Z", 0)).h,
			bound: time.Second,
		},
		{
			name: "no faults, nobody holds, nobody acquires",
			h: newHist().
				at(0).add(acqStart("B", "B:1")).
				at(3000).add(acqFailed("B", "B:1")).h,
			bound: time.Second,
			want: []Violation{{
				Invariant: Liveness,
				Clients:   []string{"B"},
				From:      0,
				To:        time.Second,
				Events:    []int{0},
				Explanation: "no client acquired the lock in the 1.000000s after 0.000000s, when it was wanted and no client was in a critical section: " +
					"there were no faults; B was trying to acquire since 0.000000s; no node held the lock key lock",
			}},
		},
		{
			name: "no faults, but the links' configured loss: said, with the first loss",
			h: newHist().
				at(0).add(acqStart("B", "B:1")).
				at(5).add(sim.Event{Actor: "B", Task: "main", Kind: sim.KindLost, Peer: "r1", Note: "loss (request); the stream stays up"}).
				at(3000).add(acqFailed("B", "B:1")).h,
			bound: time.Second,
			want: []Violation{{
				Invariant: Liveness,
				Clients:   []string{"B"},
				From:      0,
				To:        time.Second,
				Events:    []int{0, 1},
				Explanation: "no client acquired the lock in the 1.000000s after 0.000000s, when it was wanted and no client was in a critical section: " +
					"there were no faults, but the links' configured loss lost 1 message(s) by then (the first at 0.005000s); B was trying to acquire since 0.000000s; no node held the lock key lock",
			}},
		},
		{
			name: "each gap is reported once, and a later gap again",
			h: newHist().
				at(0).add(acqStart("B", "B:1")).
				at(2000).add(acquired("B", "B:1", 0, "r1", 1)).
				at(2100).add(release("B", "B:1", 0), acqStart("C", "C:1")).
				at(4000).add(acqFailed("C", "C:1")).h,
			bound: time.Second,
			want: []Violation{
				{
					Invariant: Liveness,
					Clients:   []string{"B"},
					From:      0,
					To:        time.Second,
					Events:    []int{0},
					Explanation: "no client acquired the lock in the 1.000000s after 0.000000s, when it was wanted and no client was in a critical section: " +
						"there were no faults; B was trying to acquire since 0.000000s; no node held the lock key lock",
				},
				{
					Invariant: Liveness,
					Clients:   []string{"C"},
					From:      ms(2100),
					To:        ms(3100),
					Events:    []int{3},
					Explanation: "no client acquired the lock in the 1.000000s after 2.100000s, when it was wanted and no client was in a critical section: " +
						"there were no faults; C was trying to acquire since 2.100000s; no node held the lock key lock",
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := only(Check(tt.h, Config{LivenessBound: tt.bound}), Liveness)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check liveness (-want +got):\n%s", diff)
			}
		})
	}
}

// The three lists sorted and merged give exactly what one stable sort of
// them one after the other gives, for lists nearly in order and for lists
// in no order (the insertion sort's budget runs out), ties included.
func TestOrderPointsIsAStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 400 {
		n := [3]int{r.IntN(30), r.IntN(30), r.IntN(10)}
		var all []livenessPoint
		for l := range 3 {
			at := time.Duration(0)
			for i := range n[l] {
				if round%2 == 0 {
					at += time.Duration(r.IntN(3)) // nearly in order
				} else {
					at = time.Duration(r.IntN(20)) // in no order
				}
				all = append(all, livenessPoint{at: at, pos: r.IntN(4) - 1, trying: int8(l), holding: int8(i)})
			}
		}
		want := slices.Clone(all)
		slices.SortStableFunc(want, func(a, b livenessPoint) int {
			if a.at != b.at {
				return int(a.at - b.at)
			}
			return a.pos - b.pos
		})
		buf := make([]livenessPoint, len(all), 2*len(all))
		copy(buf, all)
		if got := orderPoints(buf, n[0], n[1]); !slices.Equal(got, want) {
			t.Fatalf("round %d: lists of %v:\n got %v\nwant %v", round, n, got, want)
		}
	}
}
