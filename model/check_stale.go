package model

import (
	"slices"
	"strconv"
	"strings"

	"locksim/sim"
)

// checkStale reports every write the resource accepted (res-write with
// N == 1) from a client whose lease was no longer alive at that instant
// (InvStaleWrite): on fewer than cfg.Quorum of the nodes that granted the
// writer's acquisition with the write's lock value, the key's last
// recorded value before the write still held that value. A rejected write
// (N == 0) is fencing doing its job and is not reported.
//
// Two refinements keep the check honest across topologies:
//   - the quorum is at most the number of granting nodes, so a
//     single-node design run on a multi-master layout is judged on its
//     one node;
//   - a granting node that lost the value is replaced by a node promoted
//     to primary (KindPromote) before the write that still holds it: the
//     lease survived failover (wait-replica's point), since clients now
//     acquire on that node.
func checkStale(ix *historyIndex, cfg CheckConfig) []Violation {
	var vs []Violation
	for _, pos := range ix.marked {
		w := ix.h[pos]
		if w.Kind != KindResWrite || w.N != 1 {
			continue
		}
		client, v := w.Peer, w.Value
		acq := ix.acquisitionOf(client, v, pos)
		if acq < 0 {
			vs = append(vs, Violation{
				Invariant: InvStaleWrite,
				Clients:   []string{client},
				From:      w.At,
				To:        w.At,
				Tokens:    nonzeroTokens(w.Token),
				Events:    ix.seqs(pos),
				Explanation: writeText(client, w) + " and the resource accepted it, but " + client +
					" never acquired the lock with value " + strconv.Quote(v),
			})
			continue
		}
		a := ix.h[acq]
		nodes := ix.grantors(acq)
		quorum := max(min(cfg.Quorum, len(nodes)), 1)
		var dead []string
		var used map[string]bool // promoted nodes already standing in for one
		for _, n := range nodes {
			if holdsLease(ix.valueAt(n, a.Key, pos), v) {
				continue
			}
			if m := ix.successor(nodes, used, a.Key, v, pos); m != "" {
				if used == nil {
					used = map[string]bool{}
				}
				used[m] = true
				continue
			}
			dead = append(dead, n)
		}
		if len(nodes)-len(dead) >= quorum {
			continue
		}
		vs = append(vs, ix.staleViolation(pos, acq, nodes, dead, quorum))
	}
	return vs
}

// staleViolation explains the accepted write at pos by the holder of the
// acquisition at acq whose lease was gone on the dead nodes.
func (ix *historyIndex) staleViolation(pos, acq int, nodes, dead []string, quorum int) Violation {
	w, a := ix.h[pos], ix.h[acq]
	client := w.Peer
	cited := []int{pos, acq}
	sent := ix.writeCall(client, ix.clientWrite(client, w, pos), pos)
	if sent >= 0 {
		cited = append(cited, sent)
	}
	var facts []explFact
	firstLoss := -1
	for _, n := range dead {
		i := ix.lastLoss(n, a.Key, a.Value, pos)
		if i < 0 {
			facts = append(facts, explFact{pos: acq, text: n + " did not hold " + client + "'s key"})
			continue
		}
		f, c := ix.lossFact(n, a.Key, a.Value, i)
		facts = append(facts, f)
		cited = append(cited, c...)
		if firstLoss < 0 || f.pos < firstLoss {
			firstLoss = f.pos
		}
	}
	// A write sent while the lease was alive and delivered after it was
	// lost (delayed-write).
	if sent >= 0 && firstLoss >= 0 && sent < firstLoss {
		facts = append(facts, explFact{pos: sent, text: client + " sent the write at " + sim.FormatTime(ix.h[sent].At) + ", before its lease was lost"})
	}
	// Pauses of the writer while it held the lease, unless a loss already
	// named them.
	for _, p := range ix.pauses[client] {
		if p.to <= a.At || p.from >= w.At || slices.Contains(cited, p.pos) {
			continue
		}
		facts = append(facts, ix.pauseFact(client, p))
		cited = append(cited, p.pos)
	}
	clients := []string{client}
	tokens := nonzeroTokens(w.Token)
	// The next holder: the first other client to acquire after the lease
	// was lost (or after the writer acquired, if no loss was recorded).
	after := firstLoss
	if after < 0 {
		after = acq
	}
	for _, o := range ix.acqs {
		if o.pos <= after || o.pos >= pos || o.client == client {
			continue
		}
		e := ix.h[o.pos]
		facts = append(facts, explFact{pos: o.pos, text: o.client + " acquired at " + sim.FormatTime(e.At) + grantedBy(ix, o.pos)})
		cited = append(cited, o.pos)
		clients = append(clients, o.client)
		tokens = append(tokens, nonzeroTokens(e.Token)...)
		break
	}
	if len(facts) == 0 {
		facts = append(facts, explFact{pos: acq, text: "no node is known to have granted it"})
	}
	lease := client + "'s lease was gone"
	if len(nodes) > 1 || quorum > 1 {
		lease += " (alive on " + strconv.Itoa(len(nodes)-len(dead)) + " of " + strconv.Itoa(len(nodes)) +
			" granting nodes, quorum " + strconv.Itoa(quorum) + ")"
	}
	return Violation{
		Invariant:   InvStaleWrite,
		Clients:     clients,
		From:        w.At,
		To:          w.At,
		Tokens:      tokens,
		Events:      ix.seqs(cited...),
		Explanation: writeText(client, w) + " and the resource accepted it, but " + lease + ": " + renderFacts(facts),
	}
}

