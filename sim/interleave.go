package sim

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
)

// Interleave is how the world orders events due at the same virtual
// instant. Under the fixed order (the zero value) they run in the order
// they were scheduled, as they always have: histories are byte-identical
// to a world without this field. The other policies choose, at each step,
// among the events that are truly concurrent (see lanes below), with a
// random stream of their own derived from the run's seed ("interleave"),
// so the run stays a pure function of its configuration and seed.
type Interleave struct {
	// Policy is InterleaveFixed (""), InterleaveRandom or InterleavePCT.
	Policy InterleavePolicy
	// Depth is PCT's d, the bug depth it targets: d-1 priority change
	// points per run. Only with InterleavePCT, 1 to MaxPCTDepth.
	Depth int
	// Horizon is how many choice points PCT draws its change points
	// among; 0 means DefaultPCTHorizon. A run with more choice points than
	// this has no change point after the Horizon-th (the bound says so).
	Horizon int
	// Script is InterleaveScript's reorders, in increasing choice point
	// order: exhaustive mode's bounded preemptions.
	Script []Reorder
}

// Reorder is one scripted choice: at choice point At (from 1), run the
// Pick-th ready candidate (from 0, in scheduling order) instead of the
// first. A Pick beyond the candidates there runs the first.
type Reorder struct{ At, Pick int }

// InterleavePolicy names a same-instant scheduler.
type InterleavePolicy string

// The same-instant schedulers.
const (
	// InterleaveFixed runs same-instant events in the order they were
	// scheduled (the default).
	InterleaveFixed InterleavePolicy = ""
	// InterleaveRandom picks uniformly among the concurrent events ready.
	InterleaveRandom InterleavePolicy = "random"
	// InterleavePCT is probabilistic concurrency testing (Burckhardt et
	// al., ASPLOS 2010): each lane gets a random priority, the highest
	// ready one runs, and at d-1 random choice points the lane about to
	// run drops below every other.
	InterleavePCT InterleavePolicy = "pct"
	// InterleaveScript runs the fixed order except at the choice points
	// its Script names ("preempt:C.P,C.P"): with no reorders its histories
	// are the fixed order's, and it records each choice point
	// (InterleaveStats.Points) for exhaustive mode to reorder.
	InterleaveScript InterleavePolicy = "preempt"
)

// DefaultPCTHorizon is the choice points PCT's change points are drawn
// among when Interleave.Horizon is 0: the runs of `locksim check` on the
// catalogue have a few to about a hundred (pct:D/H sets another).
const DefaultPCTHorizon = 50

// MaxPCTDepth bounds PCT's d (and MaxPCTHorizon its horizon): the bound
// 1/(n·k^(d-1)) is already tiny at d = 5.
const (
	MaxPCTDepth   = 8
	MaxPCTHorizon = 1_000_000
)

// ParseInterleave reads "fixed", "random", "pct:D" or "pct:D/H" (depth D,
// horizon H choice points); "" is fixed.
func ParseInterleave(s string) (Interleave, error) {
	switch s {
	case "", "fixed":
		return Interleave{}, nil
	case "random":
		return Interleave{Policy: InterleaveRandom}, nil
	}
	if list, ok := strings.CutPrefix(s, "preempt:"); ok {
		return parseScript(s, list)
	}
	rest, ok := strings.CutPrefix(s, "pct:")
	if !ok {
		return Interleave{}, errors.Errorf("interleave %s: want fixed, random, pct:D or pct:D/H (depth D, horizon H choice points)", bounded.Q(s))
	}
	dText, hText, hasH := strings.Cut(rest, "/")
	d, err := strconv.Atoi(dText)
	if err != nil || d < 1 || d > MaxPCTDepth {
		return Interleave{}, errors.Errorf("interleave %s: the depth D of pct:D is 1 to %d", bounded.Q(s), MaxPCTDepth)
	}
	il := Interleave{Policy: InterleavePCT, Depth: d}
	if hasH {
		h, err := strconv.Atoi(hText)
		if err != nil || h < 1 || h > MaxPCTHorizon {
			return Interleave{}, errors.Errorf("interleave %s: the horizon H of pct:D/H is 1 to %d choice points", bounded.Q(s), MaxPCTHorizon)
		}
		il.Horizon = h
	}
	return il, nil
}

