package logcheck

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
)

// MaxIncidentEvents bounds the events ReadIncident keeps: finding a
// reproduction needs the incident's events in memory (checking does not).
const MaxIncidentEvents = 1_000_000

// ReadIncident checks a log and keeps its events, for Shape.
func ReadIncident(ins []Input, opt Options) (*Result, []Event, error) {
	var evs []Event
	var tooMany bool
	r, err := checkWith(ins, opt, func(e Event) {
		if len(evs) < MaxIncidentEvents {
			evs = append(evs, e)
		} else {
			tooMany = true
		}
	})
	if err == nil && tooMany {
		err = errors.Errorf("the incident has more than %d events: cut the log around the violation to search for a reproduction", MaxIncidentEvents)
	}
	return r, evs, err
}

// Shape is a violation's shape: the sequence of "client kind" of the
// involved clients' events on its key, from the first involved client's
// acquire-attempt before its cited event to the last cited event, clients
// renamed A, B, ... in order of appearance, times ignored.
func Shape(evs []Event, v Violation) []string {
	pos := map[string]int{}
	for i, e := range evs {
		pos[e.Where()] = i
	}
	first, last := -1, -1
	for _, w := range v.Where {
		if i, ok := pos[w]; ok {
			if first < 0 || i < first {
				first = i
			}
			last = max(last, i)
		}
	}
	if first < 0 {
		return nil
	}
	// Start at the earliest acquire-attempt that led to a cited event.
	start := first
	for _, w := range v.Where {
		i, ok := pos[w]
		if !ok {
			continue
		}
		start = min(start, i)
		for j := i - 1; j >= 0; j-- {
			if e := evs[j]; e.Client == evs[i].Client && e.Key == v.Key {
				if e.Kind == AcquireAttempt {
					start = min(start, j)
					break
				}
				if e.Kind == Granted && j != i || e.Kind == Released || e.Kind == Refused {
					break
				}
			}
		}
	}
	names := map[string]string{}
	var shape []string
	for _, e := range evs[start : last+1] {
		if e.Key != v.Key || !slices.Contains(v.Clients, e.Client) {
			continue
		}
		n, ok := names[e.Client]
		if !ok {
			n = string(rune('A' + len(names)))
			names[e.Client] = n
		}
		shape = append(shape, n+" "+string(e.Kind))
	}
	return shape
}

// Distance is the edit distance between two shapes (insertions, deletions
// and substitutions of one event each).
func Distance(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Repro is the outcome of a search for a reproduction.
type Repro struct {
	Invariant invariant.ID
	Target    []string
	// Runs is how many runs were searched; Broke how many broke the
	// invariant in the simulation.
	Runs, Broke int
	// Distance is the closest match's distance (0: the same shape), -1
	// when no run broke the invariant in a way its log shows.
	Distance int
	// Run, Seed, Shape and Result are the closest match's.
	Run    int
	Seed   uint64
	Shape  []string
	Result *model.Result
}

// Reproduce searches the check's runs (cfg.RunSpec(0), (1), ... up to
// budget) for one that breaks the violation's invariant in the simulation
// and whose exported log shows a violation of the same invariant with the
// same shape; it stops at the first such run, or returns the closest.
func Reproduce(evs []Event, v Violation, cfg engine.CheckConfig, budget int) (*Repro, error) {
	target := Shape(evs, v)
	if len(target) == 0 {
		return nil, errors.New("the violation's events are not in the log")
	}
	rep := &Repro{Invariant: v.Invariant, Target: target, Distance: -1}
	var buf bytes.Buffer
	for i := 0; i < budget; i++ {
		spec, seed := cfg.RunSpec(i)
		r, err := model.Run(spec, seed)
		rep.Runs++
		if err != nil {
			return nil, err
		}
		if r.Err == nil && slices.ContainsFunc(r.Violations, func(x invariant.Violation) bool { return x.Invariant == v.Invariant }) {
			rep.Broke++
		}
		if r.Err != nil || !slices.ContainsFunc(r.Violations, func(x invariant.Violation) bool { return x.Invariant == v.Invariant }) {
			continue
		}
		buf.Reset()
		if err := Export(&buf, r.History); err != nil {
			return nil, err
		}
		res, got, err := ReadIncident([]Input{{Name: "run", R: &buf}}, Options{})
		if err != nil {
			return nil, errors.Errorf("run %d's export: %v", i, err)
		}
		for _, x := range res.Violations {
			if x.Invariant != v.Invariant || x.Certainty != Certain {
				continue
			}
			s := Shape(got, x)
			if d := Distance(target, s); rep.Distance < 0 || d < rep.Distance {
				rep.Distance, rep.Run, rep.Seed, rep.Shape, rep.Result = d, i, seed, s, r
			}
		}
		if rep.Distance == 0 {
			break
		}
	}
	return rep, nil
}

// Text says what the search found.
func (r *Repro) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "reproduction of %s (%d of %d runs broke it), shape (%d events): %s\n", r.Invariant, r.Broke, r.Runs, len(r.Target), strings.Join(r.Target, ", "))
	switch {
	case r.Distance == 0:
		fmt.Fprintf(&b, "  run %d (seed %d) of %d searched breaks %s with the same shape\n", r.Run, r.Seed, r.Runs, r.Invariant)
	case r.Distance > 0:
		fmt.Fprintf(&b, "  no run of %d matched; the closest, run %d (seed %d), is %d event(s) away: %s\n",
			r.Runs, r.Run, r.Seed, r.Distance, strings.Join(r.Shape, ", "))
	default:
		fmt.Fprintf(&b, "  no run of %d broke %s in a way its log shows\n", r.Runs, r.Invariant)
	}
	return b.String()
}
