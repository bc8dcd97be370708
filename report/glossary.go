package report

import (
	"html/template"
	"regexp"
	"sort"
	"strings"
)

// The glossary explains the words the stories use. docs/glossary.md is
// written from it (TestGlossaryDoc); the text report ends with the terms
// it used and a pointer there, and the HTML page links each term to its
// entry in the page's own glossary.

// term is one glossary entry: its name, the words that stand for it in
// a story (lower case, matched as whole words), and what it means.
type term struct {
	Name  string
	Words []string
	Def   string
}

// glossary lists the terms, in the order docs/glossary.md gives them.
var glossary = []term{
	{"lock value", []string{"lock value", "random value"}, "the random string a client puts in the key when it acquires (A:2c3rpbx5tk); a release or renewal checks it, so a client never deletes or extends a key that is no longer its own."},
	{"lease", []string{"lease", "ttl"}, "the time a lock key lives on Redis (its TTL, set with PX): if the holder does nothing, the key expires and someone else may acquire. A lease bounds how long a crashed holder blocks the others; it also means a slow holder can lose the lock without knowing."},
	{"critical section", []string{"critical section", "critical sections"}, "what a client does while it believes it holds the lock: read the resource, work, write. Mutual exclusion means no two critical sections overlap."},
	{"trusts the lease", []string{"trusts the lease"}, "the design keeps no deadline of its own: the client acts as the holder until it releases, whatever happened to its key on Redis meanwhile."},
	{"believed lease", []string{"believes the lease", "believed its lease", "lease the client believes"}, "the deadline a client computes for itself (the TTL minus the time the acquire took); it can differ from when Redis really expires the key, when clocks jump or drift or the process pauses."},
	{"validity", []string{"validity"}, "Redlock's name for the believed lease: the TTL minus the time the acquire took minus an allowance for clock drift. A client should stop using the lock once it is spent."},
	{"watchdog", []string{"watchdog"}, "a background task of the holder that renews the lease (every third of it in Redisson) while the client works, so a long critical section keeps its key; it stops when the renewal fails."},
	{"renewal", []string{"renewal", "renew", "renewed"}, "extending a held key's TTL with a compare-and-set script (PEXPIRE only if the key still holds this client's value)."},
	{"compare-and-delete", []string{"compare-and-delete", "compare-and-set"}, "a script that deletes (or extends) the key only if it still holds the caller's lock value, returning 1, and does nothing otherwise, returning 0."},
	{"fencing token", []string{"fencing token", "token"}, "a number that grows with every grant of the lock; the client sends it with each write and the resource refuses a write whose token is older than one it has seen. It protects the data even when two clients believe they hold the lock."},
	{"fencing trap", []string{"fencing trap"}, "a fenced resource compares a token only with the tokens it has counted, and a strict one counts only those on writes: a stale holder's old token is accepted when the new holder has not written yet, even if the new holder's read carried a newer token. strict-reads closes the gap for a read-modify-write."},
	{"strict-reads", []string{"strict-reads"}, "a fenced resource that counts the token a read carries, as it does a write's (a plain strict resource serves the read and ignores its token): the new holder's read raises the bar, so the old holder's later write is refused (--fencing strict-reads)."},
	{"lock-value check", []string{"lock-value", "check-and-set token"}, "antirez's proposal: use the lock's random value as a check-and-set token on the resource. A read marks the reader's value, a write needs the marked one (--fencing lock-value). Random values have no order, so whoever read last owns the mark, stale or not."},
	{"version check", []string{"version check", "row version"}, "optimistic locking in the resource (UPDATE ... WHERE version=?): a write applies only if the row still has the version its writer read. It keeps the data of a read-modify-write, not the lock."},
	{"mutual exclusion", []string{"mutual exclusion", "mutual-exclusion"}, "at most one client in a critical section at any moment."},
	{"stale write", []string{"stale write", "stale-write"}, "a write the resource accepted from a client whose lease was already gone."},
	{"lost update", []string{"lost update", "lost-update"}, "a write that replaced a value its writer never read: another client's increment vanished."},
	{"liveness", []string{"liveness"}, "after the faults heal, a client that wants a free lock gets it within a bound. A design can be safe by being unobtainable; liveness says when that happened."},
	{"fencing", []string{"fencing"}, "how the resource checks fencing tokens (--fencing strict, nonstrict, strict-reads, version, lock-value or off), and the invariant of that name: a nonstrict resource lets no older holder write after a newer one (a strict resource refuses that by its own rule, so the invariant is not checked there)."},
	{"rw-exclusion", []string{"rw-exclusion", "read-write lock"}, "the invariant of a read-write lock: many readers or one writer, never a writer's hold overlapping another client's hold."},
	{"token-unique", []string{"token-unique"}, "the invariant that the token source never grants one fencing token twice, and that a later grant gets a larger token; judged for designs that hand out tokens."},
	{"premature-loss", []string{"premature-loss"}, "the invariant that a holder promised a validity keeps its key on a quorum of its nodes until that validity runs out or it releases. A fault that ends leases by itself (a node crash, a failover, an eviction, a clock jump or drift on the holder's nodes) excuses the loss: the verdict line says when a hold was not judged for that reason."},
	{"acquire-deadline", []string{"acquire-deadline"}, "the invariant that an acquisition given a deadline (how long it may wait) returns by it, give or take the tolerance the design declares and the time its process was paused."},
	{"available", []string{"available"}, "the invariant that while only faults the design claims to tolerate are active (a minority of Redlock's masters down or cut off; for a lock on one primary with replicas under Sentinel, a primary crashed, stalled or cut off from the sentinel, which Sentinel fails over), a wanted lock nobody holds is acquired within a bound; judged for designs that make that claim."},
	{"no verdict", []string{"no verdict"}, "the run could not judge an invariant: a fault never healed, or the run ended before the liveness bound. It is neither held nor broken."},
	{"not checked", []string{"not checked"}, "an invariant that means nothing for this design or resource (token order without tokens, reentrancy for a lock that is not reentrant); run --details lists why."},
	{"replica", []string{"replica", "replicas", "replication"}, "a Redis node that copies a primary's writes, asynchronously: a write the primary acknowledged may not have reached it yet."},
	{"WAIT", []string{"WAIT"}, "a Redis command that blocks until N replicas acknowledged the client's writes (or a timeout) and returns how many did. wait-replica treats fewer than asked for as not acquired."},
	{"failover", []string{"failover", "promoted", "promotes"}, "Sentinel makes a replica the new primary when the old one is down; what the replica had not received is lost."},
	{"down-after", []string{"down-after"}, "Sentinel's down-after-milliseconds: how long a primary must be unreachable before Sentinel starts a failover."},
	{"full resync", []string{"full resync"}, "a replica that rejoins and cannot continue from its offset drops its data and copies the primary's whole dataset."},
	{"persistence", []string{"persistence", "aof", "aof-always", "everysec"}, "what a restarted Redis node still has: nothing (none), the writes up to the last second (everysec), or every acknowledged write (aof-always)."},
	{"quorum", []string{"quorum", "majority"}, "Redlock's rule: a lock counts as taken only on a majority of independent masters (3 of 5), so losing one node's key does not hand the lock to another."},
	{"Redlock", []string{"redlock"}, "the multi-master algorithm of the Redis documentation: acquire on a majority of independent masters within the validity. Kleppmann criticised it (2016) for relying on timing; antirez answered in \"Is Redlock safe?\"."},
	{"clock jump", []string{"clock jump", "clock jumped", "clock-jump"}, "a node's or client's wall clock stepping (an NTP correction, an operator): Redis expires keys by its wall clock, so a jump forward expires them early."},
	{"GC pause", []string{"gc pause", "stop-the-world", "paused"}, "the whole process frozen (a stop-the-world garbage collection, a VM stall): it does nothing, not even renew, while its lease runs out."},
	{"partition", []string{"partition"}, "some nodes or clients cannot reach others for a while; messages between them are lost."},
	{"efficiency vs correctness", []string{"kleppmann's split", "lock for efficiency", "lock for correctness"}, "Kleppmann's distinction: a lock for efficiency only saves duplicate work, so a rare overlap is tolerable; a lock for correctness must never let two holders act, which a lease cannot promise without the resource's own check (fencing)."},
	{"reentrant", []string{"reentrant", "reentrancy"}, "a lock its holder may take again without blocking itself, counting the holds (Redisson's RLock)."},
	{"fair lock", []string{"fair lock", "fifo"}, "a lock that grants waiters in the order they asked (Redisson's getFairLock)."},
}

