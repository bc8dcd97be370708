package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/scenarios"
	"locksim/sim"
)

// TestStoriesAgreeWithTheHistory runs every catalogue scenario with every
// design that applies and reads what the report says against the raw
// history: a reply a sentence names was a reply the node gave; a holder it
// names held the key then; an expiry's owner is the value that expired; at
// one instant a fault is told before the expiries it caused; a client's
// row says "paused" only for a client that paused and "crashed" only for
// one that crashed; a liveness text does not say nobody held the lock
// while naming the key's holder; every time a "why it held" item names is
// an event's; its counts are the history's; and a scenario's text that
// says a design survives is not contradicted by that design's run.
func TestStoriesAgreeWithTheHistory(t *testing.T) {
	runs := 0
	for _, sc := range scenarios.All() {
		for _, d := range model.DesignIDs() {
			spec, err := sc.SpecFor(d)
			if err != nil {
				continue // the scenario says why it does not apply
			}
			// The scenario's own resource, and the two whose stories
			// explain a stale write they let in (the fencing trap).
			for _, f := range []model.Fencing{spec.Fencing, model.FenceStrictReads, model.FenceLockValue} {
				if f != spec.Fencing && (f == "" || spec.Fencing == model.FenceVersion) {
					continue
				}
				fs := spec
				fs.Fencing = f
				r, err := model.Run(fs, 1)
				if err != nil || r.Err != nil {
					continue
				}
				runs++
				for _, p := range storyProblems(r) {
					t.Errorf("%s with %s (fencing %s): %s", sc.Name, d, r.Spec.Fencing, p)
				}
			}
			r, err := model.Run(spec, 1)
			if err != nil || r.Err != nil {
				continue
			}
			if d != sc.Design && !strings.Contains(sc.Text, "`"+d+"`") {
				continue
			}
			for _, p := range proseProblems(sc, d, r) {
				t.Errorf("%s with %s: %s", sc.Name, d, p)
			}
		}
	}
	if runs < 200 {
		t.Fatalf("only %d runs: the test reads too little", runs)
	}
}

var (
	replyClaim  = regexp.MustCompile(`([A-Z]+)(?: on \S+)?(?: \d+)? to (\w+) returned ([^ ,:;.()]+)`)
	holderClaim = regexp.MustCompile(`the key on (\w+) (still held|held|was gone)(?: (\w+)'s value)?`)
	noLonger    = regexp.MustCompile(`no longer (\w+)'s`)
	expireOwner = regexp.MustCompile(`expired on (\w+) \(it was (\w+)'s\)`)
	timeWord    = regexp.MustCompile(`\d+\.\d{6}s`)
	timesClaim  = regexp.MustCompile(`(\w+)'s watchdog renewed \S+ (once|twice|\w+ times) \((\d+\.\d{6}s)(?: to (\d+\.\d{6}s))?\)`)
	trapClaim   = regexp.MustCompile(`accepted (\w+)'s token (\d+) at (\d+\.\d{6}s) because`)
	shortClaim  = regexp.MustCompile(`(\w+)'s WAIT (\d+) came back short .* (once|twice|\w+ times), from`)
)