// parseScript reads "C.P,C.P" (choice point, pick), "" for none.
func parseScript(s, list string) (Interleave, error) {
	il := Interleave{Policy: InterleaveScript}
	if list == "" {
		return il, nil
	}
	for _, part := range strings.Split(list, ",") {
		c, p, ok := strings.Cut(part, ".")
		at, err1 := strconv.Atoi(c)
		pick, err2 := strconv.Atoi(p)
		if !ok || err1 != nil || err2 != nil || at < 1 || pick < 1 || at > MaxPCTHorizon || pick > 1<<16 {
			return Interleave{}, errors.Errorf("interleave %s: want preempt:C.P,... (choice point C from 1, candidate P from 1, C increasing)", bounded.Q(s))
		}
		if n := len(il.Script); n > 0 && at <= il.Script[n-1].At {
			return Interleave{}, errors.Errorf("interleave %s: the choice points must increase", bounded.Q(s))
		}
		il.Script = append(il.Script, Reorder{At: at, Pick: pick})
	}
	return il, nil
}

// String is the form ParseInterleave reads: "fixed", "random", "pct:3",
// "pct:3/500", "preempt:12.1".
func (il Interleave) String() string {
	switch il.Policy {
	case InterleaveScript:
		parts := make([]string, len(il.Script))
		for i, r := range il.Script {
			parts[i] = strconv.Itoa(r.At) + "." + strconv.Itoa(r.Pick)
		}
		return "preempt:" + strings.Join(parts, ",")
	case InterleaveFixed:
		return "fixed"
	case InterleavePCT:
		s := "pct:" + strconv.Itoa(il.Depth)
		if il.Horizon != 0 {
			s += "/" + strconv.Itoa(il.Horizon)
		}
		return s
	}
	return string(il.Policy)
}

// validate checks a configured scheduler.
func (il Interleave) validate() error {
	switch il.Policy {
	case InterleaveFixed, InterleaveRandom:
		if il.Depth != 0 || il.Horizon != 0 {
			return errors.Errorf("interleave %s takes no depth or horizon", il)
		}
		return nil
	case InterleavePCT, InterleaveScript:
		_, err := ParseInterleave(il.String())
		return err
	}
	return errors.Errorf("unknown interleave policy %q (want fixed, random or pct)", string(il.Policy))
}

// ChangeHorizon is the choice points PCT's change points are drawn among.
func (il Interleave) ChangeHorizon() int {
	if il.Horizon > 0 {
		return il.Horizon
	}
	return DefaultPCTHorizon
}

// Lanes: which same-instant events may be reordered. Each event belongs
// to a lane, and within a lane events keep the order they were scheduled
// in; only the first ready event of each lane is a candidate. A task's
// steps (its wake-ups, its pending operation, its call's timeout) are the
// task's program order: one lane per task, so a client's main and its
// watchdog are two threads, as they are in a real client. A message is in
// the lane of its directed link (from, to), which the network keeps FIFO,
// so no message overtakes one sent before it on the same link. Every
// other event (a fault, a replication entry, a stream step, the end of a
// pause, the end of the run) is in the one world lane: the world's own
// bookkeeping keeps its order. An event is only ever in the queue after
// what scheduled it ran, so no reply can run before its request, nor a
// message before its send.
type lane struct {
	t        *task  // a task's lane, or nil
	from, to string // a link's lane when t is nil and to is set
}

// laneOf returns a's lane.
func laneOf(a action) lane {
	switch a.kind {
	case actFunc:
		return lane{}
	case actRequest:
		return lane{from: a.c.caller().name, to: a.c.to}
	case actReply:
		return lane{from: a.c.to, to: a.c.caller().name}
	case actCallTimeout:
		if a.c.t != nil {
			return lane{t: a.c.t}
		}
		return lane{}
	}
	return lane{t: a.t}
}

// scheduler is the state of a non-fixed same-instant policy.
type scheduler struct {
	il  Interleave
	rng *rand.Rand
	// ready holds the events popped at the current instant not run yet,
	// in scheduling (seq) order; events scheduled for this instant while
	// they wait join it at the next step.
	ready []event
	heads []int // indexes into ready of each lane's first event (reused)
	// choices counts the steps with two or more candidates (PCT's n);
	// lanes the distinct lanes ever among them (its k).
	choices int
	lanes   map[lane]bool
	// PCT: each lane's priority, drawn when it first competes, above
	// every change value; change[i] is the choice point (from 1) at
	// which the lane about to run drops to priority i+1.
	prio   map[lane]uint64
	change []int
	// Script: the reorders not reached yet, and every choice point seen.
	script []Reorder
	points []ChoicePoint
}

// ChoicePoint is one step where two or more concurrent events were ready:
// its instant and their lanes, in scheduling order (the first is the one
// the fixed order runs), named "A/main" (a task), "A->r1" (a link) or
// "world".
type ChoicePoint struct {
	At    time.Duration
	Lanes []string
}

