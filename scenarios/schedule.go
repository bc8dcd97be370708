package scenarios

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"

	"locksim/sim"
)

// Schedule generates a fault list, for property tests and sweeps. Faults
// must draw randomness only from r, so that the same generator state gives
// the same faults; the result is the caller's to keep.
//
// Combinators build schedules from smaller ones (after gosim's nemesis
// Sequence/Repeat). They shift *absolute* faults in time; a fault with a
// trigger (Fault.After) is relative to an event, so shifting leaves it
// alone, and Repeat moves it to later occurrences of its event instead.
// Every combinator returns faults in canonical order: absolute faults by
// time (stable), then triggered faults in their order, which is what a
// scenario file requires and what Scenario.Format writes.
type Schedule interface {
	Faults(r *rand.Rand) []sim.Fault
}

// Fixed is a schedule without randomness: its faults, copied.
type Fixed []sim.Fault

// Faults returns a deep copy of the faults, in their order.
func (f Fixed) Faults(*rand.Rand) []sim.Fault { return cloneFaults(f) }

// Func adapts a function to a Schedule.
type Func func(r *rand.Rand) []sim.Fault

// Faults calls the function.
func (fn Func) Faults(r *rand.Rand) []sim.Fault { return fn(r) }

// Generate runs a schedule with a generator seeded by seed alone: the same
// seed gives the same faults.
func Generate(s Schedule, seed uint64) []sim.Fault {
	return s.Faults(rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
}

// End returns when a fault list is over: the latest At+Dur of its absolute
// faults (a fault that lasts forever, Dur 0, counts from its start), or 0.
// Triggered faults do not count: their time is not known in advance.
func End(fs []sim.Fault) time.Duration {
	var end time.Duration
	for _, f := range fs {
		if f.After == nil {
			end = max(end, f.At+f.Dur)
		}
	}
	return end
}

// Seq runs schedules one after another: each part's absolute faults are
// shifted to start at End of everything before it, so Seq(a, b) puts b's
// "at 0s" where a's last fault is over. Parts are generated in order.
func Seq(parts ...Schedule) Schedule {
	return Func(func(r *rand.Rand) []sim.Fault {
		var out []sim.Fault
		for _, p := range parts {
			out = append(out, shift(p.Faults(r), End(out))...)
		}
		return canonical(out)
	})
}

// Merge runs schedules side by side: the union of their faults, unshifted.
func Merge(parts ...Schedule) Schedule {
	return Func(func(r *rand.Rand) []sim.Fault {
		var out []sim.Fault
		for _, p := range parts {
			out = append(out, p.Faults(r)...)
		}
		return canonical(out)
	})
}

// Shift delays every absolute fault of s by d (d >= 0; Shift panics on a
// negative d, a programmer error).
func Shift(d time.Duration, s Schedule) Schedule {
	if d < 0 {
		panic("scenarios: Shift by a negative duration")
	}
	return Func(func(r *rand.Rand) []sim.Fault { return canonical(shift(s.Faults(r), d)) })
}

// Repeat runs s n times (n <= 0: never). Copy i, from 0, is generated
// afresh, its absolute faults shifted by i*every (every >= 0; Repeat
// panics otherwise), and its triggered faults moved i occurrences later:
// "after A acquired" becomes "after A acquired #2" in the second copy, and
// so on.
func Repeat(n int, s Schedule, every time.Duration) Schedule {
	if every < 0 {
		panic("scenarios: Repeat with a negative period")
	}
	return Func(func(r *rand.Rand) []sim.Fault {
		var out []sim.Fault
		for i := 0; i < n; i++ {
			fs := shift(s.Faults(r), time.Duration(i)*every)
			for j := range fs {
				if t := fs[j].After; t != nil {
					t.Nth = max(t.Nth, 1) + i
				}
			}
			out = append(out, fs...)
		}
		return canonical(out)
	})
}

// RandomTimes places n copies of tmpl at times drawn uniformly from
// [tmpl.At, tmpl.At+window): absolute times, or delays after the trigger
// if tmpl has one. window <= 0 puts every copy at tmpl.At.
func RandomTimes(tmpl sim.Fault, n int, window time.Duration) Schedule {
	return Func(func(r *rand.Rand) []sim.Fault {
		out := make([]sim.Fault, 0, max(n, 0))
		for i := 0; i < n; i++ {
			f := cloneFault(tmpl)
			if window > 0 {
				f.At += time.Duration(r.Int64N(int64(window)))
			}
			out = append(out, f)
		}
		return canonical(out)
	})
}

// OneOf picks one of the schedules at random and runs it. With no choices
// it yields no faults.
func OneOf(choices ...Schedule) Schedule {
	return Func(func(r *rand.Rand) []sim.Fault {
		if len(choices) == 0 {
			return nil
		}
		return choices[r.IntN(len(choices))].Faults(r)
	})
}

// shift returns fs with every absolute fault d later, deep-copied.
func shift(fs []sim.Fault, d time.Duration) []sim.Fault {
	out := cloneFaults(fs)
	for i := range out {
		if out[i].After == nil {
			out[i].At += d
		}
	}
	return out
}

// canonical orders faults as a file must list them: absolute faults by
// time, stably, then triggered faults in their order.
func canonical(fs []sim.Fault) []sim.Fault {
	slices.SortStableFunc(fs, func(a, b sim.Fault) int {
		switch {
		case a.After == nil && b.After == nil:
			return cmp.Compare(a.At, b.At)
		case a.After == nil:
			return -1
		case b.After == nil:
			return 1
		}
		return 0
	})
	return fs
}