// termRE matches any term's words, longest first, as whole words.
var termRE, termOf = func() (*regexp.Regexp, map[string]int) {
	of := map[string]int{}
	var words []string
	for i, t := range glossary {
		for _, w := range t.Words {
			of[strings.ToLower(w)] = i
			words = append(words, w)
		}
	}
	sort.Slice(words, func(i, j int) bool { return len(words[i]) > len(words[j]) })
	for i, w := range words {
		// A word written with capitals (WAIT) matches only so: "the
		// acquire wait" is not the command.
		if strings.ToLower(w) == w {
			words[i] = "(?i:" + regexp.QuoteMeta(w) + ")"
		} else {
			words[i] = regexp.QuoteMeta(w)
		}
	}
	return regexp.MustCompile(`\b(` + strings.Join(words, "|") + `)\b`), of
}()

// termsIn returns the glossary entries whose words appear in text, in
// glossary order.
func termsIn(text string) []int {
	seen := map[int]bool{}
	for _, m := range termRE.FindAllString(text, -1) {
		seen[termOf[strings.ToLower(m)]] = true
	}
	var out []int
	for i := range glossary {
		if seen[i] {
			out = append(out, i)
		}
	}
	return out
}

// termAnchor is an entry's id on a page and in docs/glossary.md.
func termAnchor(i int) string {
	return strings.ToLower(strings.NewReplacer(" ", "-", "\"", "", "'", "").Replace(glossary[i].Name))
}

