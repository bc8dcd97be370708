package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/sim"
)

// TestMutex: histories built in Go. The catalogue's scenarios (gc-pause,
// stale-release, pause-during-acquire) and the edges of a section (same
// instant, deadlines, renewals) are in testdata/check/mutual_exclusion.txt
// (TestCheckData).
func TestMutex(t *testing.T) {
	// Both hold to the end: A acquires, its key expires, B acquires.
	open := newHist().
		at(50).add(acquired("A", "A:1", 0, "r1", 1)).
		at(1001).add(expire("r1", "A:1")).
		at(1003).add(keySet("r1", "B:1", "SET")).
		at(1004).add(acquired("B", "B:1", 0, "r1", 1)).
		at(1200).add(resRead("B", 0)).h
	// Reentrant: A's section lasts until its hold count is back to 0.
	nested := newHist().
		at(0).add(acquired("A", "A:1", 0, "r1", 1)).
		at(100).add(acquired("A", "A:1", 0, "r1", 2)).
		at(200).add(release("A", "A:1", 1)).
		at(300).add(acquired("B", "B:1", 0, "r1", 1)).
		at(400).add(release("A", "A:1", 0)).
		at(500).add(release("B", "B:1", 0)).h
	nestedOK := newHist().
		at(0).add(acquired("A", "A:1", 0, "r1", 1)).
		at(100).add(acquired("A", "A:1", 0, "r1", 2)).
		at(200).add(release("A", "A:1", 1)).
		at(400).add(release("A", "A:1", 0), acquired("B", "B:1", 0, "r1", 1)).
		at(500).add(release("B", "B:1", 0)).h
	tests := []struct {
		name string
		h    sim.History
		want []Violation
	}{
		{
			name: "both still hold at the end of the history",
			h:    open,
			want: []Violation{{
				Invariant: MutualExclusion,
				Clients:   []string{"A", "B"},
				From:      ms(1004),
				To:        ms(1200),
				Events:    []int{0, 1, 3},
				Explanation: "A and B both held the lock from 1.004000s to 1.200000s (0.196000s): " +
					"A acquired at 0.050000s from r1; " +
					"A's key on r1 expired at 1.001000s (node clock 1.001000s); " +
					"B acquired at 1.004000s from r1; " +
					"both still held it when the history ended at 1.200000s",
			}},
		},
		{
			name: "minority primary: a partition and a promotion",
			h: newHist().
				at(2).add(keySet("r1", "A:1", "SET"), acquired("A", "A:1", 0, "r1", 1)).
				at(10).add(sim.Event{Actor: "fault", Kind: sim.KindPartition, Note: "r1,A | r2,B"}).
				at(1000).add(sim.Event{Actor: "r2", Kind: sim.KindPromote}).
				at(1100).add(keySet("r2", "B:1", "SET"), acquired("B", "B:1", 0, "r2", 1)).
				at(1200).add(release("B", "B:1", 0)).
				at(2000).add(release("A", "A:1", 0)).h,
			want: []Violation{{
				Invariant: MutualExclusion,
				Clients:   []string{"A", "B"},
				From:      ms(1100),
				To:        ms(1200),
				Events:    []int{1, 2, 3, 5, 6},
				Explanation: "A and B both held the lock from 1.100000s to 1.200000s (0.100000s): " +
					"A acquired at 0.002000s from r1; " +
					"a partition r1,A | r2,B started at 0.010000s; " +
					"r2 was promoted to primary at 1.000000s; " +
					"B acquired at 1.100000s from r2; " +
					"B held it until it released at 1.200000s",
			}},
		},
		{
			name: "a fast node clock expires the key early",
			h: newHist().
				at(0).add(sim.Event{Actor: "r1", Kind: sim.KindClockDrift, N: 500000}).
				at(1).add(keySet("r1", "A:1", "SET")).
				at(2).add(acquired("A", "A:1", 0, "r1", 1)).
				at(667).add(sim.Event{Actor: "r1", Kind: sim.KindExpire, Key: "lock", Value: "A:1", Local: ms(1001)}).
				at(699).add(keySet("r1", "B:1", "SET")).
				at(700).add(acquired("B", "B:1", 0, "r1", 1)).
				at(800).add(release("B", "B:1", 0)).
				at(900).add(release("A", "A:1", 0)).h,
			want: []Violation{{
				Invariant: MutualExclusion,
				Clients:   []string{"A", "B"},
				From:      ms(700),
				To:        ms(800),
				Events:    []int{0, 2, 3, 5, 6},
				Explanation: "A and B both held the lock from 0.700000s to 0.800000s (0.100000s): " +
					"A acquired at 0.002000s from r1; " +
					"A's key on r1 expired at 0.667000s (node clock 1.001000s) with r1's clock running at +500000 ppm since 0.000000s; " +
					"B acquired at 0.700000s from r1; " +
					"B held it until it released at 0.800000s",
			}},
		},
		{
			name: "a node restarts empty",
			h: newHist().
				at(1).add(keySet("r1", "A:1", "SET")).
				at(2).add(acquired("A", "A:1", 0, "r1", 1)).
				at(100).add(sim.Event{Actor: "r1", Kind: sim.KindNodeCrash, Dur: ms(100)}, keyGone("r1", "node crashed")).
				at(200).add(sim.Event{Actor: "r1", Kind: sim.KindNodeUp, Note: "persistence none"}).
				at(300).add(keySet("r1", "B:1", "SET")).
				at(301).add(acquired("B", "B:1", 0, "r1", 1)).
				at(400).add(release("B", "B:1", 0)).
				at(500).add(release("A", "A:1", 0)).h,
			want: []Violation{{
				Invariant: MutualExclusion,
				Clients:   []string{"A", "B"},
				From:      ms(301),
				To:        ms(400),
				Events:    []int{1, 2, 4, 6, 7},
				Explanation: "A and B both held the lock from 0.301000s to 0.400000s (0.099000s): " +
					"A acquired at 0.002000s from r1; " +
					"r1 restarted at 0.200000s without A's key (persistence none), after a crash at 0.100000s; " +
					"B acquired at 0.301000s from r1; " +
					"B held it until it released at 0.400000s",
			}},
		},
		{
			name: "reentrant: a nested release does not end the section",
			h:    nested,
			want: []Violation{{
				Invariant: MutualExclusion,
				Clients:   []string{"A", "B"},
				From:      ms(300),
				To:        ms(400),
				Events:    []int{0, 3, 4},
				Explanation: "A and B both held the lock from 0.300000s to 0.400000s (0.100000s): " +
					"A acquired at 0.000000s from r1; " +
					"B acquired at 0.300000s from r1; " +
					"A held it until it released at 0.400000s",
			}},
		},
		{
			name: "reentrant: B acquires when the count is back to 0",
			h:    nestedOK,
		},
		{
			name: "a crash ends the section",
			h: newHist().
				at(50).add(acquired("A", "A:1", 0, "r1", 1)).
				at(500).add(crash("A")).
				at(1001).add(expire("r1", "A:1")).
				at(1004).add(acquired("B", "B:1", 0, "r1", 1)).
				at(1100).add(release("B", "B:1", 0)).h,
		},
		{
			name: "the end of the acquiring task ends the section",
			h: newHist().
				at(50).add(acquired("A", "A:1", 0, "r1", 1)).
				at(60).add(taskEnd("A")).
				at(1004).add(acquired("B", "B:1", 0, "r1", 1)).h,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := only(Check(tt.h, Config{}), MutualExclusion)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check mutual exclusion (-want +got):\n%s", diff)
			}
		})
	}
}
