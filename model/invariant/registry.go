package invariant

import (
	"sync"

	"locksim/model/history"
)

// Info is everything the project knows about one invariant: what it asks,
// what breaking it costs, how the matrix abbreviates it, when a run judges
// it and the checker that does. Registry holds one per invariant; every
// listing, report, gate and check reads it, so adding an invariant is one
// entry here, its ID constant and its checker (CONTRIBUTING.md, "Adding an
// invariant").
type Info struct {
	ID ID
	// About says in one line what the invariant asks, for listings.
	About string
	// Harm is what a violation costs the lock's user.
	Harm Harm
	// Code is the two capital letters matrix cells write for it.
	Code string
	// Window is what a violation's From..To spans, which decides how a
	// report groups violations under one cause.
	Window Window
	// NotJudged reports why a run with this config does not judge the
	// invariant ("the design is not reentrant"), or "" when it does.
	NotJudged func(Config) string
	// Check judges an indexed history; Check calls it only when
	// NotJudged says "".
	Check func(*history.Index, Config) []Violation
}

// Window is what a violation's time window spans.
type Window uint8

// The windows.
const (
	// WindowOther: a gap, an instant or an order; violations are not
	// grouped by cause.
	WindowOther Window = iota
	// WindowOverlap: two holds' overlap, inside the critical section of
	// the violation's first client.
	WindowOverlap
	// WindowWrite: the instant a write was accepted, inside its writer's
	// critical section.
	WindowWrite
	// WindowOverwrite: from an accepted write to the later write that
	// overwrote it without reading it (To), inside the overwriter's
	// critical section; the overwriter is the violation's first client.
	WindowOverwrite
)