// storyProblems checks one run's report claims against its history.
func storyProblems(r *model.Result) []string {
	tl := build(r)
	var out []string
	bad := func(f string, a ...any) { out = append(out, fmt.Sprintf(f, a...)) }
	// Key events: each line's replies, holders and owners; their order.
	for i, k := range tl.Key {
		e := tl.h[k.Seq]
		for _, m := range replyClaim.FindAllStringSubmatch(k.Text, -1) {
			if !gotReply(tl.h, e.Actor, m[1], m[2], m[3], e.At) {
				bad("%q at %s: %s never answered %s %s to %s shortly before", k.Text, fmtT(k.At), m[2], e.Actor, m[1], m[3])
			}
		}
		for _, m := range holderClaim.FindAllStringSubmatch(k.Text, -1) {
			if why := holderWrong(tl, e, m[1], m[2], m[3]); why != "" {
				bad("%q at %s: %s", k.Text, fmtT(k.At), why)
			}
		}
		if m := noLonger.FindStringSubmatch(k.Text); m != nil {
			if why := stillTheirs(tl, e, m[1]); why != "" {
				bad("%q at %s: %s", k.Text, fmtT(k.At), why)
			}
		}
		if m := expireOwner.FindStringSubmatch(k.Text); m != nil && e.Kind == sim.KindExpire {
			if o := tl.ix.Owner(e.Value); o != "" && o != m[2] {
				bad("%q: the value that expired, %s, was %s's", k.Text, e.Value, o)
			}
		}
		if i > 0 {
			p := tl.Key[i-1]
			if p.At > k.At {
				bad("key event %q at %s is listed after one at %s", k.Text, fmtT(k.At), fmtT(p.At))
			}
		}
		if _, fault := faultViews[e.Kind]; fault && e.Kind != sim.KindEvict {
			for j := i - 1; j >= 0 && tl.Key[j].At == k.At; j-- {
				p := tl.h[tl.Key[j].Seq]
				if p.Actor == e.Actor && (p.Kind == sim.KindExpire || p.Kind == sim.KindKey) {
					bad("%q is told before its cause %q at the same instant %s", tl.Key[j].Text, k.Text, fmtT(k.At))
				}
			}
		}
	}
	// The raw history: a node's expiry its clock jump caused (stamped
	// with the node's new time) comes after the jump, not before it.
	for _, j := range tl.h {
		if j.Kind != sim.KindClockJump || j.Dur <= 0 {
			continue
		}
		for i := j.Seq - 1; i >= 0 && tl.h[i].At == j.At; i-- {
			if x := tl.h[i]; x.Actor == j.Actor && x.Kind == sim.KindExpire && x.Local >= j.Local {
				bad("the raw history records %s's expiry of %s (seq %d, node time %s) before the clock jump that caused it (seq %d) at %s", x.Actor, x.Key, x.Seq, fmtT(x.Local), j.Seq, fmtT(j.At))
			}
		}
	}
	// The raw history's renewal notes: "returned 0" only when the last
	// reply the watchdog got to its renewal script (not to a WAIT after
	// it) was 0 (or nil).
	for _, e := range tl.h {
		if e.Kind != history.KindRenew && e.Kind != history.KindWatchdogStop || !strings.Contains(e.Note, "returned 0: the key is no longer") {
			continue
		}
		for i := e.Seq - 1; i >= 0; i-- {
			x := tl.h[i]
			if x.Actor == e.Actor && x.Task == e.Task && x.Kind == sim.KindReply && !isWaitReply(tl.h, x) {
				if x.Reply != "(integer) 0" && x.Reply != "(nil)" {
					bad("the %s event at %s (seq %d) notes %q, but the watchdog's last reply was %s", e.Kind, fmtT(e.At), e.Seq, e.Note, x.Reply)
				}
				break
			}
		}
	}
	// Key events: a replica's backlog at one instant is folded, not
	// listed line by line.
	for i, run := 0, 0; i < len(tl.Key); i++ {
		k := tl.Key[i]
		if i > 0 && strings.HasSuffix(k.Text, "(replication)") && tl.Key[i-1].At == k.At && tl.Key[i-1].Actor == k.Actor && strings.HasSuffix(tl.Key[i-1].Text, "(replication)") {
			run++
		} else {
			run = 1
		}
		if run == 5 {
			bad("key events list five or more replication changes on %s at %s one by one", k.Actor, fmtT(k.At))
		}
	}
	// Why it held's WAIT tallies are backed by key events naming a reply.
	for _, it := range tl.whyHeld(r) {
		if m := shortClaim.FindStringSubmatch(it.Text); m != nil {
			found := false
			for _, k := range tl.Key {
				found = found || strings.HasPrefix(k.Text, m[1]+"'s WAIT "+m[2]+" to ")
			}
			if !found {
				bad("%q: no key event shows %s's WAIT replies", it.Text, m[1])
			}
		}
	}
	// Rows: a client's pause row says what it shows.
	for _, l := range tl.Lanes {
		for _, rw := range l.Rows {
			c := l.ID
			switch rw.Name {
			case "paused":
				if len(tl.ix.Pauses[c]) == 0 {
					bad("client %s's row is labelled paused, but it never paused", c)
				}
			case "crashed":
				if len(tl.ix.Crashes[c]) == 0 {
					bad("client %s's row is labelled crashed, but it never crashed", c)
				}
			}
		}
	}
	// Violations: a liveness text names no holder while saying nobody held it.
	for _, v := range r.Violations {
		if strings.Contains(v.Explanation, "nobody held") && strings.Contains(v.Explanation, "'s value") {
			bad("liveness says nobody held the lock and names the key's holder: %s", v.Explanation)
		}
	}
	// Why it held, what still held, the fencing traps.
	at := map[string]bool{fmtT(tl.End): true}
	for _, e := range tl.h {
		at[fmtT(e.At)] = true
	}
	for _, s := range tl.ix.Sections {
		if s.End == history.EndDeadline { // told as "until its lease ran out at"
			at[fmtT(s.To)] = true
		}
	}
	items := append(append(tl.whyHeld(r), tl.stillHeld(r)...), tl.fencingTraps(r)...)
	for _, it := range items {
		for _, w := range timeWord.FindAllString(it.Text, -1) {
			if !at[w] {
				bad("%q names %s, when nothing happened", it.Text, w)
			}
		}
		for _, s := range it.Seqs {
			if s < 0 || s >= len(tl.h) {
				bad("%q cites event %d, not in the history", it.Text, s)
			}
		}
		if m := timesClaim.FindStringSubmatch(it.Text); m != nil {
			if n := renewCount(tl.h, m[1], m[3], m[4]); n != wordCount(m[2]) {
				bad("%q: the history has %d renewals by %s from %s", it.Text, n, m[1], m[3])
			}
		}
		if m := trapClaim.FindStringSubmatch(it.Text); m != nil {
			if why := trapWrong(tl, r, m[1], m[2], m[3], it.Text); why != "" {
				bad("%q: %s", it.Text, why)
			}
		}
		if m := shortClaim.FindStringSubmatch(it.Text); m != nil {
			if n := shortWaits(tl.h, m[1], m[2]); n != wordCount(m[3]) {
				bad("%q: the history has %d short WAITs by %s", it.Text, n, m[1])
			}
		}
	}
	return out
}

