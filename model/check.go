package model

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/sim"
)

// CheckConfig tells the checkers what the run promised.
type CheckConfig struct {
	// Fencing is the resource variant (strict, nonstrict, off). With off
	// (or empty, which the resource treats as off) the resource makes no
	// token promise, so the token-order checker does not judge which
	// tokens it accepted.
	Fencing Fencing
	// Quorum is how many of the nodes that granted a lease must still hold
	// it for the lease to be alive: 1 for single-node designs, N/2+1 for
	// redlock. 0 means 1.
	Quorum int
	// LivenessBound is how long (true time) after the last fault heals
	// some client must acquire; 0 disables the liveness check.
	LivenessBound time.Duration
	// Reentrant enables the reentrant hold-count check.
	Reentrant bool
}

// MaxViolationsPerInvariant caps how many violations one invariant
// reports, so output stays readable; the earliest are kept.
const MaxViolationsPerInvariant = 5

// Check runs every invariant checker on a history and returns what they
// found, sorted by From, then Invariant, then Clients, at most
// MaxViolationsPerInvariant per invariant. It reads only the history, so a
// history saved as JSON can be re-checked.
//
// The event fields the checkers rely on:
//
//   - acquire-start: Actor, Task, Value (pairs it with its acquired), Key.
//   - acquired: Actor, Task, Key, Value, Token, Peer (granting nodes,
//     comma-separated), N (hold count; N <= 1 opens a critical section).
//   - acquire-failed: Actor. release: Actor, N (N <= 0 closes the section).
//   - write: Actor, Value, Token, N (fallback for the new resource value).
//   - res-read: Peer, N. res-write: Peer, Value, Token, N (1 accepted, 0
//     rejected), Note "value=<n>" on accepted writes.
//   - key / expire (nodes): Actor, Key, Value, Note (cause), Dur (TTL),
//     Local (node clock); exec: Actor, Peer, Args (who deleted a key).
//   - pause, resume, crash, restart, task-end (Task), node-crash, node-up,
//     partition, heal, net-delay, net-drop, clock-jump (Dur), clock-drift
//     (N), evict, promote, demote: Actor, At.
func Check(h sim.History, cfg CheckConfig) []Violation {
	ix := newIndex(h)
	var vs []Violation
	vs = append(vs, checkMutex(ix)...)
	vs = append(vs, checkStale(ix, cfg)...)
	vs = append(vs, checkLostUpdate(ix)...)
	vs = append(vs, checkTokens(ix, cfg)...)
	if cfg.LivenessBound > 0 {
		vs = append(vs, checkLiveness(ix, cfg.LivenessBound)...)
	}
	if cfg.Reentrant {
		vs = append(vs, checkReentrancy(ix)...)
	}
	sortViolations(vs)
	return capViolations(vs, MaxViolationsPerInvariant)
}

// Only keeps the violations of the given invariants (all when none given),
// for callers that ask a narrower question ("did the data survive?").
func Only(vs []Violation, invariants []string) []Violation {
	if len(invariants) == 0 {
		return vs
	}
	var out []Violation
	for _, v := range vs {
		if slices.Contains(invariants, v.Invariant) {
			out = append(out, v)
		}
	}
	return out
}

// ParseInvariants parses a comma-separated list of invariant IDs.
func ParseInvariants(list string) ([]string, error) {
	var out []string
	for _, inv := range strings.Split(list, ",") {
		if inv = strings.TrimSpace(inv); inv == "" {
			continue
		}
		if !slices.Contains(Invariants, inv) {
			return nil, errors.Errorf("model: unknown invariant %q (known: %s)", inv, strings.Join(Invariants, ","))
		}
		out = append(out, inv)
	}
	if len(out) == 0 {
		return nil, errors.New("model: the invariant list names none")
	}
	return out, nil
}

// Broken returns the distinct invariant IDs of vs, sorted.
func Broken(vs []Violation) []string {
	var ids []string
	for _, v := range vs {
		ids = append(ids, v.Invariant)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// sortViolations orders vs by From, then Invariant, then Clients; the sort
// is stable, so ties keep the checkers' own (history) order.
func sortViolations(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		return cmp.Or(
			cmp.Compare(a.From, b.From),
			cmp.Compare(a.Invariant, b.Invariant),
			slices.Compare(a.Clients, b.Clients),
		)
	})
}

// capViolations keeps the first max violations of each invariant.
func capViolations(vs []Violation, max int) []Violation {
	seen := map[string]int{}
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
