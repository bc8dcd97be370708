package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/model/history"
	"locksim/sim"
)

// staleRelease is the catalogue's stale-release scenario for
// set-px-getdel: A invokes release, pauses between GET and DEL; its key
// expires; B acquires; A deletes B's key; C acquires while B works.
func staleRelease() *hist {
	return newHist().
		at(0).add(acqStart("A", "A:1")).
		at(1).add(exec("r1", "A", "SET"), keySet("r1", "A:1", "SET")).
		at(2).add(acquired("A", "A:1", 0, "r1", 1)).
		at(900).add(release("A", "A:1", 0)).
		at(901).add(exec("r1", "A", "GET", "lock")).
		at(902).add(pause("A", 700)).
		at(1001).add(expire("r1", "A:1")).
		at(1003).add(acqStart("B", "B:1"), exec("r1", "B", "SET"), keySet("r1", "B:1", "SET")).
		at(1004).add(acquired("B", "B:1", 0, "r1", 1)).
		at(1602).add(resume("A")).
		at(1603).add(exec("r1", "A", "DEL", "lock"), keyGone("r1", "DEL")).
		at(1605).add(acqStart("C", "C:1"), exec("r1", "C", "SET"), keySet("r1", "C:1", "SET")).
		at(1606).add(acquired("C", "C:1", 0, "r1", 1)).
		at(1800).add(release("B", "B:1", 0)).
		at(1900).add(release("C", "C:1", 0))
}

// pauseDuringAcquire: A's SET is applied, A pauses before reading the
// reply for longer than the TTL; B acquires; A reads OK and enters.
func pauseDuringAcquire() *hist {
	return newHist().
		at(0).add(acqStart("A", "A:1")).
		at(10).add(exec("r1", "A", "SET"), keySet("r1", "A:1", "SET")).
		at(11).add(pause("A", 1500)).
		at(20).add(acqStart("B", "B:1")).
		at(1010).add(expire("r1", "A:1")).
		at(1020).add(exec("r1", "B", "SET"), keySet("r1", "B:1", "SET")).
		at(1021).add(acquired("B", "B:1", 0, "r1", 1)).
		at(1511).add(resume("A")).
		at(1512).add(acquired("A", "A:1", 0, "r1", 1)).
		at(1600).add(release("B", "B:1", 0)).
		at(1700).add(release("A", "A:1", 0))
}

func TestMutex(t *testing.T) {
	gc := gcPause().h
	sr := staleRelease().h
	pa := pauseDuringAcquire().h
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
			name: "gc-pause",
			h:    gc,
			want: []Violation{{
				Invariant: MutualExclusion,
				Clients:   []string{"A", "B"},
				From:      ms(1004),
				To:        ms(1650),
				Events: []int{seq(gc, "A", history.KindAcquired, 1), seq(gc, "A", sim.KindPause, 1), seq(gc, "r1", sim.KindExpire, 1),
					seq(gc, "B", history.KindAcquired, 1), seq(gc, "A", history.KindRelease, 1)},
				Explanation: "A and B both held the lock from 1.004000s to 1.650000s (0.646000s): " +
					"A acquired at 0.050000s from r1; " +
					"A's key on r1 expired at 1.001000s (node clock 1.001000s) while A was paused from 0.052000s to 1.552000s; " +
					"B acquired at 1.004000s from r1; " +
					"A still believed it held the lock until it released at 1.650000s",
			}},
		},
		{
			name: "stale release deletes the next holder's key",
			h:    sr,
			want: []Violation{{
				Invariant: MutualExclusion,
				Clients:   []string{"B", "C"},
				From:      ms(1606),
				To:        ms(1800),
				Events: []int{seq(sr, "B", history.KindAcquired, 1), seq(sr, "r1", sim.KindExec, 4), seq(sr, "r1", sim.KindKey, 3),
					seq(sr, "C", history.KindAcquired, 1), seq(sr, "B", history.KindRelease, 1)},
				Explanation: "B and C both held the lock from 1.606000s to 1.800000s (0.194000s): " +
					"B acquired at 1.004000s from r1; " +
					"B's key on r1 was deleted at 1.603000s by A (DEL); " +
					"C acquired at 1.606000s from r1; " +
					"B still believed it held the lock until it released at 1.800000s",
			}},
		},
		{
			name: "pause during acquire: the later acquirer's key was gone before it entered",
			h:    pa,
			want: []Violation{{
				Invariant: MutualExclusion,
				Clients:   []string{"B", "A"},
				From:      ms(1512),
				To:        ms(1600),
				Events: []int{seq(pa, "A", sim.KindPause, 1), seq(pa, "r1", sim.KindExpire, 1), seq(pa, "B", history.KindAcquired, 1),
					seq(pa, "A", history.KindAcquired, 1), seq(pa, "B", history.KindRelease, 1)},
				Explanation: "B and A both held the lock from 1.512000s to 1.600000s (0.088000s): " +
					"A's key on r1 expired at 1.010000s (node clock 1.010000s) while A was paused from 0.011000s to 1.511000s; " +
					"B acquired at 1.021000s from r1; " +
					"A acquired at 1.512000s from r1; " +
					"B held it until it released at 1.600000s",
			}},
		},
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
			name: "release and acquire at the same instant do not overlap",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "r1", 1)).
				at(100).add(release("A", "A:1", 0), acquired("B", "B:1", 0, "r1", 1)).
				at(200).add(release("B", "B:1", 0)).h,
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
