package invariant

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"locksim/model/history"
	"locksim/sim"
)

// checkAvailable reports when, while only faults the design claims to
// tolerate were active, the lock was wanted and nobody held it for longer
// than Config.AvailableBound without anyone acquiring it.
//
// The claim (Config.Masters, Config.Tolerate) is a quorum lock's: it keeps
// working while at most Tolerate of its masters are down (node-crash),
// slow (node-stall) or cut off (a partition one side of which holds only
// masters: those are the ones cut off). Any other fault makes the run
// intolerable while it lasts: a pause until the resume, a client crash
// until the restart, a delay or drop window (its extra delay too), a
// partition with a client on both sides, a failover at its instant; a
// clock step or rate change or an eviction for the rest of the run.
//
// A gap starts at the first instant at which the faults are tolerated, a
// client is trying to acquire and no client is in a critical section; it
// ends at the next acquired event, and is forgotten when an intolerable
// fault begins or more masters are affected than tolerated. A gap longer
// than the bound is a violation over [start, start+bound] if the lock is
// still wanted when the bound runs out (a client trying then): a client
// that gave up by its own acquire wait before the bound, and did not try
// again, says nothing about the claim. One still open when the history
// ends before start+bound has no verdict (the run says nothing). Keys
// left by a failed try or a crashed holder expire within a TTL, which the
// bound includes.
//
// A Sentinel setup's claim (Config.Failover) is judged the same way with
// its own tolerated faults: at most Tolerate nodes of the lock's group
// down, stalled, or cut off by a partition one side of which holds only
// nodes of the group and the other the sentinel (so that Sentinel sees the
// primary gone and promotes a node it still reaches); the promotion and
// the old primary's demotion are expected. Each such fault restarts the
// recovery, so the bound (which counts down-after, the discovery and a
// TTL) runs from the onset of the last one: a gap under way when a
// tolerated node-crash, node-stall or partition begins counts from that
// instant. As for Redlock, the lock must still be wanted when the bound
// runs out (the bound is long here: down-after alone is Sentinel's 30s by
// default): a client that gave up before it says nothing about the
// claim, while one whose library fails fast and tries again each cycle
// still wants it.
func checkAvailable(ix *history.Index, cfg Config) []Violation {
	bound := cfg.AvailableBound
	pts := livenessPoints(ix)
	tol := toleranceChanges(ix, cfg)
	var vs []Violation
	type gapAt struct {
		from time.Duration
		pos  int
	}
	var g *gapAt
	trying, holding := 0, 0
	ok := true
	ti := 0
	check := func(at time.Duration) {
		if g != nil && at > g.from+bound {
			// A gap breaks the claim only if the lock is still wanted
			// when the bound runs out (trying is what it was since the
			// last point, the deadline included).
			if trying > 0 {
				vs = append(vs, availableViolation(ix, g.from, g.pos, bound, cfg))
			}
			g = nil
		}
	}
	start := func(at time.Duration, pos int) {
		if g == nil && ok && trying > 0 && holding == 0 {
			g = &gapAt{from: at, pos: pos}
		}
	}
	for _, p := range pts {
		for ti < len(tol) && tol[ti].at <= p.at && (tol[ti].at < p.at || tol[ti].pos <= p.pos) {
			check(tol[ti].at)
			ok = tol[ti].ok
			if !ok {
				g = nil
			}
			if g != nil && cfg.Failover && tol[ti].onset {
				g = &gapAt{from: tol[ti].at, pos: tol[ti].pos} // the recovery starts again
			}
			start(tol[ti].at, tol[ti].pos)
			ti++
		}
		check(p.at)
		trying += int(p.trying)
		holding += int(p.holding)
		if p.acquired {
			g = nil
		}
		pos := p.pos
		if pos < 0 {
			pos = max(0, sortSearchAt(ix, p.at)-1)
		}
		start(p.at, pos)
	}
	for ; ti < len(tol); ti++ {
		check(tol[ti].at)
		ok = tol[ti].ok
		if !ok {
			g = nil
		}
	}
	if g != nil && ix.End >= g.from+bound && trying > 0 {
		vs = append(vs, availableViolation(ix, g.from, g.pos, bound, cfg))
	}
	return vs
}

// sortSearchAt is the position of the first event after true time at.
func sortSearchAt(ix *history.Index, at time.Duration) int {
	i, _ := slices.BinarySearchFunc(ix.H, at+1, func(e sim.Event, t time.Duration) int { return cmp.Compare(e.At, t) })
	return i
}

