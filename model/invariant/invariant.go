package invariant

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pkg/errors"

	"locksim/model/history"
	"locksim/sim"

	"locksim/internal/bounded"
)

// ID names an invariant. The IDs are the catalogue's and appear in flags,
// case files and output.
type ID string

// The invariants.
const (
	// MutualExclusion: no two clients believe they hold the lock at the
	// same instant of true time (their critical sections, history.Section,
	// do not overlap).
	MutualExclusion ID = "mutual-exclusion"
	// StaleWrite: the resource accepts no write from a client whose lease
	// was already lost on the nodes that granted it (history.Index.Alive).
	StaleWrite ID = "stale-write"
	// LostUpdate: every accepted write builds on the previous accepted
	// value (the workload writes read+1).
	LostUpdate ID = "lost-update"
	// TokenUnique: the token source never grants one token to two
	// acquisitions, and an acquisition that starts after a grant gets a
	// larger token.
	TokenUnique ID = "token-unique"
	// Fencing: a nonstrict resource lets no older holder write after a
	// newer one: no token below one it accepted, and, for a token the
	// source reissued, no write of the older acquisition after the newer
	// one's. A strict resource rejects both by its own rule, so fencing is
	// not judged there: it could not break.
	Fencing ID = "fencing"
	// Liveness: after the last fault heals, a wanted lock that nobody
	// holds is acquired within a bound.
	Liveness ID = "liveness"
	// Reentrancy: hold counts of a reentrant lock go up and down by one,
	// back to zero.
	Reentrancy ID = "reentrancy"
	// FIFO: a fair lock grants in the order requests reached Redis: no
	// client is granted the lock while one whose acquisition reached a
	// node first is still waiting for it. Judged for fair designs only.
	FIFO ID = "fifo"
	// RWExclusion: a read-write lock lets many readers or one writer in:
	// no exclusive (write) hold overlaps another hold of another client,
	// shared or exclusive. Judged for designs that take shared holds.
	RWExclusion ID = "rw-exclusion"
	// PrematureLoss: a holder that was promised a validity (its acquired
	// event's lease left, moved by each renewal that reported success)
	// keeps its lease alive on a quorum of its grants until that validity
	// runs out or it releases, unless a fault that legitimately ends
	// leases (a node crash, failover, eviction, clock step or drift on its
	// nodes or its own clock) acted first. Judged for designs that promise
	// a validity.
	PrematureLoss ID = "premature-loss"
	// AcquireDeadline: an acquisition given a deadline (how long it may
	// wait) returns by it: the time it returned after the deadline, less
	// the time its process was paused and its task waited on Redis
	// requests, is at most the tolerance the design declares. Judged for
	// designs that declare one.
	AcquireDeadline ID = "acquire-deadline"
	// Available: while only faults the design claims to tolerate are
	// active (a minority of a quorum lock's masters down, slow or cut
	// off), a wanted lock nobody holds is acquired within a bound derived
	// from the design. Judged for designs that make the claim.
	Available ID = "available"
)

// TokenOrder is the name token-unique and fencing had when they were one
// invariant; Parse reads it as both.
const TokenOrder ID = "token-order"

// FenceRule is the resource's acceptance rule, as the fencing invariant
// judges it.
type FenceRule uint8

// The rules.
const (
	// NoFencing: the resource accepts every write; fencing is not judged.
	NoFencing FenceRule = iota
	// TokenAbove: a write's token must be above every accepted token.
	TokenAbove
	// TokenAtLeast: a write's token must not be below an accepted token.
	TokenAtLeast
	// VersionCheck: the resource compares the row version each write read
	// (compare-and-set) and judges no tokens; fencing is not judged. The
	// data is still judged, by lost-update.
	VersionCheck
)