// successor returns a node promoted to primary before pos, not one of
// nodes nor already used, that holds lock value v for key at pos; "" if
// none.
func (ix *historyIndex) successor(nodes []string, used map[string]bool, key, v string, pos int) string {
	for _, p := range ix.promotes {
		m := ix.h[p].Actor
		if p >= pos {
			break
		}
		if used[m] || slices.Contains(nodes, m) {
			continue
		}
		if holdsLease(ix.valueAt(m, key, pos), v) {
			return m
		}
	}
	return ""
}

// writeText renders "A wrote 2 with token 41 at 1.700000s" for a
// res-write event.
func writeText(client string, w sim.Event) string {
	s := client + " wrote"
	if n, ok := resWriteValue(w); ok {
		s += " " + strconv.FormatInt(n, 10)
	}
	if w.Token != 0 {
		s += " with token " + strconv.FormatInt(w.Token, 10)
	}
	return s + " at " + sim.FormatTime(w.At)
}

// resWriteValue parses the new resource value of an accepted res-write
// from its Note ("value=7").
func resWriteValue(w sim.Event) (int64, bool) {
	for _, f := range strings.Fields(w.Note) {
		if s, ok := strings.CutPrefix(f, "value="); ok {
			n, err := strconv.ParseInt(strings.TrimRight(s, ",;"), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// clientWrite returns the client's write event that the resource's
// res-write at pos answers (same lock value and token), or -1.
func (ix *historyIndex) clientWrite(client string, w sim.Event, pos int) int {
	for p := pos - 1; p >= 0; p-- {
		if x := ix.h[p]; x.Kind == KindWrite && x.Actor == client && x.Value == w.Value && x.Token == w.Token {
			return p
		}
	}
	return -1
}

// writeCall returns the position of the request that carried the write
// prepared at `prepared` (the client's WRITE call to the resource, which a
// pause can hold back), or prepared itself if no call is found before pos.
func (ix *historyIndex) writeCall(client string, prepared, pos int) int {
	if prepared < 0 {
		return prepared
	}
	for p := prepared + 1; p < pos; p++ {
		x := ix.h[p]
		if x.Actor == client && x.Kind == sim.KindCall && x.Peer == ResourceName && len(x.Args) > 0 && x.Args[0] == "WRITE" {
			return p
		}
	}
	return prepared
}

// nonzeroTokens returns the tokens that are set (non-zero).
func nonzeroTokens(ts ...int64) []int64 {
	var out []int64
	for _, t := range ts {
		if t != 0 {
			out = append(out, t)
		}
	}
	return out
}