// isWaitReply reports whether the reply x answers a WAIT: the last call
// of x's task before it.
func isWaitReply(h sim.History, x sim.Event) bool {
	for i := x.Seq - 1; i >= 0; i-- {
		if c := h[i]; c.Kind == sim.KindCall && c.Actor == x.Actor && c.Task == x.Task {
			return len(c.Args) > 0 && strings.EqualFold(c.Args[0], "WAIT")
		}
	}
	return false
}

// gotReply reports whether client c got reply want from node for a
// command cmd in the 30s up to at.
func gotReply(h sim.History, c, cmd, node, want string, at time.Duration) bool {
	sent := map[string]string{} // task -> the command of its pending call
	for _, e := range h {
		if e.At > at {
			break
		}
		if e.Actor != c || e.Peer != node {
			continue
		}
		switch e.Kind {
		case sim.KindCall:
			if len(e.Args) > 0 {
				sent[e.Task] = strings.ToUpper(e.Args[0])
			}
		case sim.KindReply:
			if sent[e.Task] == cmd && at-e.At <= 30*time.Second && strings.TrimPrefix(e.Reply, "(integer) ") == want {
				return true
			}
			delete(sent, e.Task)
		}
	}
	return false
}

// holderWrong checks "the key on N held X's value" (or "was gone") told
// by the event e: what the node ran for e's client last before e must
// have seen that.
func holderWrong(tl *timeline, e sim.Event, node, verb, who string) string {
	// The node's last exec for the client at or before e.
	for i := e.Seq; i >= 0; i-- {
		x := tl.h[i]
		if x.Kind != sim.KindExec || x.Actor != node || x.Peer != e.Actor {
			continue
		}
		v := tl.ix.ValueAt(node, e.Key, i)
		o := tl.owner(v)
		switch {
		case verb == "was gone" && v != "":
			return "says the key on " + node + " was gone, but it held " + v
		case verb != "was gone" && o != who:
			return "says the key on " + node + " held " + who + "'s value, but it held " + strconv.Quote(v)
		}
		return ""
	}
	return "names the key on " + node + ", which never ran a command for " + e.Actor
}

