package history

import (
	"strings"
	"time"

	"locksim/sim"
)

// The lock protocol's events reuse sim.Event's generic fields (N, Dur,
// Note), whose meaning depends on the kind. The views below give each
// meaning its own name, so a reader says what it reads (a hold count, a
// lease left) instead of which field holds it; the event's stored and
// printed form (Line, JSON, Hash) is the same as before. Convert an event
// of the view's kind: Acquired(e).HoldCount().

// Acquired is an acquired event read by meaning.
type Acquired sim.Event

// HoldCount is the hold count the acquisition left: 1 starts a critical
// section, above 1 is a nested hold of a reentrant lock.
func (a Acquired) HoldCount() int64 { return a.N }

// LeaseLeft is the lease the client believes it has from this instant, on
// its monotonic clock (its wall clock when Wall): 0 when it trusts the
// lease until it releases, below 0 when the validity its lock reported was
// already spent by -LeaseLeft.
func (a Acquired) LeaseLeft() time.Duration { return a.Dur }

// Shared reports a shared hold (a read lock): other shared holds may
// overlap it.
func (a Acquired) Shared() bool { return hasFlag(a.Note, flagShared) }

// Wall reports a lease the client budgets on its wall clock (which its
// clock-jump events step), for this acquisition and its renewals.
func (a Acquired) Wall() bool { return hasFlag(a.Note, flagWall) }

// HoldFlags are the typed flags of an acquired event.
type HoldFlags struct {
	// Shared: a shared hold (Acquired.Shared).
	Shared bool
	// Wall: the lease runs on the client's wall clock (Acquired.Wall).
	Wall bool
}

// Note is the flags' stored form, the acquired event's Note: the flag
// words, space-separated, "" for none.
func (f HoldFlags) Note() string {
	var ws []string
	if f.Shared {
		ws = append(ws, flagShared)
	}
	if f.Wall {
		ws = append(ws, flagWall)
	}
	return strings.Join(ws, " ")
}

// The flag words of an acquired event's Note (HoldFlags.Note).
const (
	flagShared = "shared"
	flagWall   = "wall"
)

func hasFlag(note, flag string) bool {
	for f := range strings.FieldsSeq(note) {
		if f == flag {
			return true
		}
	}
	return false
}

// Renew is a renew event (a watchdog renewal came back) read by meaning.
type Renew sim.Event

// Extended reports that the node extended the lease.
func (r Renew) Extended() bool { return r.N == 1 }

// LeaseLeft is the lease the client believes it has left after the
// renewal, as for Acquired.LeaseLeft; 0 when the client did not believe
// the renewal.
func (r Renew) LeaseLeft() time.Duration { return r.Dur }

// Release is a release event (the client invokes release) read by meaning.
type Release sim.Event

// HoldsLeft is the hold count after the release: 0 ends the critical
// section, above 0 gives back one nested hold.
func (r Release) HoldsLeft() int64 { return r.N }

// AcquireStart is an acquire-start event read by meaning.
type AcquireStart sim.Event

// MaxWait is how long the acquisition may wait.
func (a AcquireStart) MaxWait() time.Duration { return a.Dur }

// ValueOf is the resource value a read, write, res-read or res-write event
// carries: the value read, written or served (their N).
func ValueOf(e sim.Event) int64 { return e.N }

// LeaseLeft is the lease left of an acquired or renew event
// (Acquired.LeaseLeft, Renew.LeaseLeft), for readers that take either.
func LeaseLeft(e sim.Event) time.Duration { return e.Dur }
