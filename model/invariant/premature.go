package invariant

import (
	"slices"
	"sort"
	"strconv"
	"time"

	"locksim/model/history"
	"locksim/sim"
)

// checkPrematureLoss reports every critical section whose lease was lost
// before the validity promised to its holder ran out: the holder acquired
// with a validity (its acquired event's lease left), every renewal it made
// up to the loss reported success, it had not invoked release, and yet its
// lease stopped being alive on the quorum of its granting nodes (as for
// stale-write: history.Index.Alive) at an instant before the section's end
// (the deadline its last belief set; a release, crash or task end ends it
// earlier, and a loss from then on is not premature).
//
// Only the design's own promise is judged, so a section is skipped when a
// fault that legitimately ends leases acted before the loss: a crash or
// restart of a granting node, any failover (promote, demote), an eviction
// on a granting node, a clock step of a granting node or of the holder
// between its acquisition's start and the loss, or a clock rate change of
// either at any time before the loss (a drift lasts), or a clock
// configured off true time (its reading's offset from true time changed
// between the attempt's start and the loss); and when a renewal of the
// hold reported failure before the loss (the holder was told). Pauses,
// delays, drops, partitions and node stalls delay messages and timers but
// end no lease early on their own: a lease set from the node's own "now"
// outlasts the validity the client measured from before its request.
//
// A section whose client trusts its lease until release (no deadline) is
// not judged, nor a revived one (the client already believed a lapsed
// lease again: mutual-exclusion judges that belief).
func checkPrematureLoss(ix *history.Index, cfg Config) []Violation {
	var vs []Violation
	for i := range ix.Sections {
		s := &ix.Sections[i]
		if s.Deadline == history.NoDeadline || s.Revived || s.To <= s.From {
			continue
		}
		grants := grantors(ix, s)
		if len(grants) == 0 {
			continue
		}
		quorum := max(min(cfg.Quorum, len(grants)), 1)
		lossPos := firstLoss(ix, s, grants, quorum)
		if lossPos < 0 || ix.H[lossPos].At >= s.To {
			continue
		}
		if legitimateEnd(ix, s, grants, lossPos) != "" || renewalRefused(ix, s, lossPos) {
			continue
		}
		vs = append(vs, prematureViolation(ix, s, grants, lossPos, quorum))
	}
	return vs
}

// PrematureExcused says, for a run whose premature-loss verdict is held,
// which holds lost their lease early but were not judged because a fault
// that may end a lease by itself acted first (checkPrematureLoss): one
// phrase per such hold, e.g. "A's lock was lost at 0.110054s after r1's
// clock jumped". A report says the verdict covers the rest only.
func PrematureExcused(ix *history.Index, cfg Config) []string {
	var out []string
	for i := range ix.Sections {
		s := &ix.Sections[i]
		if s.Deadline == history.NoDeadline || s.Revived || s.To <= s.From {
			continue
		}
		grants := grantors(ix, s)
		if len(grants) == 0 {
			continue
		}
		quorum := max(min(cfg.Quorum, len(grants)), 1)
		lossPos := firstLoss(ix, s, grants, quorum)
		if lossPos < 0 || ix.H[lossPos].At >= s.To {
			continue
		}
		if why := legitimateEnd(ix, s, grants, lossPos); why != "" {
			out = append(out, s.Client+"'s lease was lost at "+sim.FormatTime(ix.H[lossPos].At)+" after "+why)
		}
	}
	return out
}

// firstLoss returns the first event after the section's acquired event
// after which its lease is alive on fewer than quorum of its grants, or
// -1. Only a change of a granted key can end a lease that the excluded
// faults (legitimateEnd) did not touch, so those are the candidates.
func firstLoss(ix *history.Index, s *history.Section, grants []history.Grant, quorum int) int {
	alive := func(pos int) int {
		n := 0
		for _, g := range grants {
			if ix.Alive(g.Node, g.Key, s.Value, pos) {
				n++
			}
		}
		return n
	}
	if alive(s.Acq) < quorum {
		return s.Acq // never held by a quorum when the client was told it was
	}
	var cand []int
	for _, g := range grants {
		for _, c := range ix.Keys[history.NodeKey{Node: g.Node, Key: g.Key}] {
			if c.Pos > s.Acq && ix.H[c.Pos].At < s.To {
				cand = append(cand, c.Pos)
			}
		}
	}
	slices.Sort(cand)
	for _, p := range slices.Compact(cand) {
		if alive(p+1) < quorum {
			return p
		}
	}
	return -1
}

// legitimateEnd says which fault that may end a lease early by itself
// acted on the section's holder or granting nodes before lossPos, or at
// its instant (checkPrematureLoss lists them), or "" when none did.
func legitimateEnd(ix *history.Index, s *history.Section, grants []history.Grant, lossPos int) string {
	from := s.Acq
	if s.Start >= 0 {
		from = s.Start
	}
	granting := func(actor string) bool {
		return slices.ContainsFunc(grants, func(g history.Grant) bool { return g.Node == actor })
	}
	at := ix.H[lossPos].At
	for _, p := range ix.Faults {
		if ix.H[p].At > at {
			break // a clock step is recorded just before the expiries it caused
		}
		e := ix.H[p]
		mine := e.Actor == s.Client || granting(e.Actor)
		switch e.Kind {
		case sim.KindClockDrift:
			if mine {
				return e.Actor + "'s clock drifted"
			}
		case sim.KindClockJump:
			if mine && p >= from {
				return e.Actor + "'s clock jumped"
			}
		case sim.KindPromote, sim.KindDemote:
			if p >= from {
				return "a failover"
			}
		case sim.KindNodeCrash, sim.KindNodeUp, sim.KindEvict:
			if granting(e.Actor) && p >= from {
				return e.Actor + " " + map[sim.Kind]string{sim.KindNodeCrash: "crashed", sim.KindNodeUp: "restarted", sim.KindEvict: "evicted a key"}[e.Kind]
			}
		}
	}
	// A clock configured to run off true time steps or drifts with no
	// event: the offset of its reading from true time changed between the
	// attempt and the loss.
	if !steadyClock(ix, s.Client, from, lossPos) {
		return s.Client + "'s clock ran off true time"
	}
	for _, g := range grants {
		if !steadyClock(ix, g.Node, from, lossPos) {
			return g.Node + "'s clock ran off true time"
		}
	}
	// A node down when the section started counts as well.
	for _, g := range grants {
		if _, down := ix.DownAt(g.Node, s.Acq); down {
			return g.Node + " was down"
		}
	}
	return ""
}