// Registry is the one table of invariants, in report order.
var Registry = []Info{
	{ID: MutualExclusion, Code: "ME", Harm: HarmLease, Window: WindowOverlap,
		About:     "no two clients hold the lock at the same instant of true time",
		NotJudged: always,
		Check:     func(ix *history.Index, _ Config) []Violation { return checkMutex(ix) }},
	{ID: StaleWrite, Code: "SW", Harm: HarmLease, Window: WindowWrite,
		About:     "the resource accepts no write from a client whose lease was already lost",
		NotJudged: writes,
		Check:     checkStale},
	{ID: LostUpdate, Code: "LU", Harm: HarmData, Window: WindowOverwrite,
		About:     "every accepted write builds on the previous one (read-modify-write)",
		NotJudged: writes,
		Check:     func(ix *history.Index, _ Config) []Violation { return checkLostUpdate(ix) }},
	{ID: TokenUnique, Code: "TU", Harm: HarmLease,
		About:     "no fencing token is granted twice, and tokens grow with grant order",
		NotJudged: unless(func(c Config) bool { return c.Tokens }, "the design grants no fencing tokens"),
		Check:     func(ix *history.Index, _ Config) []Violation { return checkTokenUnique(ix) }},
	{ID: Fencing, Code: "FE", Harm: HarmLease, Window: WindowWrite,
		About: "a nonstrict resource lets no older holder write after a newer one (a lower token, or a reissued equal one)",
		NotJudged: func(c Config) string {
			if why := writes(c); why != "" {
				return why
			}
			switch c.Fencing {
			case NoFencing:
				return "the resource is not fenced"
			case VersionCheck:
				return "the resource checks row versions, not tokens"
			case TokenAbove:
				return "a strict resource rejects such a write itself; lost-update and stale-write judge what it saved"
			}
			return ""
		},
		Check: func(ix *history.Index, c Config) []Violation { return checkFencing(ix, c.Fencing) }},
	{ID: Liveness, Code: "LV", Harm: HarmLiveness,
		About:     "after the faults heal, a wanted lock nobody holds is acquired in time",
		NotJudged: unless(func(c Config) bool { return c.LivenessBound > 0 }, "no liveness bound for this run"),
		Check: func(ix *history.Index, c Config) []Violation {
			vs := checkLiveness(ix, c.LivenessBound, c)
			if c.PerClient {
				vs = append(vs, checkRefusedWhileFree(ix, c)...)
			}
			return vs
		}},
	{ID: Reentrancy, Code: "RE", Harm: HarmLease,
		About:     "a reentrant lock's hold counts go up and back to zero",
		NotJudged: unless(func(c Config) bool { return c.Reentrant }, "the design is not reentrant"),
		Check:     func(ix *history.Index, _ Config) []Violation { return checkReentrancy(ix) }},
	{ID: FIFO, Code: "FI", Harm: HarmLease,
		About:     "a fair lock grants in the order requests reached Redis (a waiter is never passed)",
		NotJudged: unless(func(c Config) bool { return c.Fair }, "the design promises no grant order"),
		Check:     func(ix *history.Index, _ Config) []Violation { return checkFIFO(ix) }},
	{ID: RWExclusion, Code: "RW", Harm: HarmLease, Window: WindowOverlap,
		About:     "a read-write lock holds many readers or one writer, never a writer with anyone else",
		NotJudged: unless(func(c Config) bool { return c.Shared }, "the design takes no shared holds"),
		Check:     func(ix *history.Index, _ Config) []Violation { return checkRWExclusion(ix) }},
	{ID: PrematureLoss, Code: "PL", Harm: HarmLease,
		About:     "a holder told its lease is valid keeps it until that validity runs out or it releases (no fault ending leases acting)",
		NotJudged: unless(func(c Config) bool { return c.Validity }, "the design promises its holder no validity: it trusts the lease until release"),
		Check:     checkPrematureLoss},
	{ID: AcquireDeadline, Code: "AD", Harm: HarmLiveness,
		About:     "an acquisition given a deadline returns by it, within the design's tolerance (paused time and time waiting on Redis left out)",
		NotJudged: unless(func(c Config) bool { return c.AcquireTolerance > 0 }, "the design declares no tolerance for its acquire deadline"),
		Check:     checkAcquireDeadline},
	{ID: Available, Code: "AV", Harm: HarmLiveness,
		About:     "while only faults the design tolerates are active (a minority of a quorum lock's masters; a failover Sentinel makes of one primary), a wanted lock nobody holds is acquired in time",
		NotJudged: unless(func(c Config) bool { return c.AvailableBound > 0 && len(c.Masters) > 0 }, "the design claims to tolerate no fault"),
		Check:     checkAvailable},
}

// always is NotJudged for an invariant every run judges.
func always(Config) string { return "" }

// writes is NotJudged for an invariant that judges writes: not judged
// when no client writes.
var writes = unless(func(c Config) bool { return !c.NoWrites }, "no client writes: every client reads under a shared hold")

// unless is NotJudged for an invariant judged when the config says so.
func unless(judged func(Config) bool, why string) func(Config) string {
	return func(c Config) string {
		if judged(c) {
			return ""
		}
		return why
	}
}

// All lists the invariants in report order (Registry's IDs).
var All = func() []ID {
	ids := make([]ID, len(Registry))
	for i, in := range Registry {
		ids[i] = in.ID
	}
	return ids
}()

var byID = sync.OnceValue(func() map[ID]Info {
	m := make(map[ID]Info, len(Registry))
	for _, in := range Registry {
		m[in.ID] = in
	}
	return m
})

// Lookup returns the registry entry of id.
func Lookup(id ID) (Info, bool) {
	in, ok := byID()[id]
	return in, ok
}

// HarmOf returns what breaking id costs (HarmNone for an unknown ID).
func HarmOf(id ID) Harm { return byID()[id].Harm }

// AboutOf says in one line what id asks ("" for an unknown ID).
func AboutOf(id ID) string { return byID()[id].About }

// CodeOf is id's two-letter matrix code, and false for an ID the registry
// does not know.
func CodeOf(id ID) (string, bool) {
	in, ok := byID()[id]
	return in.Code, ok
}