// stillTheirs checks "the key is no longer C's" told by event e: the
// node that last ran a command of e's task must not hold C's value then.
func stillTheirs(tl *timeline, e sim.Event, c string) string {
	node := ""
	for i := e.Seq; i >= 0 && node == ""; i-- {
		if x := tl.h[i]; x.Kind == sim.KindReply && x.Actor == e.Actor && x.Task == e.Task {
			node = x.Peer
		}
	}
	if node == "" {
		return ""
	}
	for i := e.Seq; i >= 0; i-- {
		if x := tl.h[i]; x.Kind == sim.KindExec && x.Actor == node && x.Peer == e.Actor {
			if v := tl.ix.ValueAt(node, e.Key, i); tl.owner(v) == c {
				return "says the key is no longer " + c + "'s, but " + node + " held " + c + "'s value " + v + " when it last ran " + e.Actor + "'s command"
			}
			return ""
		}
	}
	return ""
}

// trapWrong checks a fencing-trap item: the resource accepted c's token
// at the time said, and no accepted write (nor, under strict-reads, a
// read) had carried a newer token before it.
func trapWrong(tl *timeline, r *model.Result, c, token, at, text string) string {
	tok, _ := strconv.ParseInt(token, 10, 64)
	for _, e := range tl.h {
		if fmtT(e.At) == at && e.Kind == history.KindResWrite && e.Peer == c && e.Token == tok {
			if e.Reply != "(integer) 1" {
				return "the resource did not accept that write"
			}
			high := int64(0)
			for _, p := range tl.h[:e.Seq] {
				seen := p.Kind == history.KindResWrite && p.Reply == "(integer) 1" ||
					r.Spec.Fencing == model.FenceStrictReads && p.Kind == history.KindResRead && !strings.HasPrefix(p.Reply, "(error)")
				if seen && p.Token > tok {
					return fmt.Sprintf("token %d had reached the resource at %s", p.Token, fmtT(p.At))
				}
				if seen {
					high = max(high, p.Token)
				}
			}
			want := "no token had been counted there yet"
			if high > 0 {
				want = fmt.Sprintf("the highest token it had counted was %d", high)
			}
			if !strings.Contains(text, want) {
				return "the history says " + want
			}
			// A newer token that reached the resource on a read: the
			// text says it did, when, and that the resource recorded no
			// token for it (a read it did count would have raised the bar).
			for _, p := range tl.h[:e.Seq] {
				if p.Kind != history.KindResRead || strings.HasPrefix(p.Reply, "(error)") {
					continue
				}
				carried, _ := strconv.ParseInt(readToken(tl.h, p.Seq), 10, 64)
				if carried <= tok {
					continue
				}
				say := fmt.Sprintf("%s's read carried token %d to the resource at %s", p.Peer, carried, fmtT(p.At))
				if !strings.Contains(text, say) || strings.Contains(text, "had not seen it") || strings.Contains(text, "would have carried") {
					return fmt.Sprintf("the history has %s's READ %d reach the resource at %s (recorded with token %d); the text must say %q", p.Peer, carried, fmtT(p.At), p.Token, say)
				}
				if p.Token == 0 && !strings.Contains(text, "without recording its token") {
					return "the resource recorded no token for that read; the text must say so"
				}
			}
			return ""
		}
	}
	return "no such write in the history"
}

