package engine

import (
	"github.com/pkg/errors"

	"locksim/sim"
)

// depthTwo extends every one-fault schedule that broke nothing with a
// second fault: at the same point (a later fault of its menu), or at any
// point of the run the first fault led to, after the first fault took
// hold. A schedule whose first fault already broke a counted invariant is
// not extended: its break is already the smaller schedule. It first
// counts the schedules (running each first fault once with its history)
// and refuses a count above the bound before running any of them.
func (x *explorer) depthTwo(ran []Schedule, agg *aggregate, progress func(done, planned int), done int) error {
	var firsts []Schedule
	for _, s := range ran {
		if len(s.Broken) == 0 && s.Error == "" {
			firsts = append(firsts, s)
		}
	}
	planned := 0 // unknown under StopAtFirst, which stops at the bound instead
	if !x.cfg.StopAtFirst {
		// The fault-free run's later points estimate the count without a
		// run; only an estimate near the bound is worth counting exactly.
		if est := len(ran) + x.estimateSeconds(firsts); est > 3*x.max() {
			return errors.Errorf("exhaustive: about %d one- and two-fault schedules, more than the bound of %d: %s", est, x.max(), narrow)
		}
		total := 0
		ordered(len(firsts), x.cfg.Workers, x.more(), func(j int) int {
			ss, _ := x.seconds(firsts[j])
			return len(ss)
		}, func(_ int, n int) bool { total += n; return true })
		if len(ran)+total > x.max() {
			return errors.Errorf("exhaustive: %d one-fault and %d two-fault schedules, more than the bound of %d: %s", len(ran), total, x.max(), narrow)
		}
		planned = len(ran) + total
	}
	n := 0
	ordered(len(firsts), x.cfg.Workers, x.more(), func(j int) []Schedule {
		ss, err := x.seconds(firsts[j])
		if err != nil {
			return []Schedule{{Faults: firsts[j].Faults, Mechanism: firsts[j].Mechanism, Error: err.Error()}}
		}
		for i := range ss {
			ss[i] = x.run(ss[i])
			if ss[i].Error != "" || x.cfg.StopAtFirst && len(ss[i].Broken) > 0 {
				return ss[:i+1]
			}
		}
		return ss
	}, func(_ int, ss []Schedule) bool {
		for _, s := range ss {
			s.Index = len(ran) + n
			n++
			agg.add(s, false)
			if progress != nil {
				progress(done+n, planned)
			}
			if s.Error != "" || agg.stop(s) {
				return false
			}
			if done+n >= x.max() { // StopAtFirst without a break yet: the bound ends the search
				agg.res.HitBound = true
				return false
			}
		}
		return true
	})
	agg.res.Schedules = append(agg.res.Schedules, n)
	return nil
}

// narrow says how to make an exploration smaller.
const narrow = "narrow it (--faults, --durations, --clients, --cycles; from Go WithFaults, WithDurations, WithClients, WithWorkload), " +
	"look for a counterexample only (--stop-at-first, WithStopAtFirst), or raise the bound (--max-schedules, WithMaxSchedules)"

// estimateSeconds estimates the two-fault schedules of firsts from the
// fault-free run: each first fault's menu after it and the menus of the
// points after its own.
func (x *explorer) estimateSeconds(firsts []Schedule) int {
	after := make([]int, len(x.points)+1) // after[i]: menu sizes of points i+1...
	for i := len(x.points) - 1; i >= 0; i-- {
		after[i] = after[i+1] + len(x.menu(x.points[i], x.base))
	}
	n := 0
	for _, f := range firsts {
		n += after[f.point+1] + len(x.menu(x.points[f.point], x.base)) - f.opt - 1
	}
	return n
}

// seconds lists the two-fault schedules that extend first.
func (x *explorer) seconds(first Schedule) ([]Schedule, error) {
	p1 := x.points[first.point]
	var out []Schedule
	extend := func(p Point, c choice) {
		out = append(out, Schedule{
			Faults:    []sim.Fault{first.Faults[0], c.fault},
			Mechanism: []string{first.Mechanism[0], label(p, c)},
			Classes:   []string{first.Classes[0], c.class},
			point:     first.point, opt: first.opt, size: first.size + c.size,
		})
	}
	for o, c := range x.menu(p1, x.base) {
		if o > first.opt {
			extend(p1, c)
		}
	}
	spec := x.spec
	spec.Faults = first.Faults
	r, steps, err := x.observed(spec)
	if err != nil {
		return nil, err
	}
	if r.Err != nil {
		return nil, r.Err
	}
	for _, p := range pointsOf(r.History, steps, p1.Rep, x.roles) {
		for _, c := range x.menu(p, r.History) {
			extend(p, c)
		}
	}
	return out, nil
}
