package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestQueueOrder: interleaved pushes and pops come out in (at, seq) order,
// each with its own action, as a sorted reference says.
func TestQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q queue
	var ref []event
	var seq uint64
	tasks := make([]task, 50) // distinct pointers to tell actions apart
	maxLen := 0
	for step := range 6000 {
		if r.IntN(3) > 0 || q.len() == 0 {
			seq++
			e := event{at: time.Duration(r.IntN(100)), seq: seq, a: action{kind: actWake, t: &tasks[r.IntN(len(tasks))], gen: seq}}
			q.push(e)
			ref = append(ref, e)
			maxLen = max(maxLen, q.len())
			continue
		}
		slices.SortFunc(ref, func(a, b event) int {
			if a.at != b.at {
				return int(a.at - b.at)
			}
			return int(a.seq) - int(b.seq)
		})
		want := ref[0]
		ref = ref[1:]
		if q.nextAt() != want.at {
			t.Fatalf("step %d: nextAt %v, want %v", step, q.nextAt(), want.at)
		}
		got := q.pop()
		if got.at != want.at || got.seq != want.seq || got.a.t != want.a.t || got.a.gen != want.a.gen {
			t.Fatalf("step %d: popped (%v, %d, %p), want (%v, %d, %p)", step, got.at, got.seq, got.a.t, want.at, want.seq, want.a.t)
		}
	}
	if q.len() != len(ref) {
		t.Fatalf("queue holds %d, reference %d", q.len(), len(ref))
	}
	if len(q.slots) > maxLen {
		t.Errorf("slots are not reused: %d slots, at most %d queued at once", len(q.slots), maxLen)
	}
}