// Config tells the checkers what the run promised.
type Config struct {
	// Fencing is the resource's rule.
	Fencing FenceRule
	// Quorum is how many of the grants of a lease (a key on a node) must
	// still hold it for the lease to be alive: while they do, no other
	// client can gather the grants it needs. 1 for single-node designs and
	// for a lock that needs every master (multi-lock); for a lock that
	// needs q of n grants, n-q+1 (a majority for redlock on an odd n). 0
	// means 1. It is capped at the number of grants.
	Quorum int
	// LivenessBound is how long (true time) after the last fault heals a
	// wanted, free lock must be acquired; 0 does not judge liveness.
	LivenessBound time.Duration
	// Tokens judges token-unique: the design grants fencing tokens (or
	// the resource's rule asks for them). Without tokens the invariant
	// holds of nothing, so it is not judged.
	Tokens bool
	// Reentrant judges reentrant hold counts.
	Reentrant bool
	// Fair judges grant order (FIFO): the design queues its waiters.
	Fair bool
	// Shared judges rw-exclusion: the design takes shared (read) holds.
	Shared bool
	// Validity judges premature-loss: the design tells its holder how
	// long its lease is valid (Traits.Validity; the deadline option).
	Validity bool
	// NoWrites: no client of the workload ever writes (every client reads
	// under a shared hold), so the invariants that judge writes
	// (stale-write, lost-update, fencing) would hold of nothing and are
	// not judged.
	NoWrites bool
	// AcquireTolerance judges acquire-deadline: how late past its deadline
	// (paused time and time waiting on requests left out) an acquisition
	// may return; 0 does not judge it. Package model declares one call
	// timeout, or its longest backoff sleep when that is longer.
	AcquireTolerance time.Duration
	// AvailableBound judges available: how long, while only tolerated
	// faults are active, a wanted and free lock may take to be acquired; 0
	// does not judge it. Masters are the nodes of the quorum lock and
	// Tolerate how many of them may be down, slow or cut off.
	AvailableBound time.Duration
	Masters        []string
	Tolerate       int
	// Failover makes the claim a Sentinel setup's instead of a quorum
	// lock's: Masters are the nodes of the lock's one group (its primary
	// and replicas), Tolerate how many of them may be down, stalled or cut
	// off from the sentinel (all but one, which Sentinel promotes), a
	// failover (promote, demote) is expected, and the bound counts from
	// the onset of the last tolerated fault (checkAvailable).
	Failover bool
	// ClientWall: the clients' decisions depend on their wall clocks (a
	// fair lock's queue, the wall-clock option), so a step back of a
	// client's wall clock delays the heal (history.Index.Heal).
	ClientWall bool
	// LockKeys, if set, are every key that holds the lock (a real client's
	// keys, found in its run: package realclient): the liveness checks
	// count a value on any of them as the lock held, besides the
	// acquisitions' own Key and its companions.
	LockKeys []string
	// PerClient also judges each client's liveness: an acquisition that
	// gave up while the lock was free, after the heal, is a violation
	// (checkRefusedWhileFree). Package realclient sets it.
	PerClient bool
}

// Judged reports whether a config judges the invariant at all, and if not,
// why (for reports): the registry's NotJudged. An ID the registry does not
// know is judged (a violation names it).
func (c Config) Judged(id ID) (bool, string) {
	if in, ok := Lookup(id); ok {
		if why := in.NotJudged(c); why != "" {
			return false, why
		}
	}
	return true, ""
}

// Unjudged returns the first of ids that a config does not judge, and
// why; "" when it judges them all. Counting such an invariant would pass
// without judging anything, so a check refuses it (model.Spec.CanCount).
// An empty list, or one naming every invariant, means all: nothing is
// refused.
func (c Config) Unjudged(ids []ID) (ID, string) {
	if len(ids) == 0 || len(Sorted(ids)) == len(All) {
		return "", ""
	}
	for _, id := range ids {
		if ok, why := c.Judged(id); !ok {
			return id, why
		}
	}
	return "", ""
}

// Violation is one broken invariant, with what is needed to explain it.
type Violation struct {
	Invariant ID `json:"invariant"`
	// Clients involved, in the order of the explanation.
	Clients []string `json:"clients,omitempty"`
	// From and To bound the window in true time (an overlap, a stale
	// write's instant, a liveness gap).
	From time.Duration `json:"from_ns"`
	To   time.Duration `json:"to_ns"`
	// Tokens involved, if any.
	Tokens []int64 `json:"tokens,omitempty"`
	// Events are the Seq numbers of the history events that show it.
	Events []int `json:"events,omitempty"`
	// Explanation says in plain words what happened.
	Explanation string `json:"explanation"`
}

