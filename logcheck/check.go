package logcheck

import (
	"math"
	"time"

	"github.com/pkg/errors"

	"locksim/model/invariant"
)

// Certainty says whether a violation holds for every clock offset within
// the bounds (Certain) or only for some (Possible).
type Certainty string

// The certainties.
const (
	Certain  Certainty = "certain"
	Possible Certainty = "possible"
)

// Options configure a check.
type Options struct {
	// Skew bounds every host's clock offset from true time (|offset| <=
	// Skew); HostSkew overrides it per host.
	Skew     time.Duration
	HostSkew map[string]time.Duration
	// Reorder is how far out of time order events of one file may come
	// (they are sorted within it); 0 demands order.
	Reorder time.Duration
	// Fenced judges fencing on every key with accepted writes, even one
	// whose log shows no rejected write.
	Fenced bool
	// Liveness, if set, judges liveness by timing: an acquisition that
	// waited while no other client believed it held the key, for longer
	// than this, at every clock offset within the bounds.
	Liveness time.Duration
	// Available, if set, judges available by timing, as Liveness does,
	// for a log whose every fault was one the design tolerates (the user
	// says so by giving it: a log does not show faults).
	Available time.Duration
	// AcquireTolerance is how late past its logged deadline a lock call
	// may return before acquire-deadline calls it late.
	AcquireTolerance time.Duration
}

// Violation is one broken invariant found in the log.
type Violation struct {
	Invariant invariant.ID `json:"invariant"`
	Certainty Certainty    `json:"certainty"`
	Key       string       `json:"key"`
	Clients   []string     `json:"clients"`
	Hosts     []string     `json:"hosts"`
	Tokens    []int64      `json:"tokens,omitempty"`
	// Where are the lines that show it (file:line).
	Where []string `json:"where"`
	// From and To bound it in the first host's logged time (Unix ns): an
	// overlap's window at zero offsets, a grant's or a write's instant.
	From int64 `json:"from_unix_ns"`
	To   int64 `json:"to_unix_ns"`
	// OffsetMin and OffsetMax bound the clock offsets that make it happen:
	// the first host's clock minus the second's (Hosts[0] - Hosts[1]), in
	// nanoseconds, open at both ends when the relation is strict; 0 and 0
	// for one host or a violation no offset affects.
	OffsetMin time.Duration `json:"offset_min_ns"`
	OffsetMax time.Duration `json:"offset_max_ns"`
	// Explanation says it in words.
	Explanation string `json:"explanation"`
}

// noDeadline marks a belief that lasts until release.
const noDeadline = math.MaxInt64

// belief is one client's belief that it holds a key, on its host's clock.
type belief struct {
	client, host, value string
	token               int64
	from, deadline, to  int64
	grantAt, endAt      string // file:line
	endHow              string
	revived             bool
	// promisedAt is the grant or renewal whose validity is in force, and
	// promisedFrom its time: what premature-loss cites.
	promisedAt   string
	promisedFrom int64
}

// pending is an acquisition under way.
type pending struct {
	start    int64
	at       string
	value    string
	deadline time.Duration
}

// clientKey is one client's state on one key.
type clientKey struct {
	client, host string
	attempt      *pending
	open         *belief
	grant        grantRec // its latest grant, for writes
	hasGrant     bool
	last         int64 // its last event's time
	contends     bool  // it tried for the key or believed it held it
}

type grantRec struct {
	client, host, value string
	token               int64
	time, start         int64 // start: its attempt's start, or math.MinInt64
	hasStart            bool
	at                  string
}

type writeRec struct {
	client, host, value string
	token               int64
	lo, hi              int64
	at                  string
	grant               grantRec
	hasGrant            bool
}

// keyState is what the checkers keep per key.
type keyState struct {
	name     string
	clients  map[string]*clientKey
	closed   []*belief  // finalized beliefs that a later one may still overlap
	grants   []grantRec // recent grants
	oldGrant *grantRec  // the largest token among grants pruned from grants
	writes   []writeRec // recent accepted writes
	oldWrite *writeRec
	fenced   bool // a write-rejected seen
	fencing  []Violation
	fenceN   [2]int
	writesN  int
	// contenders counts the clients that tried for the key or believed
	// they held it: with fewer than two, nobody was there to exclude.
	contenders int
}