// renewalRefused reports whether a renewal of the section's hold reported
// failure before lossPos: the holder was told, so its promise is not
// judged.
func renewalRefused(ix *history.Index, s *history.Section, lossPos int) bool {
	for _, p := range markedBetween(ix, s.Acq, lossPos) {
		e := ix.H[p]
		if e.Kind == history.KindRenew && e.Actor == s.Client && e.Value == s.Value && !history.Renew(e).Extended() {
			return true
		}
	}
	return false
}

// prematureViolation explains the loss at lossPos of the section's lease,
// naming the promise that drifted: the last successful renewal before the
// loss (or the acquisition when there was none), the validity it
// promised, and how much earlier the key went.
func prematureViolation(ix *history.Index, s *history.Section, grants []history.Grant, lossPos, quorum int) Violation {
	x := &explanation{ix: ix}
	loss := ix.H[lossPos]
	// The promise in force at the loss: the last belief event (the
	// acquisition or a renewal that reported success) before it.
	promise := s.Acq
	for _, p := range markedBetween(ix, s.Acq, lossPos) {
		e := ix.H[p]
		if e.Kind == history.KindRenew && e.Actor == s.Client && e.Value == s.Value && history.Renew(e).Extended() && history.Renew(e).LeaseLeft() > 0 {
			promise = p
		}
	}
	pe := ix.H[promise]
	until := promisedUntil(ix, s, promise)
	what := s.Client + " acquired at " + sim.FormatTime(pe.At)
	if promise != s.Acq {
		what = s.Client + "'s renewal that came back at " + sim.FormatTime(pe.At) + " reported success"
		if ex := execBefore(ix, s.Client, loss.Actor, promise); ex >= 0 {
			what += " (its " + execName(ix.H[ex]) + " ran on " + loss.Actor + " at " + sim.FormatTime(ix.H[ex].At) + ")"
			x.cite(ex)
		}
	}
	x.add(promise, what+" and promised the lease until "+sim.FormatTime(until), promise, s.Acq)
	for _, g := range grants {
		x.addLoss(g.Node, g.Key, s.Value, s.Acq, lossPos+1, true)
	}
	lease := s.Client + "'s lease was lost at " + sim.FormatTime(loss.At) + ", " + sim.FormatTime(until-loss.At) + " before the validity promised to it ran out"
	if len(grants) > 1 || quorum > 1 {
		lease += " (alive on fewer than " + strconv.Itoa(quorum) + " of its " + strconv.Itoa(len(grants)) + " grants)"
	}
	return Violation{
		Invariant:   PrematureLoss,
		Clients:     []string{s.Client},
		From:        loss.At,
		To:          s.To,
		Tokens:      nonzero(s.Token),
		Events:      x.seqs(),
		Explanation: lease + ", though every renewal reported success and it had not released: " + x.text(),
	}
}

// promisedUntil is the true instant the belief event at pos promised the
// lease until (as history.Index.settle reads it).
func promisedUntil(ix *history.Index, s *history.Section, pos int) time.Duration {
	e := ix.H[pos]
	if s.Wall {
		return ix.TrueAtWall(s.Client, pos, history.LeaseLeft(e))
	}
	return ix.TrueAt(s.Client, e.Local+history.LeaseLeft(e))
}

// execBefore returns the last command of client that node executed
// before pos, or -1.
func execBefore(ix *history.Index, client, node string, pos int) int {
	for p := pos - 1; p >= 0; p-- {
		if e := ix.H[p]; e.Kind == sim.KindExec && e.Actor == node && e.Peer == client {
			return p
		}
	}
	return -1
}

// execName names an exec event's command ("EVAL", "PEXPIRE").
func execName(e sim.Event) string {
	if len(e.Args) == 0 {
		return "command"
	}
	return e.Args[0]
}

// markedBetween returns the marked positions (history.Index.Marked)
// strictly between from and to.
func markedBetween(ix *history.Index, from, to int) []int {
	i := sort.SearchInts(ix.Marked, from+1)
	j := sort.SearchInts(ix.Marked, to)
	if j < i {
		return nil
	}
	return ix.Marked[i:j]
}

// steadyClock reports whether actor's clock kept true time's rate from
// its first event at or after from to its last at or before to: the
// offset of its reading (Local) from true time (At) is the same at both.
// An actor with fewer than two such events is steady.
func steadyClock(ix *history.Index, actor string, from, to int) bool {
	first, last := -1, -1
	for p := from; p <= to && p < len(ix.H); p++ {
		if ix.H[p].Actor == actor {
			first = p
			break
		}
	}
	for p := to; p >= from && p >= 0; p-- {
		if ix.H[p].Actor == actor {
			last = p
			break
		}
	}
	if first < 0 || last <= first {
		return true
	}
	a, b := ix.H[first], ix.H[last]
	return a.Local-a.At == b.Local-b.At
}
