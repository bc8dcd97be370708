package scenarios

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/sim"
)

const ms = time.Millisecond

func pauseAt(at, dur time.Duration) sim.Fault {
	return sim.Fault{Kind: sim.FaultPause, Target: "A", At: at, Dur: dur}
}

func TestEnd(t *testing.T) {
	fs := []sim.Fault{
		pauseAt(100*ms, 50*ms),
		{Kind: sim.FaultNodeCrash, Target: "r1", At: 120 * ms}, // forever: counts from its start
		{Kind: sim.FaultPause, Target: "A", Dur: time.Hour, After: trig("A", "acquired", 0)},
	}
	if got := End(fs); got != 150*ms {
		t.Errorf("End = %v, want 150ms", got)
	}
	if got := End(nil); got != 0 {
		t.Errorf("End(nil) = %v", got)
	}
}

// TestSeqShifts: each part starts where the parts before it end; triggered
// faults are not shifted.
func TestSeqShifts(t *testing.T) {
	a := Fixed{pauseAt(100*ms, 50*ms)}
	b := Fixed{pauseAt(0, 10*ms), {Kind: sim.FaultCrash, Target: "B", After: trig("B", "reply", 2)}}
	c := Fixed{pauseAt(5*ms, 1*ms)}
	got := Generate(Seq(a, b, c), 1)
	want := []sim.Fault{
		pauseAt(100*ms, 50*ms),
		pauseAt(150*ms, 10*ms),
		pauseAt(165*ms, 1*ms), // 160ms (end of b) + 5ms
		{Kind: sim.FaultCrash, Target: "B", After: trig("B", "reply", 2)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Seq (-want +got):\n%s", diff)
	}
}

// TestRepeatShifts: copy i is shifted by i*every, and its triggers move to
// the (Nth+i)th event.
func TestRepeatShifts(t *testing.T) {
	s := Fixed{pauseAt(10*ms, 5*ms), {Kind: sim.FaultPause, Target: "B", Dur: ms, After: trig("B", "acquired", 0)}}
	got := Generate(Repeat(3, s, time.Second), 1)
	want := []sim.Fault{
		pauseAt(10*ms, 5*ms),
		pauseAt(time.Second+10*ms, 5*ms),
		pauseAt(2*time.Second+10*ms, 5*ms),
		{Kind: sim.FaultPause, Target: "B", Dur: ms, After: trig("B", "acquired", 1)},
		{Kind: sim.FaultPause, Target: "B", Dur: ms, After: trig("B", "acquired", 2)},
		{Kind: sim.FaultPause, Target: "B", Dur: ms, After: trig("B", "acquired", 3)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Repeat (-want +got):\n%s", diff)
	}
	if got := Generate(Repeat(0, s, time.Second), 1); len(got) != 0 {
		t.Errorf("Repeat(0) = %v", got)
	}
}

func TestShiftAndMerge(t *testing.T) {
	a := Fixed{pauseAt(300*ms, ms)}
	b := Shift(time.Second, Fixed{pauseAt(0, ms), {Kind: sim.FaultCrash, Target: "A", After: trig("A", "reply", 0)}})
	got := Generate(Merge(b, a), 1)
	want := []sim.Fault{
		pauseAt(300*ms, ms),
		pauseAt(time.Second, ms),
		{Kind: sim.FaultCrash, Target: "A", After: trig("A", "reply", 0)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Merge(Shift) (-want +got):\n%s", diff)
	}
}

// TestSameSeedSameSchedule: a schedule is a function of its seed, and
// different seeds differ.
func TestSameSeedSameSchedule(t *testing.T) {
	s := Seq(
		RandomTimes(pauseAt(0, 200*ms), 4, 5*time.Second),
		OneOf(
			Fixed{{Kind: sim.FaultNodeCrash, Target: "r1", Dur: time.Second}},
			RandomTimes(sim.Fault{Kind: sim.FaultClockJump, Target: "r2", By: 2 * time.Second}, 1, time.Second),
		),
		Repeat(2, RandomTimes(sim.Fault{Kind: sim.FaultPause, Target: "B", Dur: ms, After: trig("B", "write", 0)}, 1, 10*ms), time.Second),
	)
	a, b := Generate(s, 42), Generate(s, 42)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different schedules (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(a, Generate(s, 43)); diff == "" {
		t.Errorf("seeds 42 and 43 gave the same schedule")
	}
	// The same generator state, not only the same seed, gives the same faults.
	r1 := rand.New(rand.NewPCG(7, 8))
	r2 := rand.New(rand.NewPCG(7, 8))
	if diff := cmp.Diff(s.Faults(r1), s.Faults(r2)); diff != "" {
		t.Errorf("same generator state, different schedules:\n%s", diff)
	}
}

// TestRandomTimes: times fall in the window, in order; the template is
// not changed.
func TestRandomTimes(t *testing.T) {
	tmpl := pauseAt(time.Second, 10*ms)
	fs := Generate(RandomTimes(tmpl, 50, 500*ms), 3)
	if len(fs) != 50 {
		t.Fatalf("got %d faults, want 50", len(fs))
	}
	for i, f := range fs {
		if f.At < time.Second || f.At >= time.Second+500*ms {
			t.Errorf("fault %d at %v, outside [1s, 1.5s)", i, f.At)
		}
		if i > 0 && f.At < fs[i-1].At {
			t.Errorf("fault %d at %v before fault %d at %v", i, f.At, i-1, fs[i-1].At)
		}
	}
	if tmpl.At != time.Second {
		t.Errorf("template changed")
	}
}

// TestScheduleToFile: a generated schedule can be saved as a scenario file
// and replayed.
func TestScheduleToFile(t *testing.T) {
	s, err := Lookup("gc-pause")
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.Faults = Generate(Merge(
		RandomTimes(pauseAt(0, 300*ms), 3, 2*time.Second),
		Fixed{{Kind: sim.FaultDelay, From: "A", To: "resource", Extra: time.Second, Dur: 10 * ms, After: trig("A", "write", 0)}},
	), 9)
	back, err := Parse("generated.txt", s.Format())
	if err != nil {
		t.Fatalf("generated schedule does not parse: %v\n%s", err, s.Format())
	}
	if diff := cmp.Diff(s.Spec.Faults, back.Spec.Faults); diff != "" {
		t.Errorf("faults after Format/Parse (-want +got):\n%s", diff)
	}
}