// Checker judges a log, event by event in merged time order.
type Checker struct {
	opt     Options
	keys    map[string]*keyState
	hostEnd map[string]int64
	now     int64
	smax    time.Duration
	Stats   Stats
	// found: the first MaxPerInvariant violations per invariant and
	// certainty; counts: all of them.
	found  []Violation
	counts map[invariant.ID]*[2]int
	// drawn are the first beliefs, for the HTML timeline.
	drawn []Drawn
	// fenceJudged: some key's fencing was judged.
	fenceJudged bool
	// deadlines counts acquire-attempts that carry a deadline; promises,
	// beliefs with a validity (what premature-loss judges).
	deadlines, promises int
	// contended: two clients contended for some key (what
	// mutual-exclusion judges).
	contended bool
}

// MaxPerInvariant caps the violations kept per invariant and certainty,
// as invariant.MaxPerInvariant does for a run.
const MaxPerInvariant = invariant.MaxPerInvariant

func newChecker(opt Options) *Checker {
	c := &Checker{opt: opt, keys: map[string]*keyState{}, hostEnd: map[string]int64{}, counts: map[invariant.ID]*[2]int{},
		Stats: newStats()}
	m := opt.Skew
	for _, s := range opt.HostSkew {
		m = max(m, s)
	}
	c.smax = 2 * m
	return c
}

func (c *Checker) skewOf(h string) time.Duration {
	if s, ok := c.opt.HostSkew[h]; ok {
		return s
	}
	return c.opt.Skew
}

// bound is how far apart two hosts' clocks may be: 0 for one host.
func (c *Checker) bound(h1, h2 string) int64 {
	if h1 == h2 {
		return 0
	}
	return int64(c.skewOf(h1) + c.skewOf(h2))
}

// order classifies "x happened before y", x within [xlo, xhi] on host hx,
// y within [ylo, yhi] on host hy: certain when it holds for every offset,
// possible for some, "" for none; with the range of offsets (hx's clock
// minus hy's) that make it hold. With true = logged - offset, x before y
// needs xlo - ox < yhi - oy: ox - oy > xlo - yhi.
func (c *Checker) order(hx string, xlo, xhi int64, hy string, ylo, yhi int64) (Certainty, time.Duration, time.Duration) {
	s := c.bound(hx, hy)
	// Certain: even the latest x before the earliest y at the worst offset.
	if xhi-ylo < -s || (s == 0 && xhi < ylo) {
		return Certain, 0, 0
	}
	if lo := xlo - yhi; lo < s {
		if s == 0 {
			return Possible, 0, 0 // one clock: the windows overlap
		}
		return Possible, time.Duration(max(lo, -s)), time.Duration(s)
	}
	return "", 0, 0
}

func (c *Checker) key(k string) *keyState {
	ks := c.keys[k]
	if ks == nil {
		ks = &keyState{name: k, clients: map[string]*clientKey{}}
		c.keys[k] = ks
	}
	return ks
}

func (c *Checker) add(v Violation) {
	n := c.counts[v.Invariant]
	if n == nil {
		n = &[2]int{}
		c.counts[v.Invariant] = n
	}
	i := 0
	if v.Certainty == Possible {
		i = 1
	}
	n[i]++
	if n[i] <= MaxPerInvariant {
		c.found = append(c.found, v)
	}
}

