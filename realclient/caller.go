package realclient

import (
	"github.com/pkg/errors"
)

// Caller is how the code around the lock decides, in production, whether
// it still holds the lock: what the standard critical section checks
// right before it writes, and so what the history records as the client's
// belief (the acquired and renew events' Dur), which mutual exclusion
// judges. The harness must never be more careful than the user's caller:
// pick the one that matches your code (WithCaller).
type Caller string

// The caller models.
const (
	// CallerValidity, the default, trusts what the library reports: it
	// asks the lock's Validity (Until) right before writing and does not
	// write once it has passed; a lease the library reports extended
	// (a successful Extend) is held again, even after it had run out.
	// Without Validity it trusts the lock until Unlock.
	CallerValidity Caller = "validity"
	// CallerTrusting checks nothing: it writes whenever Lock returned nil,
	// until Unlock.
	CallerTrusting Caller = "trusting"
	// CallerCareful keeps its own lease clock from the validity the lock
	// reported at acquisition, moved forward by each extension reported
	// before it ran out; once it has run out, it stays out, whatever a
	// later extension reports (package model's workload does the same).
	CallerCareful Caller = "careful"
)

// Callers lists the caller models.
var Callers = []Caller{CallerValidity, CallerTrusting, CallerCareful}

// WithCaller chooses the caller model (default CallerValidity).
func WithCaller(c Caller) Option { return func(cfg *config) { cfg.caller = c } }

// LockErrorPolicy is what the caller does when Lock returns an error.
type LockErrorPolicy string

// The policies.
const (
	// LockErrorSkip, the default, skips the critical section and goes on
	// to its next cycle.
	LockErrorSkip LockErrorPolicy = "skip"
	// LockErrorProceed runs the critical section anyway (fail-open code: a
	// lost SET NX reply, then the job runs unlocked). The section counts
	// as a hold the client did not get: acquired with the note "unlocked",
	// trusted until the release.
	LockErrorProceed LockErrorPolicy = "proceed"
	// LockErrorRetry calls Lock again at once, with a fresh acquisition,
	// at most MaxLockRetries times in a cycle, then skips.
	LockErrorRetry LockErrorPolicy = "retry"
)

// MaxLockRetries bounds LockErrorRetry's calls of Lock in one cycle.
const MaxLockRetries = 10

// WithOnLockError chooses what the caller does when Lock returns an error
// (default LockErrorSkip).
func WithOnLockError(p LockErrorPolicy) Option { return func(cfg *config) { cfg.onLockError = p } }

func validateCaller(c Caller, p LockErrorPolicy) error {
	switch c {
	case CallerValidity, CallerTrusting, CallerCareful:
	default:
		return errors.Errorf("unknown caller model %q (validity, trusting, careful)", c)
	}
	switch p {
	case LockErrorSkip, LockErrorProceed, LockErrorRetry:
	default:
		return errors.Errorf("unknown lock error policy %q (skip, proceed, retry)", p)
	}
	return nil
}
