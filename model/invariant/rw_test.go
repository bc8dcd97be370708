package invariant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/model/history"
	"locksim/sim"
)

// readAcquired is a shared (read) hold of c.
func readAcquired(c, v string) sim.Event {
	e := acquired(c, v, 0, "r1", 1)
	e.Note = history.HoldFlags{Shared: true}.Note()
	return e
}

// TestReadWrite: readers may overlap one another; a writer may overlap
// nobody. mutual-exclusion judges only exclusive holds, rw-exclusion every
// pair with a writer in it.
func TestReadWrite(t *testing.T) {
	// B and C read at once; A writes after them; D writes while C reads.
	h := newHist().
		at(0).add(readAcquired("B", "B:1")).
		at(10).add(readAcquired("C", "C:1")).
		at(100).add(release("B", "B:1", 0)).
		at(110).add(acquired("D", "D:1", 0, "r1", 1)).
		at(150).add(release("C", "C:1", 0)).
		at(200).add(release("D", "D:1", 0)).
		at(300).add(acquired("A", "A:1", 0, "r1", 1)).
		at(310).add(acquired("E", "E:1", 0, "r1", 1)).
		at(400).add(release("A", "A:1", 0), release("E", "E:1", 0)).h
	type pair struct {
		inv     ID
		clients []string
	}
	pairs := func(vs []Violation) []pair {
		var out []pair
		for _, v := range vs {
			out = append(out, pair{v.Invariant, v.Clients})
		}
		return out
	}
	tests := []struct {
		name string
		cfg  Config
		want []pair
	}{
		// Readers overlapping would break a mutual-exclusion that judged
		// every hold: a correct read-write lock wrongly flagged.
		{"mutual exclusion judges only exclusive holds", Config{}, []pair{{MutualExclusion, []string{"A", "E"}}}},
		// A reader beside a writer holds mutual exclusion (one exclusive
		// holder), so only rw-exclusion catches it: a broken lock that
		// would pass on mutual-exclusion alone.
		{"rw-exclusion catches a writer beside a reader", Config{Shared: true},
			[]pair{{RWExclusion, []string{"C", "D"}}, {MutualExclusion, []string{"A", "E"}}, {RWExclusion, []string{"A", "E"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pairs(Check(h, tc.cfg))
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(pair{})); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
	vs := only(Check(h, Config{Shared: true}), RWExclusion)
	want := "C (reading) and D (writing) both held the lock from 0.110000s to 0.150000s (0.040000s): " +
		"C acquired at 0.010000s from r1; D acquired at 0.110000s from r1; C held it until it released at 0.150000s"
	if len(vs) == 0 || vs[0].Explanation != want {
		t.Errorf("explanation\n got: %v\nwant: %s", vs, want)
	}
	if ok, why := (Config{}).Judged(RWExclusion); ok || why != "the design takes no shared holds" {
		t.Errorf("Judged(rw-exclusion) = %v %q", ok, why)
	}
}
