package report

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
)

// Grouping is a presentation of the checkers' violations, never a new
// verdict: every violation stays in the result, the JSON and the counts.
// Violations that come from one critical section of the same client share
// a cause, whatever invariant each breaks: a paused A whose lease lapsed,
// overlapped by each of the holds B took meanwhile (mutual-exclusion,
// rw-exclusion), whose writes the resource accepted after its lease was
// lost (stale-write) or against its fencing rule (fencing), whose write
// overwrote another client's update (lost-update). The reports show such a
// group as one block: a headline saying the cause once and each
// consequence as a clause, the facts every member's explanation states
// once, one line per violation with what is its own (and its invariant,
// when the group mixes them), and one retelling from the history for them
// all.

// group is a set of violations that share a cause: Members index the
// result's violations in order. A violation that shares its cause with no
// other is a group of one (Cause empty).
type group struct {
	Members []int
	// Cause is the headline, times as fmtT prints them.
	Cause string
	// Shared holds the facts every member's explanation states; Each is
	// the rest of each member's explanation, in Members order.
	Shared string
	Each   []string
}

// Group is a set of violations that share one cause, in the JSON report's
// "groups" (only groups of two or more are listed).
type Group struct {
	Invariant invariant.ID `json:"invariant"`
	// Violations are the numbers of its violations, from 1, as the reports
	// number them (the index in "violations" plus one).
	Violations []int `json:"violations"`
	// Cause says the shared cause in one sentence.
	Cause string `json:"cause"`
	// Shared is what every member's explanation states.
	Shared string `json:"shared,omitempty"`
	// Invariants, when the group mixes invariants, lists them in the order
	// of their first members (Invariant is the first member's).
	Invariants []invariant.ID `json:"invariants,omitempty"`
	// Each is the rest of each member's explanation, in Violations order.
	Each []string `json:"each"`
	// Story retells them once from the history.
	Story string `json:"story,omitempty"`
}

// groups returns the groups of vs in the order of their first members.
func (t *timeline) groups(vs []invariant.Violation) []group {
	var out []group
	byKey := map[string]int{}
	for i, v := range vs {
		key, ok := t.causeKey(v)
		if !ok {
			out = append(out, group{Members: []int{i}})
			continue
		}
		if g, seen := byKey[key]; seen {
			out[g].Members = append(out[g].Members, i)
			continue
		}
		byKey[key] = len(out)
		out = append(out, group{Members: []int{i}})
	}
	for gi := range out {
		g := &out[gi]
		if len(g.Members) < 2 {
			continue
		}
		var ms []invariant.Violation
		for _, i := range g.Members {
			ms = append(ms, vs[i])
		}
		g.Cause = t.cause(ms)
		g.Shared, g.Each = sharedFacts(ms)
		if len(groupInvariants(ms)) > 1 {
			for k, v := range ms {
				g.Each[k] = string(v.Invariant) + ": " + g.Each[k]
			}
		}
	}
	return out
}

// groupLabel names a group's invariants: "mutual-exclusion", or
// "mutual-exclusion, lost-update and stale-write".
func groupLabel(ms []invariant.Violation) string {
	var names []string
	for _, id := range groupInvariants(ms) {
		names = append(names, string(id))
	}
	return joinAnd(names)
}

// grouped reports whether id's violations can share a cause: one critical
// section of their first client (an overlap, a write or an overwrite:
// invariant.Window).
func grouped(id invariant.ID) bool {
	in, _ := invariant.Lookup(id)
	return in.Window != invariant.WindowOther
}

// groupCounted reports whether any member of a group counts.
func groupCounted(r *model.Result, ms []invariant.Violation) bool {
	for _, v := range ms {
		if r.IsCounted(v.Invariant) {
			return true
		}
	}
	return false
}

// causeKey names a violation's cause: the critical section of its first
// client that the violation falls in. Violations of different invariants
// from one section share it.
func (t *timeline) causeKey(v invariant.Violation) (string, bool) {
	if !grouped(v.Invariant) || len(v.Clients) == 0 {
		return "", false
	}
	s, ok := t.sectionOf(v)
	if !ok {
		return "", false
	}
	return s.Client + "\x00" + strconv.Itoa(s.Acq), true
}

// sectionOf returns the critical section of v's first client that v falls
// in: the last one that started at or before v's own instant (its From;
// for an overwrite, To: the overwriting write, whose From is the lost
// one's) and, for an overlap, lasts to v.To.
func (t *timeline) sectionOf(v invariant.Violation) (*history.Section, bool) {
	c := v.Clients[0]
	at := v.From
	if in, _ := invariant.Lookup(v.Invariant); in.Window == invariant.WindowOverwrite {
		at = v.To
	}
	var found *history.Section
	for i := range t.ix.Sections {
		s := &t.ix.Sections[i]
		if s.From > at {
			break
		}
		if s.Client == c {
			found = s
		}
	}
	if found == nil {
		return nil, false
	}
	if overlapInvariant(v.Invariant) && found.To < v.To {
		return nil, false
	}
	return found, true
}

