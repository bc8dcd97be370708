package engine

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"locksim/model/invariant"
)

// DangerPoint is one point of the fault-free run with what the one-fault
// schedules placed there broke: the danger map.
type DangerPoint struct {
	Actor string `json:"actor"`
	// At is the point's true time.
	At time.Duration `json:"at_ns"`
	// Trigger is the event the faults were placed after, as fault lines
	// write it ("A acquired #1"); Phase where that is in the protocol.
	Trigger string `json:"trigger"`
	Phase   string `json:"phase"`
	// Event is the position of that event in the fault-free history.
	Event int `json:"event"`
	// Schedules counts the faults tried here, Broken those that broke a
	// counted invariant.
	Schedules int `json:"schedules"`
	Broken    int `json:"broken"`
	// Harm is the worst a single fault here does; Invariants every
	// counted invariant some fault here broke.
	Harm       invariant.Harm `json:"harm"`
	Invariants []invariant.ID `json:"invariants,omitempty"`
	// Worst is the mechanism of the smallest fault that did Harm, and
	// WorstFault that fault.
	Worst      string `json:"worst,omitempty"`
	WorstFault string `json:"worst_fault,omitempty"`
	worstSize  time.Duration
	// Chance, when a fault profile was given (check --exhaustive
	// --profile), is how likely it makes WorstFault start in this point's
	// span, for the acquisition the point belongs to (risk.PointChance);
	// ChanceOf says what was counted, or why there is no chance.
	Chance   *float64 `json:"profile_chance,omitempty"`
	ChanceOf string   `json:"profile_chance_of,omitempty"`
}

// aggregate tallies schedules in order into a result.
type aggregate struct {
	res         *ExhaustiveResult
	groups      map[string]*Break
	stopAtFirst bool
	// keepClean keeps, in clean, every schedule that broke nothing (with
	// its choice points) for the reorder rounds (exhaustive_preempt.go).
	keepClean bool
	clean     []Schedule
}

func newAggregate(x *explorer, res *ExhaustiveResult) *aggregate {
	a := &aggregate{res: res, groups: map[string]*Break{}, stopAtFirst: x.cfg.StopAtFirst}
	for _, p := range x.points {
		res.Danger = append(res.Danger, DangerPoint{Actor: p.Actor, At: p.At, Trigger: p.Trigger.String(),
			Phase: phase(p), Event: p.Rep})
	}
	return a
}

func (a *aggregate) add(s Schedule, depthOne bool) {
	r := a.res
	if s.Error != "" {
		if r.FirstError == nil {
			c := s
			r.FirstError = &c
		}
		return
	}
	for _, id := range s.Uncounted {
		r.Uncounted[id]++
	}
	if s.Unfired && len(s.Broken) == 0 {
		r.UnfiredSchedules++ // tested nothing it names: not toward the guarantee
		return
	}
	for _, id := range s.Undecided {
		if r.Undecided == nil {
			r.Undecided = map[invariant.ID]int{}
		}
		r.Undecided[id]++
	}
	if a.keepClean && clean(s) {
		a.clean = append(a.clean, s)
	}
	if depthOne {
		d := &r.Danger[s.point]
		d.Schedules++
		if len(s.Broken) > 0 {
			d.Broken++
			for _, id := range s.Broken {
				if !slices.Contains(d.Invariants, id) {
					d.Invariants = append(d.Invariants, id)
				}
			}
			h := invariant.Worst(s.Broken)
			if h > d.Harm || h == d.Harm && s.size < d.worstSize {
				d.Harm, d.Worst, d.WorstFault, d.worstSize = h, s.Mechanism[0], s.Faults[0].String(), s.size
			}
		}
	}
	if len(s.Broken) == 0 {
		return
	}
	r.BrokenSchedules++
	for _, id := range s.Broken {
		r.Counts[id]++
	}
	key := strings.Join(s.Mechanism, ", then ")
	g := a.groups[key]
	if g == nil {
		g = &Break{Mechanism: key}
		a.groups[key] = g
		r.Breaks = append(r.Breaks, g)
	}
	g.Schedules++
	g.Broken = invariant.Sorted(append(g.Broken, s.Broken...))
	if cl := classText(s.Classes); !slices.Contains(g.Classes, cl) {
		g.Classes = append(g.Classes, cl)
	}
	if h, was := invariant.Worst(s.Broken), g.harm(); g.Smallest == nil || h > was || h == was && s.size < g.Smallest.size {
		c := s
		g.Smallest = &c
	}
}

// stop reports whether the exploration stops after s (StopAtFirst).
func (a *aggregate) stop(s Schedule) bool {
	if a.stopAtFirst && len(s.Broken) > 0 {
		a.res.Stopped = true
		return true
	}
	return false
}

// harm is the worst harm of the group's smallest schedule so far.
func (b *Break) harm() invariant.Harm {
	if b.Smallest == nil {
		return invariant.HarmNone
	}
	return invariant.Worst(b.Smallest.Broken)
}

// classText renders a schedule's duration classes: "ttl+", "ttl/2 then
// ttl+", "-" for a fault without one.
func classText(cs []string) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = cmp.Or(c, "-")
	}
	return strings.Join(out, " then ")
}

// finish orders each danger point's invariants as reports list them and
// each break's duration classes as the configuration lists them.
func (a *aggregate) finish() *ExhaustiveResult {
	for i := range a.res.Danger {
		d := &a.res.Danger[i]
		d.Invariants = invariant.Sorted(d.Invariants)
	}
	order := func(c string) int {
		if i := slices.IndexFunc(a.res.Classes, func(d DurClass) bool { return d.Name == c }); i >= 0 {
			return i
		}
		return len(a.res.Classes) // forever, or none
	}
	for _, b := range a.res.Breaks {
		slices.SortStableFunc(b.Classes, func(x, y string) int {
			xs, ys := strings.Split(x, " then "), strings.Split(y, " then ")
			for i := range min(len(xs), len(ys)) {
				if c := order(xs[i]) - order(ys[i]); c != 0 {
					return c
				}
			}
			return len(xs) - len(ys)
		})
	}
	return a.res
}

// Lines renders a schedule's faults as fault lines.
func (s *Schedule) Lines() []string {
	var out []string
	for _, f := range s.Faults {
		out = append(out, f.String())
	}
	return out
}