// Feed judges one event; events come in merged logged-time order.
func (c *Checker) Feed(e Event) error {
	c.now = max(c.now, e.Time)
	c.hostEnd[e.Host] = max(c.hostEnd[e.Host], e.Time)
	c.Stats.count(e)
	ks := c.key(e.Key)
	ck := ks.clients[e.Client]
	if ck == nil {
		ck = &clientKey{client: e.Client, host: e.Host}
		ks.clients[e.Client] = ck
	} else if ck.host != e.Host {
		return errors.Errorf("%s: client %q logs from host %q, but earlier from %q: a client is one process on one host (name clients uniquely)",
			e.Where(), e.Client, e.Host, ck.host)
	}
	ck.last = e.Time
	// A belief whose deadline passed ended there.
	if b := ck.open; b != nil && b.deadline <= e.Time && !(e.Kind == Renewed && e.Time == b.deadline) {
		c.end(ks, ck, b.deadline, b.grantAt, "its validity ran out")
	}
	switch e.Kind {
	case AcquireAttempt:
		ck.attempt = &pending{start: e.Time, at: e.Where(), value: e.Value, deadline: e.Deadline}
		c.contends(ks, ck)
		if e.Deadline > 0 {
			c.deadlines++
		}
	case Granted:
		if ck.open != nil {
			c.end(ks, ck, e.Time, e.Where(), "acquired again")
		}
		g := grantRec{client: e.Client, host: e.Host, value: e.Value, token: e.Token, time: e.Time, at: e.Where()}
		if a := ck.attempt; a != nil {
			g.start, g.hasStart = a.start, true
			c.Stats.latency(time.Duration(e.Time - a.start))
			c.checkLiveness(ks, ck, a, e.Time, e.Where())
			c.checkDeadline(ks, ck, a, e.Time, e.Where(), "granted")
		}
		ck.attempt = nil
		c.Stats.Grants[e.Client]++
		if e.Token > 0 {
			c.Stats.tokens++
			c.checkToken(ks, g)
		}
		ck.grant, ck.hasGrant = g, true
		ck.open = &belief{client: e.Client, host: e.Host, value: e.Value, token: e.Token, from: e.Time, grantAt: e.Where(),
			deadline: deadline(e.Time, e.Validity)}
		c.contends(ks, ck)
		ck.open.promisedAt, ck.open.promisedFrom = e.Where(), e.Time
		if e.Validity > 0 {
			c.promises++
		}
	case Refused:
		if a := ck.attempt; a != nil {
			c.Stats.refusedAfter(time.Duration(e.Time - a.start))
			c.checkLiveness(ks, ck, a, e.Time, e.Where())
			c.checkDeadline(ks, ck, a, e.Time, e.Where(), "refused")
		}
		ck.attempt = nil
	case Renewed:
		switch {
		case ck.open != nil && e.Validity > 0:
			ck.open.deadline = deadline(e.Time, e.Validity)
			ck.open.promisedAt, ck.open.promisedFrom = e.Where(), e.Time
		case e.Validity > 0:
			// The belief had run out; the library says it holds again.
			ck.open = &belief{client: e.Client, host: e.Host, value: e.Value, token: ck.grant.token, from: e.Time, grantAt: e.Where(),
				deadline: deadline(e.Time, e.Validity), revived: true}
			c.contends(ks, ck)
		}
	case Released:
		if ck.open != nil {
			c.end(ks, ck, e.Time, e.Where(), "released")
		}
	case Lost:
		if ck.open != nil {
			if e.Cause == CauseRefused {
				c.checkRefusedEarly(ks, ck.open, e)
			}
			c.end(ks, ck, e.Time, e.Where(), "lost")
		}
	case Write, WriteRejected:
		if e.Kind == WriteRejected {
			ks.fenced = true
			break
		}
		ks.writesN++
		if e.Token > 0 {
			lo := e.Time
			if e.Sent != 0 {
				lo = e.Sent
			}
			w := writeRec{client: e.Client, host: e.Host, value: e.Value, token: e.Token, lo: lo, hi: e.Time, at: e.Where()}
			if ck.hasGrant && (e.Value == "" || e.Value == ck.grant.value) {
				w.grant, w.hasGrant = ck.grant, true
			}
			c.checkWrite(ks, w)
		}
	}
	c.prune(ks)
	return nil
}

// contends notes that ck tried for ks or believes it holds it.
func (c *Checker) contends(ks *keyState, ck *clientKey) {
	if !ck.contends {
		ck.contends = true
		ks.contenders++
		c.contended = c.contended || ks.contenders >= 2
	}
}