// name is a lane as ChoicePoint names it.
func (l lane) name() string {
	switch {
	case l.t != nil:
		return l.t.p.name + "/" + l.t.name
	case l.to != "":
		return l.from + "->" + l.to
	}
	return "world"
}

// newScheduler returns nil for the fixed order.
func (w *World) newScheduler() *scheduler {
	il := w.cfg.Interleave
	if il.Policy == InterleaveFixed {
		return nil
	}
	s := &scheduler{il: il, rng: w.rng("interleave"), lanes: map[lane]bool{}, script: il.Script}
	if il.Policy == InterleavePCT {
		s.prio = map[lane]uint64{}
		for range il.Depth - 1 {
			s.change = append(s.change, 1+s.rng.IntN(il.ChangeHorizon()))
		}
	}
	return s
}

// pending counts the events scheduled, waiting in the queue or ready.
func (w *World) pending() int {
	if w.sched == nil {
		return w.q.len()
	}
	return w.q.len() + len(w.sched.ready)
}

// nextDue is the time of the earliest event; pending must be positive.
func (w *World) nextDue() time.Duration {
	if w.sched != nil && len(w.sched.ready) > 0 {
		return w.sched.ready[0].at // the current instant: nothing is earlier
	}
	return w.q.nextAt()
}

// popNext removes and returns the event to run next: the earliest in
// (at, seq) order under the fixed policy, else the policy's choice among
// the lanes' first events due at the earliest instant.
func (w *World) popNext() event {
	s := w.sched
	if s == nil {
		return w.q.pop()
	}
	at := w.nextDue()
	for w.q.len() > 0 && w.q.nextAt() == at {
		s.ready = append(s.ready, w.q.pop())
	}
	s.heads = s.heads[:0]
	for i, e := range s.ready {
		l := laneOf(e.a)
		first := true
		for _, h := range s.heads {
			if laneOf(s.ready[h].a) == l {
				first = false
				break
			}
		}
		if first {
			s.heads = append(s.heads, i)
		}
	}
	pick := s.heads[0]
	if len(s.heads) > 1 {
		pick = s.choose(at)
	}
	e := s.ready[pick]
	s.ready = append(s.ready[:pick], s.ready[pick+1:]...)
	return e
}

// choose picks among two or more heads due at at and returns an index
// into ready.
func (s *scheduler) choose(at time.Duration) int {
	s.choices++
	if s.il.Policy == InterleaveScript {
		return s.scripted(at)
	}
	for _, h := range s.heads {
		l := laneOf(s.ready[h].a)
		if !s.lanes[l] {
			s.lanes[l] = true
			if s.prio != nil {
				// Above every change value (1..d-1); distinct with
				// overwhelming probability, ties going to the earlier
				// scheduled event.
				s.prio[l] = uint64(s.il.Depth) + s.rng.Uint64N(1<<62)
			}
		}
	}
	if s.prio == nil {
		return s.heads[s.rng.IntN(len(s.heads))]
	}
	best := s.highest()
	for i, c := range s.change {
		if c == s.choices {
			s.prio[laneOf(s.ready[best].a)] = uint64(i + 1)
			best = s.highest()
		}
	}
	return best
}

// scripted records the choice point and runs the first head, or the one
// the script picks here.
func (s *scheduler) scripted(at time.Duration) int {
	cp := ChoicePoint{At: at}
	for _, h := range s.heads {
		l := laneOf(s.ready[h].a)
		s.lanes[l] = true
		cp.Lanes = append(cp.Lanes, l.name())
	}
	s.points = append(s.points, cp)
	if len(s.script) > 0 && s.script[0].At == s.choices {
		pick := s.script[0].Pick
		s.script = s.script[1:]
		if pick < len(s.heads) {
			return s.heads[pick]
		}
	}
	return s.heads[0]
}

// highest returns the head whose lane has the highest priority.
func (s *scheduler) highest() int {
	best := s.heads[0]
	for _, h := range s.heads[1:] {
		if s.prio[laneOf(s.ready[h].a)] > s.prio[laneOf(s.ready[best].a)] {
			best = h
		}
	}
	return best
}

// InterleaveStats is what a non-fixed scheduler saw in a run: its choice
// points (steps with two or more concurrent candidates, PCT's n) and the
// lanes that competed at them (its k, threads). Both are 0 under the fixed
// order.
type InterleaveStats struct {
	Choices, Lanes int
	// Points are the choice points, under InterleaveScript only.
	Points []ChoicePoint
}

// InterleaveStats returns what the run's scheduler saw so far.
func (w *World) InterleaveStats() InterleaveStats {
	if w.sched == nil {
		return InterleaveStats{}
	}
	return InterleaveStats{Choices: w.sched.choices, Lanes: len(w.sched.lanes), Points: w.sched.points}
}