// GlossaryMarkdown renders the glossary as docs/glossary.md has it.
func GlossaryMarkdown() string {
	var b strings.Builder
	b.WriteString("# Glossary\n\nThe words locksim's stories use, in the order a course would meet them. The text report ends\n" +
		"with the terms it used and points here; the HTML report links each term to its entry on the page.\n" +
		"Back to the [README](../README.md) or the [tour](tour.md).\n")
	for _, t := range glossary {
		b.WriteString("\n## " + t.Name + "\n\n")
		def := t.Def
		b.WriteString(strings.ToUpper(def[:1]) + def[1:] + "\n")
	}
	return b.String()
}

// linkTerms links each glossary word in an HTML fragment to its entry
// (#g-ANCHOR), in text outside tags and links only, and adds the entries
// it linked to used.
func linkTerms(h template.HTML, used map[int]bool) template.HTML {
	s := string(h)
	var b strings.Builder
	inLink := false
	for len(s) > 0 {
		lt := strings.IndexByte(s, '<')
		text := s
		if lt >= 0 {
			text = s[:lt]
		}
		if inLink {
			b.WriteString(text)
		} else {
			b.WriteString(termRE.ReplaceAllStringFunc(text, func(m string) string {
				i := termOf[strings.ToLower(m)]
				used[i] = true
				return `<a class="term" href="#g-` + termAnchor(i) + `">` + m + `</a>`
			}))
		}
		if lt < 0 {
			break
		}
		gt := strings.IndexByte(s[lt:], '>')
		if gt < 0 {
			b.WriteString(s[lt:])
			break
		}
		tag := s[lt : lt+gt+1]
		switch {
		case strings.HasPrefix(tag, "<a "), tag == "<a>", strings.HasPrefix(tag, "<span"):
			inLink = inLink || strings.HasPrefix(tag, "<a")
		case tag == "</a>":
			inLink = false
		}
		b.WriteString(tag)
		s = s[lt+gt+1:]
	}
	return template.HTML(b.String())
}
