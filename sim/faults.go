package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
)

// FaultKinds lists every kind, in catalogue order: FaultKindTable's.
var FaultKinds []FaultKind

// FaultActor is the Actor of the events fault bookkeeping records (a
// partition, a network window): no process or node records them.
const FaultActor = "fault"

// Trigger places a fault relative to an event instead of at an absolute
// time: the fault starts Fault.At after the Nth event (from 1) whose Actor
// and Kind (and Task, if set) match. With Fault.At == 0 on the same actor
// the fault takes effect before that actor's next call into the world
// (Call, Sleep, WaitMessage), so "pause A right after its acquire returns"
// is exact, and "pause A after A call" holds the reply of the request that
// just left: a pause inside that call.
type Trigger struct {
	Actor string
	Kind  Kind
	// Nth counts matching events from 1; 0 means 1.
	Nth int
	// Task, if set, counts only events of that task ("watchdog").
	Task string
	// Since, if set, starts counting after the SinceNth (0 means 1) event
	// of kind Since by the same actor: {A call 1 since acquire-start 2} is
	// A's first request of its second acquisition.
	Since    Kind
	SinceNth int
}

// String renders the trigger as fault lines write it after "after":
// "A call #2 task watchdog since acquire-start #3".
func (t Trigger) String() string {
	s := t.Actor + " " + string(t.Kind)
	if t.Nth != 0 {
		s += " #" + strconv.Itoa(t.Nth)
	}
	if t.Task != "" {
		s += " task " + t.Task
	}
	if t.Since != "" {
		s += " since " + string(t.Since)
		if t.SinceNth != 0 {
			s += " #" + strconv.Itoa(t.SinceNth)
		}
	}
	return s
}

// Fault is one scheduled fault. Which fields matter depends on Kind; see
// the FaultKind constants. Times are true simulation time.
type Fault struct {
	Kind FaultKind
	// At is the start time: absolute, or an offset after the trigger.
	At time.Duration
	// After, if set, makes At relative to a matching event.
	After *Trigger
	// Target is the process or node the fault acts on.
	Target string
	// Dur is how long the fault lasts (pause length, partition length,
	// window length, node down time). Zero means forever where allowed.
	Dur time.Duration
	// A and B are the sides of a partition.
	A, B []string
	// OneWay makes a partition block only A -> B.
	OneWay bool
	// Blackhole makes a partition that never heals silent to streams:
	// their messages vanish and nothing resets them, so an external
	// client notices only by its own timeouts (network.Partition). The
	// default, a reset, breaks such a stream at once. Partitions only;
	// the scenario word is mode=blackhole.
	Blackhole bool
	// From and To select a directed link ("*" is any endpoint).
	From, To string
	// Extra is the added one-way delay of a delay fault.
	Extra time.Duration
	// Count is how many messages a drop fault loses.
	Count int
	// By is a clock jump (negative: backward).
	By time.Duration
	// RatePPM is a new clock rate, parts per million.
	RatePPM int64
	// Key is the key an evict fault removes.
	Key string
	// Task is the task a starve fault holds back ("watchdog", "main").
	Task string
	// Restart makes a crashed process restart after Dur.
	Restart bool
	// Atomic makes a slot-migrate fault Redis 8.4's atomic slot
	// migration (a write pause) instead of the legacy one (ASK).
	Atomic bool `json:",omitempty"`
	// Size is the memory a memory-pressure fault's burst adds, in bytes
	// of the documented formula (pressure.go).
	Size int64 `json:",omitempty"`
	// Policy is the maxmemory-policy a memory-pressure fault caps a node
	// without maxmemory with (pressure.go); "" on a node that has one.
	Policy EvictionPolicy `json:",omitempty"`
	// Force makes a cluster-failover fault CLUSTER FAILOVER FORCE: the
	// replica does not wait to catch up with its primary.
	Force bool `json:",omitempty"`
}

// String renders the fault in the canonical scenario-file syntax, which
// scenarios.ParseFault reads back to an equal fault:
//
//	KIND ARGS [oneway|restart] at T [for D]
//	KIND ARGS [oneway|restart] [for D] after ACTOR KIND [#N] [+D]
//
// e.g. "pause A for 1.5s after A write", "node-crash r1 at 2s for 5s".
// Fields that do not belong to the kind are not rendered.
func (f Fault) String() string {
	var b strings.Builder
	b.WriteString(string(f.Kind))
	if info, ok := FaultKindOf(f.Kind); ok {
		b.WriteString(" " + info.FormatArgs(f))
		if info.HasFlag(f) {
			b.WriteString(" " + info.Flag)
		}
	} else {
		b.WriteString(" " + f.Target)
	}
	if f.After == nil {
		b.WriteString(" at " + FormatDuration(f.At))
		if f.Dur != 0 {
			b.WriteString(" for " + FormatDuration(f.Dur))
		}
		return b.String()
	}
	if f.Dur != 0 {
		b.WriteString(" for " + FormatDuration(f.Dur))
	}
	b.WriteString(" after " + f.After.String())
	if f.At != 0 {
		b.WriteString(" +" + FormatDuration(f.At))
	}
	return b.String()
}

// GoString makes %#v (rapid's draw logs) print the readable form.
func (f Fault) GoString() string { return strconv.Quote(f.String()) }

// FormatDuration renders a duration exactly in Go syntax, without the
// trailing zero units of time.Duration.String ("2m" rather than "2m0s").
func FormatDuration(d time.Duration) string {
	s := d.String()
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

// Validate checks one fault against the world's names and limits. i is the
// fault's index, used in error messages.
func (f Fault) validate(i int, w *names, maxTime time.Duration) error {
	field := "faults[" + strconv.Itoa(i) + "] (" + bounded.Clip(string(f.Kind)) + ")"
	if f.At < 0 {
		return errors.Errorf("%s: at %v is negative", field, f.At)
	}
	if f.After == nil && f.At > maxTime {
		return errors.Errorf("%s: at %v is after the end of the run (%v)", field, f.At, maxTime)
	}
	if f.Dur < 0 {
		return errors.Errorf("%s: duration %v is negative", field, f.Dur)
	}
	if f.After != nil && !w.any(f.After.Actor) {
		return errors.Errorf("%s: trigger names unknown actor %s", field, bounded.Q(f.After.Actor))
	}
	if t := f.After; t != nil && (t.Nth < 0 || t.SinceNth < 0 || t.SinceNth > 0 && t.Since == "") {
		return errors.Errorf("%s: trigger counts must be positive (and #since needs a since kind)", field)
	}
	info, ok := FaultKindOf(f.Kind)
	if !ok {
		return errors.Errorf("%s: unknown fault kind %s", field, bounded.Q(f.Kind))
	}
	if err := w.checkTargets(info.Targets, f); err != nil {
		return errors.Wrap(err, field)
	}
	if err := info.Check(f); err != nil {
		return errors.Wrap(err, field)
	}
	return nil
}

// FaultAbout says in one line what each fault kind does, for listings:
// FaultKindTable's About.
var FaultAbout = map[FaultKind]string{}

// PersistenceAbout says what each persistence mode keeps across a crash.
var PersistenceAbout = map[Persistence]string{
	PersistNone:     "nothing: a node restarts empty",
	PersistEverySec: "all but the writes since the last whole second",
	PersistAlways:   "everything acknowledged",
}
