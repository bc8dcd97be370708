package sim

import "time"

// event is one scheduled action. Events run in (at, seq) order: two events
// at the same instant run in the order they were scheduled.
type event struct {
	at  time.Duration
	seq uint64
	a   action
}

// action is what an event does: a plain function, or one of the steps of
// a task or a call in flight. The steps are typed rather than closures so
// the hot path (every call, reply and sleep) allocates nothing but the call.
type action struct {
	kind actKind
	fn   func() // actFunc
	t    *task  // the task to wake or step
	gen  uint64 // the task's wakeGen when the action was scheduled
	c    *call  // the call the action belongs to
}

type actKind uint8

const (
	actFunc        actKind = iota // run fn
	actWake                       // resume t: its sleep ended, or its first step
	actWakeReply                  // resume t with c's reply
	actWakeTimeout                // resume t: c timed out
	actWakeMsg                    // resume t: a pub/sub message came
	actWakeNoMsg                  // resume t: no message within the timeout
	actPerform                    // carry out t's pending operation
	actRequest                    // c's request reaches its endpoint
	actReply                      // c's reply reaches the caller
	actCallTimeout                // c's timeout on the caller's clock
)

// queue holds the scheduled events: a binary min-heap of small keys with
// no pointers, ordered by (at, seq), over a slab of actions. Keeping the
// actions (which hold pointers) out of the heap means sifting moves 24
// plain bytes per step and never needs a GC write barrier; it was about a
// seventh of a run's time when the heap held whole events.
type queue struct {
	heap  []qkey
	slots []action // the actions, by qkey.slot; free slots are zero
	free  []int32  // free slots, reused first
}

type qkey struct {
	at   time.Duration
	seq  uint64
	slot int32
}

func (k qkey) before(o qkey) bool {
	if k.at != o.at {
		return k.at < o.at
	}
	return k.seq < o.seq
}

// len returns how many events are scheduled.
func (q *queue) len() int { return len(q.heap) }

// nextAt returns the time of the earliest event; the queue must not be
// empty.
func (q *queue) nextAt() time.Duration { return q.heap[0].at }

func (q *queue) push(e event) {
	var slot int32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
		q.slots[slot] = e.a
	} else {
		slot = int32(len(q.slots))
		q.slots = append(q.slots, e.a)
	}
	k := qkey{at: e.at, seq: e.seq, slot: slot}
	q.heap = append(q.heap, k)
	h := q.heap
	i := len(h) - 1
	for i > 0 { // sift up: move parents down into the hole
		p := (i - 1) / 2
		if !k.before(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = k
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *queue) pop() event {
	h := q.heap
	top := h[0]
	last := h[len(h)-1]
	h = h[:len(h)-1]
	if len(h) > 0 { // sift last down from the root: move children up into the hole
		i := 0
		for {
			c := 2*i + 1
			if c >= len(h) {
				break
			}
			if r := c + 1; r < len(h) && h[r].before(h[c]) {
				c = r
			}
			if !h[c].before(last) {
				break
			}
			h[i] = h[c]
			i = c
		}
		h[i] = last
	}
	q.heap = h
	a := q.slots[top.slot]
	q.slots[top.slot] = action{} // drop the references for the GC
	q.free = append(q.free, top.slot)
	return event{at: top.at, seq: top.seq, a: a}
}