// tolerance is a change of whether the active faults are all tolerated:
// at a fault event (pos) or at the end of a window (pos -1: before the
// events of its instant).
type tolerance struct {
	at  time.Duration
	pos int
	ok  bool
	// onset: the fault event begins a fault that takes a node away
	// (node-crash, node-stall, partition), which restarts a Sentinel
	// setup's recovery.
	onset bool
}

// toleranceChanges lists, in time order, each fault event and each end of
// a fault window, with whether the faults active just after it are all
// ones the design tolerates (toleratedAfter).
func toleranceChanges(ix *history.Index, cfg Config) []tolerance {
	var out []tolerance
	for i, p := range ix.Faults {
		e := ix.H[p]
		onset := e.Kind == sim.KindNodeCrash || e.Kind == sim.KindNodeStall || e.Kind == sim.KindPartition
		out = append(out, tolerance{at: e.At, pos: p, ok: toleratedAfter(ix, cfg, i, e.At), onset: onset})
		var end time.Duration
		switch e.Kind {
		case sim.KindNetDelay:
			end = e.At + e.Dur + time.Duration(e.N)
		case sim.KindNetDrop:
			end = e.At + e.Dur
		}
		if e.Dur > 0 && end > e.At {
			out = append(out, tolerance{at: end, pos: -1})
		}
	}
	slices.SortStableFunc(out, func(a, b tolerance) int { return cmp.Compare(a.at, b.at) })
	for i := range out {
		if out[i].pos < 0 { // a window's end: the faults up to its instant
			last := sortSearchFault(ix, out[i].at) - 1
			out[i].ok = toleratedAfter(ix, cfg, last, out[i].at)
		}
	}
	return out
}

// sortSearchFault is the index in ix.Faults of the first fault event at or
// after true time at.
func sortSearchFault(ix *history.Index, at time.Duration) int {
	i, _ := slices.BinarySearchFunc(ix.Faults, at, func(p int, t time.Duration) int { return cmp.Compare(ix.H[p].At, t) })
	return i
}

// toleratedAfter replays the fault events ix.Faults[:last+1] and reports
// whether, at true time now, every fault still active is tolerated: at
// most cfg.Tolerate masters down, stalled or cut off by a partition whose
// one side holds only masters, and nothing else active.
func toleratedAfter(ix *history.Index, cfg Config, last int, now time.Duration) bool {
	down, stalled := map[string]bool{}, map[string]bool{}
	// A Sentinel setup's old primary, deposed while it was away and not yet
	// demoted (it still believes it is the primary), is no node Sentinel
	// can promote: it is affected until its demote.
	deposed := map[string]bool{}
	cut := map[string][]string{} // a tolerated partition's note -> the masters it cuts off
	bad := map[string]bool{}     // intolerable faults still active
	for _, p := range ix.Faults[:last+1] {
		e := ix.H[p]
		switch e.Kind {
		case sim.KindNodeCrash:
			down[e.Actor] = true
		case sim.KindNodeUp:
			delete(down, e.Actor)
		case sim.KindNodeStall:
			stalled[e.Actor] = true
		case sim.KindNodeResume:
			delete(stalled, e.Actor)
		case sim.KindPartition:
			side, ok := mastersSide(e.Note, cfg.Masters)
			if cfg.Failover {
				side, ok = groupSide(e.Note, cfg.Masters)
			}
			if ok {
				cut[e.Note] = side
			} else {
				bad["partition "+e.Note] = true
			}
		case sim.KindHeal:
			delete(cut, e.Note)
			delete(bad, "partition "+e.Note)
		case sim.KindPause:
			bad["pause "+e.Actor] = true
		case sim.KindResume:
			delete(bad, "pause "+e.Actor)
		case sim.KindCrash:
			delete(bad, "pause "+e.Actor)
			bad["crash "+e.Actor] = true
		case sim.KindRestart:
			delete(bad, "crash "+e.Actor)
		case sim.KindNetDelay:
			if e.Dur == 0 || now < e.At+e.Dur+time.Duration(e.N) {
				return false
			}
		case sim.KindNetDrop:
			if e.Dur == 0 || now < e.At+e.Dur {
				return false
			}
		case sim.KindPromote, sim.KindDemote:
			if !cfg.Failover {
				if now <= e.At {
					return false
				}
				continue
			}
			// A Sentinel setup expects its failover.
			if e.Kind == sim.KindPromote {
				deposed[e.Peer] = true
			}
			delete(deposed, e.Actor)
		default: // clock steps and rate changes, evictions: for good
			return false
		}
	}
	if len(bad) > 0 {
		return false
	}
	affected := map[string]bool{}
	for n := range down {
		affected[n] = true
	}
	for n := range stalled {
		affected[n] = true
	}
	for n := range deposed {
		affected[n] = true
	}
	for _, ns := range cut {
		for _, n := range ns {
			affected[n] = true
		}
	}
	return len(affected) <= cfg.Tolerate
}