func deadline(t int64, v time.Duration) int64 {
	if v <= 0 {
		return noDeadline
	}
	return t + int64(v)
}

// end ends ck's open belief at `to` and judges it against the beliefs
// of other clients that ended before it.
func (c *Checker) end(ks *keyState, ck *clientKey, to int64, at, how string) {
	b := ck.open
	ck.open = nil
	b.to, b.endAt, b.endHow = min(to, b.deadline), at, how
	if b.to < b.from {
		b.to = b.from
	}
	c.Stats.hold(time.Duration(b.to - b.from))
	if len(c.drawn) < MaxDrawn {
		c.drawn = append(c.drawn, Drawn{Client: b.client, Host: b.host, EndHow: b.endHow, From: b.from, To: b.to, Token: b.token})
	}
	for _, o := range ks.closed {
		if o.client != b.client {
			c.checkOverlap(ks, o, b)
			c.checkPremature(ks, o, b)
			c.checkPremature(ks, b, o)
		}
	}
	ks.closed = append(ks.closed, b)
}

// checkOverlap judges two beliefs of different clients on one key: do
// [a.from, a.to) and [b.from, b.to) overlap in true time? With d the
// offset of a's host minus b's, they do when a.from - b.to < d < a.to -
// b.from.
func (c *Checker) checkOverlap(ks *keyState, a, b *belief) {
	if a.from > b.from || a.from == b.from && a.grantAt > b.grantAt {
		a, b = b, a
	}
	s := c.bound(a.host, b.host)
	lo, hi := a.from-b.to, a.to-b.from
	if lo >= hi || lo >= s || hi <= -s {
		return
	}
	if s == 0 && !(lo < 0 && hi > 0) {
		return
	}
	v := Violation{Invariant: invariant.MutualExclusion, Key: ks.name, Clients: []string{a.client, b.client},
		Hosts: []string{a.host, b.host}, Where: []string{a.grantAt, b.grantAt},
		From: max(a.from, b.from), To: min(a.to, b.to)}
	if a.token != 0 || b.token != 0 {
		v.Tokens = []int64{a.token, b.token}
	}
	if lo < -s && hi > s {
		v.Certainty = Certain
	} else {
		v.Certainty = Possible
		v.OffsetMin, v.OffsetMax = time.Duration(max(lo, -s)), time.Duration(min(hi, s))
	}
	text := a.client + " believed it held the key from " + fmtTime(a.from) + " (" + a.grantAt + ") to " + fmtTime(a.to) +
		" (" + a.endHow + "), and " + b.client + " from " + fmtTime(b.from) + " (" + b.grantAt + ") to " + fmtTime(b.to) + " (" + b.endHow + ")"
	if a.host != b.host {
		text += ", on hosts " + a.host + " and " + b.host
	}
	if v.Certainty == Certain {
		if s > 0 {
			text += ": they overlap whatever the clocks' offsets within the bound (±" + time.Duration(s).String() + " between the hosts)"
		} else {
			text += ": they overlap on one clock"
		}
	} else {
		text += ": they overlap only if " + offsetPhrase(a.host, b.host, v.OffsetMin, v.OffsetMax) +
			" (the bound allows ±" + time.Duration(s).String() + " between them)"
	}
	v.Explanation = text
	c.add(v)
}

// offsetPhrase says which offsets (h1's clock minus h2's, from lo to hi)
// make something happen, in words.
func offsetPhrase(h1, h2 string, lo, hi time.Duration) string {
	switch {
	case hi <= 0:
		return h2 + "'s clock ran between " + (-hi).String() + " and " + (-lo).String() + " ahead of " + h1 + "'s"
	case lo >= 0:
		return h1 + "'s clock ran between " + lo.String() + " and " + hi.String() + " ahead of " + h2 + "'s"
	}
	return h1 + "'s clock ran between " + (-lo).String() + " behind and " + hi.String() + " ahead of " + h2 + "'s"
}
