package logcheck

import (
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/model/invariant"
	vd "locksim/verdict"
)

// Judged lists the invariants a log can judge, in report order.
var Judged = []invariant.ID{invariant.MutualExclusion, invariant.TokenUnique, invariant.Fencing, invariant.Liveness,
	invariant.PrematureLoss, invariant.AcquireDeadline, invariant.Available}

// NotJudged says, per invariant a log cannot judge, why.
var NotJudged = []struct {
	ID  invariant.ID
	Why string
}{
	{invariant.StaleWrite, "needs the store's truth (whether the granting nodes still held the lease when the write landed); a log has only the clients' view"},
	{invariant.LostUpdate, "needs the resource's values read and written, which the format does not carry"},
	{invariant.Reentrancy, "the format has no hold counts"},
	{invariant.FIFO, "needs when each request reached Redis (the queue's order), which only the store sees"},
	{invariant.RWExclusion, "the format has no shared (read) holds"},
}

// Verdict is one invariant's verdict on a log.
type Verdict struct {
	Invariant invariant.ID `json:"invariant"`
	// Verdict is "broken" (a certain violation), "possibly broken" (only
	// some offsets allow one), "held", "not judged" (this log cannot: Why)
	// or "not judged from logs" (no log can: Why).
	Verdict  string `json:"verdict"`
	Certain  int    `json:"certain"`
	Possible int    `json:"possible"`
	Why      string `json:"why,omitempty"`
}

// Schema names the JSON report's format.
const Schema = "locksim.check-log/v1"

// FormatVersion is the version of the lock-log format the reader takes
// (docs/check-log.md).
const FormatVersion = 1

// Result is a log's judgement.
type Result struct {
	Schema     string                   `json:"schema"`
	Files      []string                 `json:"files"`
	Skew       time.Duration            `json:"skew_ns"`
	HostSkew   map[string]time.Duration `json:"host_skew_ns,omitempty"`
	Reorder    time.Duration            `json:"reorder_ns"`
	Verdicts   []Verdict                `json:"verdicts"`
	Violations []Violation              `json:"violations"`
	Stats      Stats                    `json:"stats"`
	// NothingJudged says why the log judges nothing (no grants), "" when it
	// judges something.
	NothingJudged string `json:"nothing_judged,omitempty"`
	// Beliefs are the first MaxDrawn beliefs, for the HTML timeline.
	Beliefs []Drawn `json:"-"`
}

// Broken reports whether a certain violation was found.
func (r *Result) Broken() bool {
	for _, v := range r.Verdicts {
		if v.Certain > 0 {
			return true
		}
	}
	return false
}

// PossiblyBroken reports whether only possible violations were found.
func (r *Result) PossiblyBroken() bool {
	for _, v := range r.Verdicts {
		if v.Possible > 0 {
			return !r.Broken()
		}
	}
	return false
}

// Verdict is what the log decided (vd.Decide): no verdict when it
// judges nothing, broken for a certain violation, possibly broken
// (Certainty Possible) when only possible ones were found, else held.
func (r *Result) Verdict() vd.Verdict {
	return vd.Decide(vd.Facts{Nothing: r.NothingJudged, Broken: r.Broken(), PossiblyBroken: r.PossiblyBroken()})
}

// ErrInput wraps every error about the input (bad lines, order, files).
var ErrInput = errors.New("bad input")

// Check reads the inputs (each one host's file, or any mix: events are
// merged by time) and judges them.
func Check(ins []Input, opt Options) (*Result, error) { return checkWith(ins, opt, nil) }

// checkWith is Check, showing each event, in merged order, to each.
func checkWith(ins []Input, opt Options, each func(Event)) (*Result, error) {
	if opt.Skew < 0 || opt.Reorder < 0 {
		return nil, errors.New("--skew and --reorder must not be negative")
	}
	m, err := newMerger(ins, opt.Reorder)
	if err != nil {
		return nil, err
	}
	c := newChecker(opt)
	for {
		e, ok, err := m.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if err := c.Feed(e); err != nil {
			return nil, err
		}
		if each != nil {
			each(e)
		}
	}
	// A bound for a host the log never names is refused when it looks like
	// a typo of a logged host (the same letters and digits: that host's
	// events would be judged at --skew, not at the bound meant), or when
	// no host it names logs at all (the wrong log). A fleet-wide list
	// naming a host that logged nothing this time is harmless.
	anyLogged := false
	for h := range opt.HostSkew {
		anyLogged = anyLogged || c.Stats.hosts[h]
	}
	for _, h := range slices.Sorted(maps.Keys(opt.HostSkew)) {
		if !c.Stats.hosts[h] && (!anyLogged || nearLogged(h, c.Stats.hosts)) {
			var logged []string
			for _, l := range slices.Sorted(maps.Keys(c.Stats.hosts)) {
				if len(logged) == 10 {
					logged = append(logged, "...")
					break
				}
				logged = append(logged, bounded.Clip(l))
			}
			return nil, errors.Errorf("--host-skew names host %q, which logs no event (the log's hosts: %s)", bounded.Clip(h), strings.Join(logged, ", "))
		}
	}
	r := c.finish()
	for _, in := range ins {
		r.Files = append(r.Files, in.Name)
	}
	return r, nil
}

// nearLogged reports whether host h differs from a logged host only in
// case and punctuation ("web1" for "web-1").
func nearLogged(h string, hosts map[string]bool) bool {
	letters := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, s)
	}
	want := letters(h)
	for l := range hosts {
		if letters(l) == want {
			return true
		}
	}
	return false
}