// groupSide reads a partition's note as a Sentinel setup's claim does:
// the side that holds only nodes of the group, when the other side holds
// the sentinel (which then sees those nodes gone and promotes one it
// reaches). A partition that leaves the sentinel talking to the primary
// while clients cannot is no fault Sentinel repairs.
func groupSide(note string, group []string) ([]string, bool) {
	note = strings.NewReplacer(" (one-way)", "", " (blackhole)", "").Replace(note)
	a, b, ok := strings.Cut(note, " | ")
	if !ok {
		return nil, false
	}
	sides := [2][]string{strings.Split(a, ","), strings.Split(b, ",")}
	for i, side := range sides {
		only := !slices.ContainsFunc(side, func(n string) bool { return !slices.Contains(group, n) })
		if only && slices.Contains(sides[1-i], sim.SentinelName) {
			return side, true
		}
	}
	return nil, false
}

// mastersSide reads a partition's note ("A,B | C,D", with " (one-way)" or
// " (blackhole)") and returns the side that holds only masters, if one
// does.
func mastersSide(note string, masters []string) ([]string, bool) {
	note = strings.TrimSuffix(strings.TrimSuffix(note, " (blackhole)"), " (one-way)")
	note = strings.TrimSuffix(note, " (one-way)")
	a, b, ok := strings.Cut(note, " | ")
	if !ok {
		return nil, false
	}
	for _, side := range []string{a, b} {
		ns := strings.Split(side, ",")
		if !slices.ContainsFunc(ns, func(n string) bool { return !slices.Contains(masters, n) }) {
			return ns, true
		}
	}
	return nil, false
}

// availableViolation explains a gap during tolerated faults.
func availableViolation(ix *history.Index, from time.Duration, pos int, bound time.Duration, cfg Config) Violation {
	x := &explanation{ix: ix}
	var clients []string
	for _, a := range ix.Attempts {
		if a.Start > pos && ix.H[a.Start].At > from || a.EndPos >= 0 && ix.H[a.EndPos].At <= from {
			continue
		}
		x.add(a.Start, a.Client+" was trying to acquire since "+sim.FormatTime(ix.H[a.Start].At), a.Start)
		clients = append(clients, a.Client)
	}
	for _, p := range ix.Faults {
		if e := ix.H[p]; e.At <= from+bound {
			x.cite(p)
		}
	}
	var active []string
	for _, p := range ix.Faults {
		e := ix.H[p]
		if e.At > from {
			break
		}
		switch e.Kind {
		case sim.KindNodeCrash, sim.KindNodeStall, sim.KindPartition:
			what := e.Actor + " " + string(e.Kind)
			if e.Kind == sim.KindPartition {
				what = "partition " + e.Note
			}
			active = append(active, what+" at "+sim.FormatTime(e.At))
		}
	}
	if len(active) > 0 && cfg.Failover {
		x.add(pos, "the faults were ones Sentinel repairs by a failover (at most "+strconv.Itoa(cfg.Tolerate)+" of the "+strconv.Itoa(len(cfg.Masters))+
			" nodes of the lock's group affected; the bound counts from the last one's onset): "+strings.Join(active, ", "))
	} else if len(active) > 0 {
		x.add(pos, "the faults were ones the design tolerates (at most "+strconv.Itoa(cfg.Tolerate)+" of its "+strconv.Itoa(len(cfg.Masters))+
			" masters affected): "+strings.Join(active, ", "))
	}
	return Violation{
		Invariant: Available,
		Clients:   distinct(clients...),
		From:      from,
		To:        from + bound,
		Events:    x.seqs(),
		Explanation: "no client acquired the lock in the " + sim.FormatTime(bound) + " after " + sim.FormatTime(from) +
			", when it was wanted, nobody held it and only faults the design tolerates were active: " + x.text(),
	}
}
