// Package fieldbugs retells lock bugs reported from the field as small
// go-redis v9 lock libraries, each with a switch for the bug: Options.Buggy
// builds the library as it was reported, the zero Options the fixed one.
// Every file cites its sources by public URL and says the mechanism in
// plain words; the code is written for this corpus, not copied.
//
// The libraries are ordinary production code: no simulation hooks,
// extension goroutines are plain goroutines on time.Timer, lock values
// come from crypto/rand. locksim's realclient runs them unmodified in its
// simulated world (realclient/libs/fieldbugs_test.go): for each bug the buggy
// build breaks an invariant under a schedule of at most two faults and
// the fixed build keeps them all under the same fault model.
//
// SharedOwner (sharedowner.go) is of another kind: a bug between two
// goroutines of one process, run with realclient.WithGoroutines
// (realclient/libs/goroutines_test.go); it retells a class of bug, named
// in its comment, rather than one report, so it cites no URL. ClientOwner
// (clientowner.go) is its variant keyed by the *redis.Client: it breaks
// only when the goroutines share one client (realclient.Env.SharedClients).
//
// Every library implements Lock(ctx) and Unlock(ctx) (realclient.Lock)
// and Value() (realclient.Valuer); some also Until() (the validity the
// library computed), IsAcquired() or Extend(ctx).
package fieldbugs

import (
	"context"
	"time"

	"github.com/pkg/errors"
)

// Options builds one library.
type Options struct {
	// Buggy builds the library with the reported bug; false builds the fix.
	Buggy bool
}

// PollEvery is how often Lock tries again while the key is taken.
const PollEvery = 20 * time.Millisecond

// ErrNotObtained is returned by Lock when ctx ends before the key was free.
var ErrNotObtained = errors.New("fieldbugs: lock not obtained")

// ErrNotHeld is returned when the key no longer holds this holder's value
// (it expired, or another holder has it).
var ErrNotHeld = errors.New("fieldbugs: lock not held")

// wait sleeps d or until ctx ends.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
