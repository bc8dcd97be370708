package invariant

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"locksim/model/history"
	"locksim/sim"
)

// checkStale reports every write the resource accepted from a client
// whose lease was no longer alive at that instant: alive (history.Index
// .Alive) on fewer than the quorum of the nodes that granted the writer's
// acquisition with the write's lock value (a grant whose reply the writer
// never saw counts: it keeps the lock from the others all the same). A lease is lost when the key
// expired, was deleted or replaced, was evicted, when the node restarted
// without it, or when a failover promoted a node without it; a node that is
// down and will come back with the key still holds it, since nobody can
// take the lock there meanwhile. A rejected write is fencing doing its job.
// The quorum is capped at the number of granting nodes, so a single-node
// design run on a multi-master layout is judged on its one node.
func checkStale(ix *history.Index, cfg Config) []Violation {
	var vs []Violation
	byAcq := slices.IsSortedFunc(ix.Sections, func(a, b history.Section) int { return cmp.Compare(a.Acq, b.Acq) })
	hint := 0 // sectionOf's answer for the write before: writes are mostly applied in order
	var holders []history.Grant
	for i := range ix.Writes {
		w := &ix.Writes[i]
		if !w.Accepted {
			continue
		}
		s := sectionOf(ix, w.Client, w.Value, w.Applied, byAcq, &hint)
		if s == nil {
			e := ix.H[w.Applied]
			vs = append(vs, Violation{
				Invariant: StaleWrite, Clients: []string{w.Client}, From: e.At, To: e.At,
				Tokens: nonzero(w.Token), Events: ix.Seqs(w.Applied),
				Explanation: writeText(ix, w) + " and the resource accepted it, but " + w.Client +
					" never acquired the lock with value " + strconv.Quote(w.Value),
			})
			continue
		}
		grants := grantors(ix, s)
		quorum := max(min(cfg.Quorum, len(grants)), 1)
		// Each group counts once, by the node that answers for it now: an
		// unseen grant on a deposed primary and its promoted replica are
		// one holder.
		if unseen := unseenGrants(ix, s, grants); len(unseen) > 0 {
			grants = slices.Concat(grants, unseen)
		}
		holders = countedOnce(ix, grants, w.Applied, holders[:0])
		grants = holders
		alive := 0
		for _, g := range grants {
			if ix.Alive(g.Node, g.Key, s.Value, w.Applied) {
				alive++
			}
		}
		if alive >= quorum {
			continue
		}
		vs = append(vs, staleViolation(ix, w, s, slices.Clone(grants), alive, quorum))
	}
	return vs
}

// countedOnce appends to out the grants that count once each, by the
// node that answers for the grant's group at pos (an unseen grant on a
// deposed primary and its promoted replica are one holder), and returns
// it. Grants are few: a slice is searched instead of a map built per
// write.
func countedOnce(ix *history.Index, grants []history.Grant, pos int, out []history.Grant) []history.Grant {
	var seen [8]history.Grant
	auth := seen[:0]
	for _, g := range grants {
		a := history.Grant{Node: ix.Authority(g.Node, pos), Key: g.Key}
		if !slices.Contains(auth, a) {
			auth = append(auth, a)
			out = append(out, g)
		}
	}
	return out
}

// sectionOf returns the last critical section of client with lock value v
// that started before pos, or nil. When the sections are in the order of
// their Acq (an index built from a history in order has them so), it
// starts the scan at the last section that started before pos: a
// backward scan from the end per write was quadratic. *hint is where the
// last call's scan started (0 at first), which it updates: a write
// applied after the last one finds its start a few sections on.
func sectionOf(ix *history.Index, client, v string, pos int, byAcq bool, hint *int) *history.Section {
	last := len(ix.Sections)
	if byAcq {
		last = sectionsBefore(ix.Sections, pos, *hint)
		*hint = last
	}
	for i := last - 1; i >= 0; i-- {
		s := &ix.Sections[i]
		if s.Acq < pos && s.Client == client && s.Value == v {
			return s
		}
	}
	return nil
}

// sectionsBefore returns how many of ss, ordered by Acq, have Acq < pos:
// walking on from hint (an earlier answer) when pos is at most a few
// sections past it, else by a binary search over ss (each probe a
// section of its own, a cache miss; the search was a third of this
// check).
func sectionsBefore(ss []history.Section, pos, hint int) int {
	const steps = 8
	if hint >= 0 && hint <= len(ss) && (hint == 0 || ss[hint-1].Acq < pos) {
		end := min(len(ss), hint+steps)
		for i := hint; i < end; i++ {
			if ss[i].Acq >= pos {
				return i
			}
		}
		if end == len(ss) {
			return end
		}
	}
	n, _ := slices.BinarySearchFunc(ss, pos, func(s history.Section, pos int) int { return cmp.Compare(s.Acq, pos) })
	return n
}

// grantors returns the grants of a section: its acquired event's Peer
// list, or, when the design recorded none, the nodes whose key held its
// value at that moment.
func grantors(ix *history.Index, s *history.Section) []history.Grant {
	if len(s.Grants) > 0 {
		return s.Grants
	}
	var out []history.Grant
	for k := range ix.Keys {
		if k.Key == s.Key && history.HoldsLease(ix.ValueAt(k.Node, k.Key, s.Acq), s.Value) {
			out = append(out, history.Grant{Node: k.Node, Key: k.Key})
		}
	}
	slices.SortFunc(out, func(a, b history.Grant) int { return strings.Compare(a.Node, b.Node) })
	return out
}