// finish ends every belief still open (at its deadline or its host's last
// event: a log that stops says nothing after it) and gathers the result.
func (c *Checker) finish() *Result {
	names := make([]string, 0, len(c.keys))
	for k := range c.keys {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		ks := c.keys[k]
		cs := make([]string, 0, len(ks.clients))
		for n := range ks.clients {
			cs = append(cs, n)
		}
		slices.Sort(cs)
		for _, n := range cs {
			ck := ks.clients[n]
			if ck.open != nil {
				// Never ended: until its validity runs out, but not past
				// the log's end; without a validity, until its host's log
				// ends (a log that stops says nothing after it).
				to, how := c.hostEnd[ck.host], "still held when its host's log ends"
				if ck.open.deadline != noDeadline {
					to, how = min(ck.open.deadline, c.now), "its validity ran out"
					if ck.open.deadline > c.now {
						how = "still held when the log ends"
					}
				}
				c.end(ks, ck, to, "", how)
			}
			if a := ck.attempt; a != nil {
				c.Stats.Waiting++
				c.checkLiveness(ks, ck, a, c.hostEnd[ck.host], "")
				c.checkDeadline(ks, ck, a, c.hostEnd[ck.host], "", "")
			}
		}
		if ks.fenced || c.opt.Fenced {
			c.fenceJudged = true
			for _, v := range ks.fencing {
				c.add(v)
			}
			// the ones beyond the cap still count
			c.bump(invariant.Fencing, ks.fenceN[0]-min(ks.fenceN[0], MaxPerInvariant), ks.fenceN[1]-min(ks.fenceN[1], MaxPerInvariant))
		}
	}
	c.Stats.finish(len(c.keys))
	r := &Result{Schema: Schema, Skew: c.opt.Skew, HostSkew: c.opt.HostSkew, Reorder: c.opt.Reorder, Stats: c.Stats, Beliefs: c.drawn}
	tokens := c.Stats.tokens
	attempts := c.Stats.Kinds[AcquireAttempt] > 0
	for _, id := range Judged {
		n := c.counts[id]
		if n == nil {
			n = &[2]int{}
		}
		v := Verdict{Invariant: id, Certain: n[0], Possible: n[1]}
		switch {
		case id == invariant.TokenUnique && tokens == 0:
			v.Verdict, v.Why = "not judged", "no granted event carries a token"
		case id == invariant.TokenUnique && tokens == 1:
			v.Verdict, v.Why = "not judged", "only one granted event carries a token: nothing to compare it with"
		case id == invariant.MutualExclusion && !c.contended:
			v.Verdict, v.Why = "not judged", "no two clients tried for one key (acquire-attempt or granted): nobody to exclude; give every host's log of the key in one check-log"
		case id == invariant.Liveness && c.opt.Liveness <= 0:
			v.Verdict, v.Why = "not judged", "give --liveness D: an acquisition that waited longer than D while no other client believed it held the key (the simulation's liveness counts from when faults healed, which a log does not know)"
		case id == invariant.Available && c.opt.Available <= 0:
			v.Verdict, v.Why = "not judged", "give --available D for a log whose faults were all ones the design tolerates: an acquisition that waited longer than D while no other client believed it held the key (a log does not show which faults were active)"
		case (id == invariant.Liveness || id == invariant.Available) && !attempts:
			v.Verdict, v.Why = "not judged", "no acquire-attempt event: a wait is measured from one"
		case id == invariant.PrematureLoss && c.promises == 0:
			v.Verdict, v.Why = "not judged", "no granted event carries a validity: a lock trusted until release promises no deadline to keep"
		case id == invariant.AcquireDeadline && c.deadlines == 0:
			v.Verdict, v.Why = "not judged", "no acquire-attempt carries a deadline"
		case id == invariant.Fencing && !c.fenceJudged:
			v.Verdict, v.Why = "not judged", "no key's log shows a rejected write (write-rejected), so nothing says its resource fences; --fenced judges it anyway"
		case n[0] > 0:
			v.Verdict = "broken"
		case n[1] > 0:
			v.Verdict = "possibly broken"
		default:
			v.Verdict = "held"
		}
		r.Verdicts = append(r.Verdicts, v)
	}
	for _, nj := range NotJudged {
		r.Verdicts = append(r.Verdicts, Verdict{Invariant: nj.ID, Verdict: "not judged from logs", Why: nj.Why})
	}
	slices.SortStableFunc(c.found, func(a, b Violation) int {
		if a.From != b.From {
			if a.From < b.From {
				return -1
			}
			return 1
		}
		return strings.Compare(string(a.Invariant), string(b.Invariant))
	})
	r.Violations = c.found
	if c.Stats.Kinds[Granted] == 0 {
		r.NothingJudged = "the log has no granted event: no belief to judge"
	} else if !slices.ContainsFunc(r.Verdicts, func(v Verdict) bool { return v.Verdict != "not judged" && v.Verdict != "not judged from logs" }) {
		r.NothingJudged = "no invariant could be judged: each verdict below says why"
	}
	return r
}

func (c *Checker) bump(id invariant.ID, certain, possible int) {
	n := c.counts[id]
	if n == nil {
		n = &[2]int{}
		c.counts[id] = n
	}
	n[0] += certain
	n[1] += possible
}
