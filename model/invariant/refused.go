package invariant

import (
	"strings"

	"locksim/model/history"
	"locksim/sim"
)

// checkRefusedWhileFree judges each client's acquisitions after the
// faults healed (Config.PerClient): an attempt that gave up while the lock
// was free the whole time, no client in a critical section and no node
// holding the lock key or a companion of it, is a liveness violation
// ("refused while free"), whether the lock call failed at once or waited
// out its bound. The lock-wide gap check cannot see it when other clients
// keep acquiring: a library that keeps a process-local "held" flag after an
// Unlock found its key expired never locks again in that process, while
// the others are fine.
func checkRefusedWhileFree(ix *history.Index, cfg Config) []Violation {
	heal, healed := ix.Heal(cfg.ClientWall)
	if !healed {
		return nil
	}
	var vs []Violation
	for _, a := range ix.Attempts {
		if a.End != history.AttemptFailed || a.EndPos < 0 {
			continue
		}
		from, to := ix.H[a.Start].At, ix.H[a.EndPos].At
		if from < heal || !freeOver(ix, a, cfg.LockKeys) {
			continue
		}
		x := &explanation{ix: ix}
		why := strings.TrimPrefix(ix.H[a.EndPos].Note, "lock: ")
		text := a.Client + " started acquiring at " + sim.FormatTime(from) + " and gave up at " + sim.FormatTime(to)
		if why != "" {
			text += " (" + why + ")"
		}
		x.add(a.Start, text, a.Start, a.EndPos)
		x.add(a.EndPos, "nobody held the lock and no node held the key "+a.Key+" in between")
		vs = append(vs, Violation{
			Invariant:   Liveness,
			Clients:     []string{a.Client},
			From:        from,
			To:          to,
			Events:      x.seqs(),
			Explanation: a.Client + " was refused while the lock was free, after the faults were over at " + sim.FormatTime(heal) + ": " + x.text(),
		})
	}
	return vs
}

// freeOver reports whether the lock was free over attempt a: no critical
// section overlaps it and no node's lock key (or companion key) holds a
// value at any instant from its start to its end. lockKeys are more keys
// of the lock (Config.LockKeys).
func freeOver(ix *history.Index, a history.Attempt, lockKeys []string) bool {
	from, to := ix.H[a.Start].At, ix.H[a.EndPos].At
	for _, s := range ix.Sections {
		if s.From <= to && from < s.To {
			return false
		}
	}
	keys := map[string]bool{a.Key: true}
	for _, k := range lockKeys {
		keys[k] = true
	}
	for k, ch := range ix.Keys {
		if !keys[k.Key] && !companionKey(keys, k.Key) {
			continue
		}
		if ix.ValueAt(k.Node, k.Key, a.Start) != "" {
			return false
		}
		for _, c := range ch {
			if c.Pos > a.Start && c.Pos <= a.EndPos && c.Value != "" {
				return false
			}
		}
	}
	return true
}
