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

// queue is a binary min-heap of events, hand-written to avoid the
// interface boxing of container/heap on the hot path.
type queue []event

func (q queue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *queue) push(e event) {
	*q = append(*q, e)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() event {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = event{}
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
