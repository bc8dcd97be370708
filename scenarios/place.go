package scenarios

import (
	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// PlaceOf reads back where a generated pause or client crash was placed
// (Gen's placements, and exhaustive mode's): at a time, inside acquire,
// in the critical section, before the write, inside release or inside a
// watchdog renewal, for a model's calls and a real client's wire events
// (Gen.Wire) alike. A fault placed after another event (a scenario's own
// trigger) has no place: "".
func PlaceOf(f sim.Fault) Place {
	t := f.After
	switch {
	case t == nil:
		return PlaceTime
	case t.Task == "watchdog":
		return PlaceWatchdog
	case (t.Kind == sim.KindCall || t.Kind == history.KindAcquireSend) && t.Since == history.KindAcquireStart:
		return PlaceAcquire // a model's request, or a real client's on the wire (Gen.Wire)
	case t.Kind == history.KindAcquired:
		return PlaceCritical
	case t.Kind == history.KindWrite:
		return PlaceWrite
	case t.Kind == history.KindReleaseSend:
		return PlaceRelease
	}
	return ""
}

// PlacesFor are the places where Gen puts the pauses and client crashes
// of a spec's runs: PauseAt (all when empty), without the watchdog for a
// design that does not renew. None when the kinds have neither pauses nor
// client crashes.
func (g Gen) PlacesFor(s *model.Resolved) []Place {
	hasClient := false
	for _, k := range g.kinds() {
		hasClient = hasClient || IsPlaced(k)
	}
	if !hasClient || g.none() {
		return nil
	}
	places := g.PauseAt
	if len(places) == 0 {
		places = Places
	}
	var out []Place
	for _, p := range places {
		if p == PlaceWatchdog && !s.Traits.Renews {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		out = []Place{PlaceCritical}
	}
	return out
}

// KindsDrawn are the fault kinds Gen draws from (none for no faults).
func (g Gen) KindsDrawn() []sim.FaultKind {
	if g.none() {
		return nil
	}
	return g.kinds()
}
