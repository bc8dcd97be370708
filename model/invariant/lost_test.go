package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/model/history"
	"locksim/sim"
)

func TestLostUpdate(t *testing.T) {
	gc := gcPause().h
	// A reads 0 and pauses; B and C each complete an increment; A writes 1.
	two := newHist().
		at(0).add(acquired("A", "A:1", 0, "r1", 1), resRead("A", 0)).
		at(10).add(acquired("B", "B:1", 0, "r1", 1), resRead("B", 0)).
		at(20).add(write("B", "B:1", 0, 1), resWrite("B", "B:1", 0, 1)).
		at(30).add(acquired("C", "C:1", 0, "r1", 1), resRead("C", 1)).
		at(40).add(write("C", "C:1", 0, 2), resWrite("C", "C:1", 0, 2)).
		at(50).add(write("A", "A:1", 0, 1), resWrite("A", "A:1", 0, 1)).h
	gcText := "A's write at 1.600000s set the resource to 1 from the 0 it read at 0.051000s, but the resource held 1 " +
		"after B's write at 1.060000s (1): B's increment was lost"
	gcEvents := []int{seq(gc, history.ResourceName, history.KindResRead, 1), seq(gc, history.ResourceName, history.KindResWrite, 1), seq(gc, history.ResourceName, history.KindResWrite, 2)}
	tests := []struct {
		name string
		h    sim.History
		want []Violation
	}{
		{
			name: "gc-pause, unfenced: A overwrites B's increment",
			h:    gc,
			want: []Violation{{
				Invariant:   LostUpdate,
				Clients:     []string{"A", "B"},
				From:        ms(1060),
				To:          ms(1600),
				Events:      gcEvents,
				Explanation: gcText,
			}},
		},
		{
			name: "two increments lost",
			h:    two,
			want: []Violation{{
				Invariant: LostUpdate,
				Clients:   []string{"A", "B", "C"},
				From:      ms(20),
				To:        ms(50),
				Events:    []int{1, 5, 9, 11},
				Explanation: "A's write at 0.050000s set the resource to 1 from the 0 it read at 0.000000s, but the resource held 2 " +
					"after B's write at 0.020000s (1), C's write at 0.040000s (2): 2 increments were lost",
			}},
		},
		{
			name: "gc-pause, fenced: the stale write is rejected, nothing is lost",
			h:    gcPauseTokens(41, 42, true).h,
		},
		{
			name: "sequential read-modify-writes from a non-zero start",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "r1", 1), resRead("A", 40)).
				at(10).add(write("A", "A:1", 0, 41), resWrite("A", "A:1", 0, 41), release("A", "A:1", 0)).
				at(20).add(acquired("B", "B:1", 0, "r1", 1), resRead("B", 41)).
				at(30).add(write("B", "B:1", 0, 42), resWrite("B", "B:1", 0, 42), release("B", "B:1", 0)).h,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := only(Check(tt.h, Config{}), LostUpdate)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check lost update (-want +got):\n%s", diff)
			}
		})
	}
}