// overlapInvariant reports whether id's violations are overlaps of two
// holds (invariant.WindowOverlap).
func overlapInvariant(id invariant.ID) bool {
	in, _ := invariant.Lookup(id)
	return in.Window == invariant.WindowOverlap
}

// cause writes a group's headline: the cause once, then each invariant's
// consequence as a clause, in the order of their first members: "A was
// paused 1.422500s from 0.002000s; meanwhile B held the lock three times
// (tokens 2, 3, 4); the resource accepted one of A's writes after its
// lease was lost".
func (t *timeline) cause(ms []invariant.Violation) string {
	a, _ := t.sectionOf(ms[0])
	lead := a.Client + " held the lock from " + fmtT(a.From) + tokenNote(a.Token)
	first := ms[0].From
	for _, v := range ms {
		first = min(first, v.From)
	}
	// A pause is the cause only if it was under way when the first
	// violation began: one that came later (after a failover already
	// broke the lease) is not.
	for _, p := range t.ix.Pauses[a.Client] {
		if p.From <= first && p.To > a.From && p.To > first {
			lead = a.Client + " was paused " + fmtT(p.To-p.From) + " from " + fmtT(p.From)
			break
		}
	}
	clauses := []string{lead}
	for _, id := range groupInvariants(ms) {
		var sub []invariant.Violation
		for _, v := range ms {
			if v.Invariant == id {
				sub = append(sub, v)
			}
		}
		clauses = append(clauses, t.consequence(a.Client, sub))
	}
	return strings.Join(clauses, "; ")
}

// groupInvariants lists the invariants of a group's members, in the order
// of their first members.
func groupInvariants(ms []invariant.Violation) []invariant.ID {
	var ids []invariant.ID
	for _, v := range ms {
		if !slices.Contains(ids, v.Invariant) {
			ids = append(ids, v.Invariant)
		}
	}
	return ids
}

// consequence says what the members of one invariant (all of it, from
// client a's section) show, as a clause of the headline.
func (t *timeline) consequence(a string, ms []invariant.Violation) string {
	n := len(ms)
	switch ms[0].Invariant {
	case invariant.StaleWrite:
		return "the resource accepted " + count(n) + " of " + a + "'s writes after its lease was lost" + tokensNote(t.writeTokens(ms))
	case invariant.Fencing:
		return "the resource accepted " + count(n) + " of " + a + "'s writes after a newer acquisition's write (a lower or reissued token)"
	case invariant.LostUpdate:
		var whose []string
		for _, v := range ms {
			for _, c := range v.Clients[1:] {
				if !slices.Contains(whose, c+"'s") {
					whose = append(whose, c+"'s")
				}
			}
		}
		if n == 1 && len(whose) == 1 {
			return whose[0] + " update was lost to " + a + "'s write"
		}
		return count(n) + " updates were lost to " + a + "'s writes"
	}
	// An overlap: who held meanwhile, how often, with which tokens.
	var order []string
	holds := map[string][]int64{}
	times := map[string]int{}
	for _, v := range ms {
		if len(v.Clients) < 2 {
			continue
		}
		b := v.Clients[1]
		if times[b] == 0 {
			order = append(order, b)
		}
		times[b]++
		if s, ok := t.sectionStarting(b, v.From); ok && s.Token != 0 {
			holds[b] = append(holds[b], s.Token)
		}
	}
	var parts []string
	for i, b := range order {
		s := b + " held "
		if i == 0 {
			s += "the lock "
		} else {
			s += "it "
		}
		s += timesWord(times[b])
		if tk := holds[b]; len(tk) > 0 {
			s += tokensNote(tk)
		}
		parts = append(parts, s)
	}
	return "meanwhile " + joinAnd(parts)
}

// sectionStarting returns client c's critical section that started at at.
func (t *timeline) sectionStarting(c string, at time.Duration) (*history.Section, bool) {
	for i := range t.ix.Sections {
		s := &t.ix.Sections[i]
		if s.Client == c && s.From == at {
			return s, true
		}
	}
	return nil, false
}

// writeTokens lists the tokens of the members' writes, where they name
// exactly one.
func (t *timeline) writeTokens(ms []invariant.Violation) []int64 {
	var out []int64
	for _, v := range ms {
		if len(v.Tokens) != 1 {
			return nil
		}
		out = append(out, v.Tokens[0])
	}
	return out
}