// renewCount counts c's extended renewals from..to (to "" means from).
func renewCount(h sim.History, c, from, to string) int {
	if to == "" {
		to = from
	}
	lo, _ := time.ParseDuration(from)
	hi, _ := time.ParseDuration(to)
	n := 0
	for _, e := range h {
		at, _ := time.ParseDuration(fmtT(e.At))
		if e.Actor == c && e.Kind == history.KindRenew && history.Renew(e).Extended() && at >= lo && at <= hi {
			n++
		}
	}
	return n
}

// shortWaits counts c's main-task WAIT replies below want.
func shortWaits(h sim.History, c, want string) int {
	w, _ := strconv.Atoi(want)
	n, pending := 0, false
	for _, e := range h {
		if e.Actor != c || e.Task != "main" {
			continue
		}
		switch e.Kind {
		case sim.KindCall:
			pending = len(e.Args) > 0 && strings.EqualFold(e.Args[0], "WAIT")
		case sim.KindReply:
			if got, err := strconv.Atoi(strings.TrimPrefix(e.Reply, "(integer) ")); pending && err == nil && got < w {
				n++
			}
			pending = false
		}
	}
	return n
}

// wordCount reads timesWord back.
func wordCount(w string) int {
	switch w {
	case "once":
		return 1
	case "twice":
		return 2
	}
	words := []string{"", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	n := strings.TrimSuffix(w, " times")
	for i, x := range words {
		if x == n {
			return i
		}
	}
	v, _ := strconv.Atoi(n)
	return v
}

var survivesClaim = regexp.MustCompile("`([a-z0-9-]+)` (survives|keeps the lock safe)")

// proseProblems checks a scenario's own text: a design it says survives
// has no violation in its run (with the scenario's fencing).
func proseProblems(sc *scenarios.Scenario, d string, r *model.Result) []string {
	var out []string
	for _, m := range survivesClaim.FindAllStringSubmatch(sc.Text, -1) {
		if m[1] == d && len(r.Violations) > 0 {
			out = append(out, "the scenario's text says `"+d+"` "+m[2]+", but its run breaks "+string(r.Violations[0].Invariant))
		}
	}
	// "C wrote ... while D still believed it held it": one of C's accepted
	// writes falls inside a hold of D's (the scenario's own design; another
	// design's run tells another story).
	if d == sc.Design {
		ix := history.New(r.History)
		for _, m := range whileHeldClaim.FindAllStringSubmatch(strings.Join(strings.Fields(sc.Text), " "), -1) {
			found := false
			for _, e := range r.History {
				if e.Kind != history.KindResWrite || e.Peer != m[1] || e.Reply != "(integer) 1" {
					continue
				}
				for _, sec := range ix.Sections {
					found = found || sec.Client == m[2] && sec.From <= e.At && e.At <= sec.To
				}
			}
			if !found {
				out = append(out, fmt.Sprintf("the scenario's text says %q, but no write of %s's was accepted while %s held the lock", m[0], m[1], m[2]))
			}
		}
	}
	// A reason the text gives for liveness's "no verdict" is the verdict's.
	for _, m := range noVerdictClaim.FindAllStringSubmatch(sc.Text, -1) {
		said := strings.Join(strings.Fields(m[1]), " ")
		var why string
		for _, v := range verdicts(r, history.New(r.History)) {
			if v.Invariant == "liveness" {
				why = v.Why
			}
		}
		if why == "" {
			continue // another design's run
		}
		never := strings.Contains(said, "never heal") || strings.Contains(said, "never end")
		if never != strings.Contains(why, "never ended") {
			out = append(out, "the scenario's text says liveness has no verdict "+strconv.Quote(said)+", but the verdict's reason is: "+why)
		}
	}
	return out
}

// whileHeldClaim is a scenario text's claim that C wrote while D held
// (or believed it held) the lock.
var whileHeldClaim = regexp.MustCompile(`\b([A-Z]) wrote [^.:;]*?while ([A-Z]) still (?:believed it )?held (?:it|the lock)`)

// noVerdictClaim is a scenario text's reason for liveness's "no verdict".
var noVerdictClaim = regexp.MustCompile(`liveness\s+has\s+no\s+verdict,?\s+([^)]*)`)
