package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/sim"
)

func TestReentrancy(t *testing.T) {
	tests := []struct {
		name      string
		h         sim.History
		reentrant bool
		want      []Violation
	}{
		{
			name: "nested holds count up and back down",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "r1", 1)).
				at(10).add(acquired("A", "A:1", 0, "r1", 2), acquired("A", "A:1", 0, "r1", 3)).
				at(20).add(release("A", "A:1", 2), release("A", "A:1", 1)).
				at(30).add(release("A", "A:1", 0)).
				at(40).add(acquired("B", "B:1", 0, "r1", 1), release("B", "B:1", 0)).h,
			reentrant: true,
		},
		{
			name: "an acquire skips a count",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "r1", 1)).
				at(10).add(acquired("A", "A:1", 0, "r1", 3)).h,
			reentrant: true,
			want: []Violation{{
				Invariant:   Reentrancy,
				Clients:     []string{"A"},
				From:        ms(10),
				To:          ms(10),
				Events:      []int{0, 1},
				Explanation: "A acquired at 0.010000s leaving hold count 3 while it held 1 (expected 2)",
			}},
		},
		{
			name: "a release skips to 0",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "r1", 1), acquired("A", "A:1", 0, "r1", 2)).
				at(10).add(release("A", "A:1", 0)).h,
			reentrant: true,
			want: []Violation{{
				Invariant:   Reentrancy,
				Clients:     []string{"A"},
				From:        ms(10),
				To:          ms(10),
				Events:      []int{1, 2},
				Explanation: "A released at 0.010000s leaving hold count 0 while it held 2 (expected 1)",
			}},
		},
		{
			name: "a release with no hold would go negative",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "r1", 1)).
				at(10).add(release("A", "A:1", 0)).
				at(20).add(release("A", "A:1", 0)).h,
			reentrant: true,
			want: []Violation{{
				Invariant:   Reentrancy,
				Clients:     []string{"A"},
				From:        ms(20),
				To:          ms(20),
				Events:      []int{1, 2},
				Explanation: "A released at 0.020000s while it held no lock (hold count would be -1)",
			}},
		},
		{
			name: "a crash forgets the count",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "r1", 1)).
				at(10).add(crash("A")).
				at(20).add(sim.Event{Actor: "A", Kind: sim.KindRestart}, acquired("A", "A:2", 0, "r1", 1)).h,
			reentrant: true,
		},
		{
			name: "not checked unless the run is reentrant",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "r1", 1)).
				at(10).add(acquired("A", "A:1", 0, "r1", 3)).h,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := only(Check(tt.h, Config{Reentrant: tt.reentrant}), Reentrancy)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check reentrancy (-want +got):\n%s", diff)
			}
		})
	}
}