// unseenGrants returns the grants of s its client never learnt of: nodes
// whose key (one of the grants' keys) holds the client's lock value as it
// acquires (Index.Holds), set there by the client's own command (a reply
// lost or too late), not among grants. They hold the lock against everyone
// else as the others do, so they count toward the lease. A command that
// lands only after the acquire is no grant of it: it could revive a lease
// another client took meanwhile. Nor is one whose value was gone by the
// acquire (the client's own cleanup of a failed try deleted it, or it
// expired): it held the lock against nobody then, and a late command that
// sets the value again later revives nothing.
func unseenGrants(ix *history.Index, s *history.Section, grants []history.Grant) []history.Grant {
	pos := s.Acq
	keys := []string{s.Key}
	for _, g := range grants {
		if !slices.Contains(keys, g.Key) {
			keys = append(keys, g.Key)
		}
	}
	var out []history.Grant
	for k, ch := range ix.Keys {
		g := history.Grant{Node: k.Node, Key: k.Key}
		if !slices.Contains(keys, k.Key) || slices.Contains(grants, g) || !ix.Holds(k.Node, k.Key, s.Value, pos) {
			continue
		}
		for _, c := range ch {
			if c.Pos >= pos {
				break
			}
			if c.By == s.Client && c.ExecPos >= 0 && c.Cause != "replication" && history.HoldsLease(c.Value, s.Value) {
				out = append(out, g)
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b history.Grant) int {
		return strings.Compare(a.Node+"/"+a.Key, b.Node+"/"+b.Key)
	})
	return out
}

// staleViolation explains the accepted write w by the holder of s, whose
// lease was alive on only `alive` of its granting nodes.
func staleViolation(ix *history.Index, w *history.Write, s *history.Section, grants []history.Grant, alive, quorum int) Violation {
	keys := map[string]bool{}
	for _, g := range grants {
		keys[g.Key] = true
	}
	x := &explanation{ix: ix, keyNames: len(keys) > 1}
	// The request that carried the write (a pause can hold it back after
	// it was prepared); the prepared write when no request was recorded.
	sent := w.Sent
	if sent < 0 {
		sent = w.Prepared
	}
	x.cite(w.Applied, s.Acq, sent)
	firstLoss := -1
	for _, g := range grants {
		if l, ok := x.addLoss(g.Node, g.Key, s.Value, s.Acq, w.Applied, true); ok && l.Pos >= 0 && (firstLoss < 0 || l.Pos < firstLoss) {
			firstLoss = l.Pos
		}
	}
	// A write sent while the lease was alive and delivered after it was
	// lost (delayed-write).
	if sent >= 0 && firstLoss >= 0 && sent < firstLoss {
		x.add(sent, w.Client+" sent the write at "+sim.FormatTime(ix.H[sent].At)+", before its lease was lost", sent)
	}
	applied := ix.H[w.Applied]
	for _, p := range ix.Pauses[w.Client] {
		if p.To <= s.From || p.From >= applied.At || citedAlready(x, p.FromPos) {
			continue
		}
		x.addPause(w.Client, p)
	}
	x.addStarves(ix, w.Client, s.From, applied.At)
	clients := []string{w.Client}
	tokens := nonzero(w.Token)
	// The next holder: the first other client to acquire after the lease
	// was lost (or after the writer acquired, if no loss was recorded).
	after := max(firstLoss, s.Acq)
	for _, a := range ix.Acquisitions {
		if a.Pos <= after || a.Pos >= w.Applied || a.Client == w.Client {
			continue
		}
		e := ix.H[a.Pos]
		x.add(a.Pos, a.Client+" acquired at "+sim.FormatTime(e.At)+granted(ix, a.Pos, strings.Split(e.Peer, ",")), a.Pos)
		clients = append(clients, a.Client)
		tokens = append(tokens, nonzero(e.Token)...)
		break
	}
	if len(x.facts) == 0 {
		x.add(s.Acq, "no node is known to have granted it")
	}
	lease := w.Client + "'s lease was gone"
	if len(grants) > 1 || quorum > 1 {
		what := " granting nodes"
		if len(keys) > 1 {
			what = " granted keys"
		}
		// quorum is what keeps every other client from gathering the
		// grants it needs (Config.Quorum).
		lease += " (alive on " + strconv.Itoa(alive) + " of " + strconv.Itoa(len(grants)) + what + ", " + strconv.Itoa(quorum) + " needed)"
	}
	return Violation{
		Invariant:   StaleWrite,
		Clients:     clients,
		From:        applied.At,
		To:          applied.At,
		Tokens:      tokens,
		Events:      x.seqs(),
		Explanation: writeText(ix, w) + " and the resource accepted it, but " + lease + ": " + x.text(),
	}
}

// writeText renders "A wrote 2 with token 41 at 1.700000s".
func writeText(ix *history.Index, w *history.Write) string {
	s := w.Client + " wrote " + strconv.FormatInt(w.N, 10)
	if w.Token != 0 {
		s += " with token " + strconv.FormatInt(w.Token, 10)
	}
	return s + " at " + sim.FormatTime(ix.H[w.Applied].At)
}
