package report

import (
	"strconv"
	"strings"
	"time"

	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// commandName renders a command for people: its name and key, with a Lua
// script shown by what it is rather than its source.
func commandName(args []string) string {
	if len(args) == 0 {
		return "a command"
	}
	name := strings.ToUpper(args[0])
	if (name == "EVAL" || name == "EVALSHA") && len(args) > 3 {
		return name + " on " + args[3]
	}
	if name == "WRITE" && len(args) > 3 { // the resource: WRITE token value newvalue
		if args[1] == "0" {
			return "its write of " + args[3]
		}
		return "its write of " + args[3] + " (token " + args[1] + ")"
	}
	if len(args) > 1 {
		return name + " " + args[1]
	}
	return name
}

// grantsText renders an acquired event's grants: " on r1,r2", or for keys
// other than the lock's own " on r1 (lock1, lock2, lock3)".
func grantsText(e sim.Event) string {
	if e.Peer == "" {
		return ""
	}
	var nodes []string
	keys := map[string][]string{}
	for _, g := range history.Grants(e.Peer, e.Key) {
		if _, ok := keys[g.Node]; !ok {
			nodes = append(nodes, g.Node)
		}
		if g.Key != e.Key {
			keys[g.Node] = append(keys[g.Node], g.Key)
		} else if keys[g.Node] == nil {
			keys[g.Node] = []string{}
		}
	}
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = n
		if ks := keys[n]; len(ks) > 0 {
			parts[i] += " (" + strings.Join(ks, ", ") + ")"
		}
	}
	return " on " + strings.Join(parts, ",")
}