// tokensNote renders " (token 2)" or " (tokens 2, 3, 4)"; tokens that are
// all the same are named once.
func tokensNote(ts []int64) string {
	if len(ts) == 0 {
		return ""
	}
	same := true
	for _, tk := range ts {
		same = same && tk == ts[0]
	}
	if same {
		return " (token " + itoa(ts[0]) + ")"
	}
	var ss []string
	for _, tk := range ts {
		ss = append(ss, itoa(tk))
	}
	return " (tokens " + strings.Join(ss, ", ") + ")"
}

var smallNumbers = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

// count spells a small count: "three".
func count(n int) string {
	if n >= 0 && n < len(smallNumbers) {
		return smallNumbers[n]
	}
	return strconv.Itoa(n)
}

// timesWord spells how often: "once", "twice", "three times".
func timesWord(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return count(n) + " times"
}

// sharedFacts splits each member's explanation ("head: fact; fact; ...",
// as the checkers write them) into the facts all of them state, in the
// first member's order, and what is left of each.
func sharedFacts(ms []invariant.Violation) (string, []string) {
	heads := make([]string, len(ms))
	facts := make([][]string, len(ms))
	in := make([]map[string]bool, len(ms))
	for i, v := range ms {
		heads[i], facts[i] = splitFacts(v.Explanation)
		in[i] = map[string]bool{}
		for _, f := range facts[i] {
			in[i][f] = true
		}
	}
	common := map[string]bool{}
	var shared []string
	for _, f := range facts[0] {
		all := true
		for i := 1; i < len(ms); i++ {
			all = all && in[i][f]
		}
		if all && !common[f] {
			common[f] = true
			shared = append(shared, f)
		}
	}
	each := make([]string, len(ms))
	for i := range ms {
		var own []string
		for _, f := range facts[i] {
			if !common[f] {
				own = append(own, f)
			}
		}
		each[i] = heads[i]
		if len(own) > 0 {
			each[i] += ": " + strings.Join(own, "; ")
		}
	}
	return strings.Join(shared, "; "), each
}

// splitFacts splits an explanation at its first ": " and the rest at
// "; ", without a final period.
func splitFacts(s string) (string, []string) {
	head, rest, ok := strings.Cut(s, ": ")
	if !ok {
		return strings.TrimSuffix(s, "."), nil
	}
	return head, strings.Split(strings.TrimSuffix(rest, "."), "; ")
}

// groupStory retells a group once: the story of one violation spanning
// them all, leaving out what any member's explanation says.
func (t *timeline) groupStory(ms []invariant.Violation) string {
	u := invariant.Violation{Invariant: ms[0].Invariant, From: ms[0].From, To: ms[0].To}
	seenC, seenE := map[string]bool{}, map[int]bool{}
	var expl []string
	for _, v := range ms {
		u.From, u.To = min(u.From, v.From, v.To), max(u.To, v.To, v.From)
		for _, c := range v.Clients {
			if !seenC[c] {
				seenC[c] = true
				u.Clients = append(u.Clients, c)
			}
		}
		for _, e := range v.Events {
			if !seenE[e] {
				seenE[e] = true
				u.Events = append(u.Events, e)
			}
		}
		expl = append(expl, v.Explanation)
	}
	u.Explanation = strings.Join(expl, "\n")
	return t.story(u)
}

// numbers renders the members' numbers (from 1): "1-3" when they follow
// each other, else "1, 2, 5".
func numbers(members []int) string {
	run := true
	for i := 1; i < len(members); i++ {
		run = run && members[i] == members[i-1]+1
	}
	if run && len(members) > 1 {
		return strconv.Itoa(members[0]+1) + "-" + strconv.Itoa(members[len(members)-1]+1)
	}
	var ss []string
	for _, m := range members {
		ss = append(ss, strconv.Itoa(m+1))
	}
	return strings.Join(ss, ", ")
}

// jsonGroups lists the groups of two or more for the JSON report.
func (t *timeline) jsonGroups(vs []invariant.Violation) []Group {
	var out []Group
	for _, g := range t.groups(vs) {
		if len(g.Members) < 2 {
			continue
		}
		var ms []invariant.Violation
		jg := Group{Invariant: vs[g.Members[0]].Invariant, Cause: g.Cause, Shared: g.Shared, Each: g.Each}
		for _, i := range g.Members {
			jg.Violations = append(jg.Violations, i+1)
			ms = append(ms, vs[i])
		}
		if ids := groupInvariants(ms); len(ids) > 1 {
			jg.Invariants = ids
		}
		jg.Story = t.groupStory(ms)
		out = append(out, jg)
	}
	return out
}