// MaxPerInvariant caps how many violations one invariant reports, so
// output stays readable; the earliest are kept.
const MaxPerInvariant = 5

// Check judges a history: it indexes it (history.New) and runs the
// checker of every invariant the config judges (Registry). Violations are sorted by From, then Invariant, then Clients, at
// most MaxPerInvariant per invariant.
func Check(h sim.History, cfg Config) []Violation {
	ix := indexPool.Get().(*history.Index).Reuse(h)
	vs := CheckIndex(ix, cfg)
	indexPool.Put(ix) // no violation refers to the index's memory
	return vs
}

// indexPool holds the indexes Check rebuilds (history.Index.Reuse): the
// caller never sees them, and building one anew allocated as much as the
// run that made the history.
var indexPool = sync.Pool{New: func() any { return history.New(nil) }}

// CheckIndex is Check on an index already built.
func CheckIndex(ix *history.Index, cfg Config) []Violation {
	return capPer(CheckIndexAll(ix, cfg), MaxPerInvariant)
}

// CheckIndexAll is CheckIndex without the cap of MaxPerInvariant: every
// violation the checkers find, for a caller that counts them (a risk
// estimate counts every acquisition involved).
func CheckIndexAll(ix *history.Index, cfg Config) []Violation {
	var vs []Violation
	for _, in := range Registry {
		if in.NotJudged(cfg) == "" {
			vs = append(vs, in.Check(ix, cfg)...)
		}
	}
	sortViolations(vs)
	return vs
}

// sortViolations orders vs by From, then Invariant, then Clients; the sort
// is stable, so ties keep the checkers' own (history) order.
func sortViolations(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Invariant, b.Invariant), slices.Compare(a.Clients, b.Clients))
	})
}

// capPer keeps the first max violations of each invariant.
func capPer(vs []Violation, max int) []Violation {
	seen := map[ID]int{}
	out := vs[:0]
	for _, v := range vs {
		seen[v.Invariant]++
		if seen[v.Invariant] <= max {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Only keeps the violations of the given invariants (all when none given).
func Only(vs []Violation, ids []ID) []Violation {
	if len(ids) == 0 {
		return vs
	}
	var out []Violation
	for _, v := range vs {
		if slices.Contains(ids, v.Invariant) {
			out = append(out, v)
		}
	}
	return out
}

// Parse parses a comma-separated list of invariant IDs; token-order stands
// for token-unique and fencing.
func Parse(list string) ([]ID, error) {
	var out []ID
	for _, s := range strings.Split(list, ",") {
		id := ID(strings.TrimSpace(s))
		switch {
		case id == "":
			continue
		case id == TokenOrder:
			out = append(out, TokenUnique, Fencing)
		case slices.Contains(All, id):
			out = append(out, id)
		default:
			return nil, errors.Errorf("unknown invariant %s (known: %s; token-order means token-unique,fencing)", bounded.Q(id), Names(All))
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the invariant list names none")
	}
	slices.SortFunc(out, func(a, b ID) int { return slices.Index(All, a) - slices.Index(All, b) })
	return slices.Compact(out), nil
}

// Names joins IDs with commas.
func Names(ids []ID) string {
	ss := make([]string, len(ids))
	for i, id := range ids {
		ss[i] = string(id)
	}
	return strings.Join(ss, ",")
}

// Broken returns the distinct invariants of vs, in report order.
func Broken(vs []Violation) []ID {
	var ids []ID
	for _, id := range All {
		if slices.ContainsFunc(vs, func(v Violation) bool { return v.Invariant == id }) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Sorted returns the distinct IDs of ids in report order.
func Sorted(ids []ID) []ID {
	var out []ID
	for _, id := range All {
		if slices.Contains(ids, id) {
			out = append(out, id)
		}
	}
	return out
}