// describe says in words what one event means. The text names the actor
// and never the time, so callers can prefix either.
func describe(t *timeline, e sim.Event) string {
	if v, ok := faultViews[e.Kind]; ok {
		return v.describe(t, e)
	}
	a := e.Actor
	switch e.Kind {
	case history.KindAcquireStart:
		return a + " starts acquiring " + e.Key + " (value " + e.Value + ", waits at most " + short(history.AcquireStart(e).MaxWait()) + ")"
	case history.KindAcquired:
		acq := history.Acquired(e)
		left := acq.LeaseLeft()
		s := a + " acquired " + e.Key + grantsText(e)
		if acq.Shared() {
			s += " to read (a shared hold)"
		}
		if acq.HoldCount() > 1 {
			s += " again (hold count " + itoa(acq.HoldCount()) + ")"
		}
		s += tokenNote(e.Token)
		if left > 0 && acq.Wall() {
			s += "; believes the lease lasts " + short(left) + " on its wall clock, until "
			plain, wall := t.ix.TrueAt(a, e.Local+left), t.ix.TrueAtWall(a, e.Seq, left)
			if wall != plain {
				// A later step of the client's wall clock moves the moment.
				s += fmtT(plain) + ", but a later step of that clock makes it " + fmtT(wall)
			} else {
				s += fmtT(wall)
			}
		} else if left > 0 {
			s += "; believes the lease lasts " + short(left) + ", until " + fmtT(t.ix.TrueAt(a, e.Local+left))
		} else if left < 0 {
			s += "; the validity its lock reported was already spent (by " + short(-left) + ")"
		} else if acq.HoldCount() <= 1 {
			s += "; trusts the lease until it releases"
		}
		return s
	case history.KindAcquireFailed:
		return a + " gave up acquiring " + e.Key + noteSuffix(e.Note)
	case history.KindLeaseLost:
		return a + " found its lease gone" + noteSuffix(e.Note)
	case history.KindRead:
		return a + " read the resource: value " + itoa(history.ValueOf(e))
	case history.KindWrite:
		s := a + " writes value " + itoa(history.ValueOf(e))
		if e.Token != 0 {
			s += " with token " + itoa(e.Token)
		}
		return s
	case history.KindRelease:
		if left := history.Release(e).HoldsLeft(); left > 0 {
			return a + " releases one hold of " + e.Key + " (" + itoa(left) + " left)"
		}
		return a + " releases " + e.Key + ": its critical section ends"
	case history.KindReleased:
		s := a + " finished releasing " + e.Key
		if e.Note != "" {
			s += ": " + e.Note
		}
		return s
	case history.KindRenew:
		if !history.Renew(e).Extended() {
			if why, ok := t.failedRenewText(e.Seq); ok && (strings.HasPrefix(e.Note, "returned 0") || strings.Contains(e.Note, "but WAIT")) {
				return a + "'s watchdog did not renew " + e.Key + ": " + why
			}
			return a + "'s watchdog did not renew " + e.Key + noteSuffix(renewNote(e.Note, a))
		}
		if e.Note != "" && e.Note != "extended" {
			return a + "'s watchdog renewed " + e.Key + noteSuffix(e.Note)
		}
		if history.Renew(e).LeaseLeft() < 0 {
			return a + "'s watchdog renewed " + e.Key + ", but the validity its lock reported was already spent"
		}
		return a + "'s watchdog renewed " + e.Key
	case history.KindWatchdogStop:
		if strings.HasPrefix(e.Note, "renewal returned 0") || strings.Contains(e.Note, "but WAIT") {
			// The renew event just before says which reply failed it.
			return a + "'s watchdog stopped after that failed renewal"
		}
		return a + "'s watchdog stopped" + noteSuffix(e.Note)
	case history.KindResWrite:
		who := e.Peer + "'s write of " + itoa(history.ValueOf(e))
		if e.Token != 0 {
			who += " (token " + itoa(e.Token) + ")"
		}
		if e.Reply != resp.IntReply(1).String() {
			return "the resource rejected " + who + noteSuffix(e.Note)
		}
		return "the resource accepted " + who + noteSuffix(e.Note)
	case history.KindResRead:
		if strings.HasPrefix(e.Reply, "(error)") {
			return "the resource refused " + e.Peer + " a read" + noteSuffix(e.Note)
		}
		// A version resource answers [value, version].
		if _, v, ok := strings.Cut(strings.TrimSuffix(e.Reply, "]"), ", (integer) "); ok && strings.HasPrefix(e.Reply, "[") {
			return "the resource served " + e.Peer + " a read (value " + itoa(history.ValueOf(e)) + ", version " + v + ")"
		}
		return "the resource served " + e.Peer + " a read (value " + itoa(history.ValueOf(e)) + ")" + noteSuffix(e.Note)
	case sim.KindKey:
		c, _ := t.change(e.Seq)
		if e.Value == "" {
			s := e.Key + " on " + a
			if o := t.owner(c.Was); o != "" {
				s += " (" + o + "'s)"
			}
			if c.By != "" {
				return s + " deleted by " + c.By + "'s " + noteOr(e.Note, "command")
			}
			return s + " is gone (" + noteOr(e.Note, "deleted") + ")"
		}
		s := e.Key + " on " + a + " = " + e.Value
		if o := t.owner(e.Value); o != "" {
			s += " (" + o + "'s)"
		}
		if e.Dur > 0 {
			s += ", ttl " + short(e.Dur)
		}
		if c.By != "" {
			s += ", set by " + c.By + "'s " + noteOr(e.Note, "command")
		} else if e.Note != "" {
			s += " (" + e.Note + ")"
		}
		return s
	case sim.KindExpire:
		s := e.Key + " expired on " + a
		if o := t.owner(e.Value); o != "" {
			s += " (it was " + o + "'s)"
			if p, ok := t.pausedAt(o, e.At); ok {
				s += " while " + o + " was " + pausedWord(p) + " since " + fmtT(p.From)
			}
		}
		return s
	case sim.KindPromote:
		return a + " was promoted to primary"
	case sim.KindDemote:
		return a + " rejoined as a replica of " + e.Peer + ", losing its own writes"
	case sim.KindTaskEnd:
		return a + "/" + taskName(e) + " ended" + noteSuffix(e.Note)
	case sim.KindExec:
		return a + " ran " + commandName(e.Args) + " for " + e.Peer + ": " + e.Reply
	case sim.KindCall:
		return a + " sent " + commandName(e.Args) + " to " + e.Peer
	case sim.KindReply:
		return a + " got " + e.Reply + " from " + e.Peer
	case sim.KindTimeout:
		return a + " timed out waiting for " + e.Peer + " (" + commandName(e.Args) + "): the outcome is unknown"
	case sim.KindLateReply:
		return a + " got " + e.Reply + " from " + e.Peer + " after giving up on it"
	case sim.KindLost:
		return "the network lost a message from " + a + " to " + e.Peer + noteSuffix(e.Note)
	}
	return strings.TrimSpace(e.Line()[len(fmtT(e.At)):])
}

func taskName(e sim.Event) string {
	if e.Task == "" {
		return "main"
	}
	return e.Task
}

func noteOr(n, def string) string {
	if n == "" {
		return def
	}
	return n
}

func noteSuffix(n string) string {
	if n == "" {
		return ""
	}
	return ": " + n
}

func pausedWord(s span) string {
	if s.Kind == spanCrashed {
		return "crashed"
	}
	return "paused"
}

// renewNote words a failed renewal's note for its client: "returned 0:
// the key is no longer A's".
func renewNote(note, client string) string {
	return strings.Replace(note, "this client's", client+"'s", 1)
}

// windowText says how long a network fault's window lasts.
func windowText(d time.Duration) string {
	if d == 0 {
		return ", for good"
	}
	return " for " + short(d)
}
