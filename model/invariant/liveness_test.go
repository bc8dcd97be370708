package invariant

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/sim"
)

// crashBeforeExpire is the setnx-expire deadlock: A crashes between SETNX
// and PEXPIRE, the key never expires, B tries until its wait runs out at
// end (ms).
func crashBeforeExpire(end float64) *hist {
	noTTL := keySet("r1", "A:1", "SETNX")
	noTTL.Dur = 0
	return newHist().
		at(0).add(acqStart("A", "A:1"), acqStart("B", "B:1")).
		at(1).add(exec("r1", "A", "SETNX", "lock", "A:1"), noTTL).
		at(2).add(crash("A")).
		at(5).add(exec("r1", "B", "SETNX", "lock", "B:1")).
		at(end).add(acqFailed("B", "B:1"), taskEnd("B"))
}

// crashHolding: A acquires with a 1s TTL and crashes; the key expires; B,
// trying all along, acquires at 1.05s.
func crashHolding() *hist {
	return newHist().
		at(0).add(acqStart("A", "A:1"), acqStart("B", "B:1")).
		at(1).add(keySet("r1", "A:1", "SET"), acquired("A", "A:1", 0, "r1", 1)).
		at(2).add(crash("A")).
		at(1001).add(expire("r1", "A:1")).
		at(1049).add(keySet("r1", "B:1", "SET")).
		at(1050).add(acquired("B", "B:1", 0, "r1", 1)).
		at(1100).add(release("B", "B:1", 0))
}

func TestLiveness(t *testing.T) {
	dl := crashBeforeExpire(3000).h
	ch := crashHolding().h
	tests := []struct {
		name  string
		h     sim.History
		bound time.Duration
		want  []Violation
	}{
		{
			name:  "setnx-expire deadlock",
			h:     dl,
			bound: time.Second,
			want: []Violation{{
				Invariant: Liveness,
				Clients:   []string{"B", "A"},
				From:      ms(2),
				To:        ms(1002),
				Events:    []int{1, 3, 4},
				Explanation: "no client acquired the lock in the 1.000000s after 0.002000s, when it was wanted and nobody held it: " +
					"B was trying to acquire since 0.000000s; " +
					"the key lock on r1 held A's value A:1 (set at 0.001000s with no TTL); " +
					"the last fault event was A crash at 0.002000s",
			}},
		},
		{
			name:  "no verdict when the history ends before the bound",
			h:     crashBeforeExpire(500).h,
			bound: time.Second,
		},
		{
			name:  "disabled with a zero bound",
			h:     dl,
			bound: 0,
		},
		{
			name:  "the key expires and B acquires within the bound",
			h:     ch,
			bound: 2 * time.Second,
		},
		{
			name:  "the key expires but B acquires after the bound",
			h:     ch,
			bound: 500 * time.Millisecond,
			want: []Violation{{
				Invariant: Liveness,
				Clients:   []string{"B", "A"},
				From:      ms(2),
				To:        ms(502),
				Events:    []int{1, 2, 4},
				Explanation: "no client acquired the lock in the 0.500000s after 0.002000s, when it was wanted and nobody held it: " +
					"B was trying to acquire since 0.000000s; " +
					"the key lock on r1 held A's value A:1 (set at 0.001000s with TTL 1.000000s); " +
					"the last fault event was A crash at 0.002000s",
			}},
		},
		{
			name: "a live holder is not a liveness failure; its release starts the clock",
			h: newHist().
				at(0).add(acquired("A", "A:1", 0, "r1", 1)).
				at(100).add(acqStart("B", "B:1")).
				at(3000).add(release("A", "A:1", 0)).
				at(3010).add(acquired("B", "B:1", 0, "r1", 1)).
				at(5000).add(release("B", "B:1", 0)).h,
			bound: time.Second,
		},
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
				Explanation: "no client acquired the lock in the 1.000000s after 0.000000s, when it was wanted and nobody held it: " +
					"there were no faults; B was trying to acquire since 0.000000s; no node held the lock key lock",
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
					Explanation: "no client acquired the lock in the 1.000000s after 0.000000s, when it was wanted and nobody held it: " +
						"there were no faults; B was trying to acquire since 0.000000s; no node held the lock key lock",
				},
				{
					Invariant: Liveness,
					Clients:   []string{"C"},
					From:      ms(2100),
					To:        ms(3100),
					Events:    []int{3},
					Explanation: "no client acquired the lock in the 1.000000s after 2.100000s, when it was wanted and nobody held it: " +
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
