package realclient

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

// Resource is a client's handle on the fenced resource (model.Resource,
// the endpoint "resource") during one hold of the lock: reads and writes
// travel as messages through the simulated network and are recorded as
// the catalogue's workload records them.
type Resource struct {
	p       *xproc
	timeout time.Duration
	key     string
	// Token is the hold's fencing token (0: none), Value its lock value.
	Token int64
	Value string
	// Lock is the process's lock, for a section that checks it (Until)
	// or extends it as the user's code does in production.
	Lock Lock
	// version is the row version the last read returned (the version
	// fencing rule), -1 for none; the next write carries it.
	version int64
	// declared is the deadline the library declares (model.Options.Deadline)
	// when the Lock reports none itself; nil otherwise.
	declared Validity
}

// Read reads the counter (with the token under strict-reads fencing) and
// records a read event; under version fencing it keeps the row version the
// resource returned for the next Write.
func (r *Resource) Read(ctx context.Context) (int64, error) {
	args := []string{"READ"}
	if r.Token != 0 {
		args = append(args, strconv.FormatInt(r.Token, 10))
	}
	rep, err := r.p.call(model.ResourceName, r.timeout, args...)
	if err != nil {
		return 0, err
	}
	v, version := rep.Int, int64(-1)
	switch {
	case rep.Kind == resp.Int:
	case rep.Kind == resp.Array && len(rep.Elems) == 2 && rep.Elems[0].Kind == resp.Int && rep.Elems[1].Kind == resp.Int:
		v, version = rep.Elems[0].Int, rep.Elems[1].Int // version fencing: [value, version]
	default:
		return 0, errors.Errorf("resource read: %s", rep.String())
	}
	r.version = version
	r.p.record(sim.Event{Kind: history.KindRead, N: v})
	return v, nil
}

// Write records a write event and writes n with the hold's token (and the
// version the last Read returned); it reports whether the resource accepted
// it (its fencing rule decides).
func (r *Resource) Write(ctx context.Context, n int64) (bool, error) {
	r.p.record(sim.Event{Kind: history.KindWrite, Key: r.key, Value: r.Value, Token: r.Token, N: n})
	args := []string{"WRITE", strconv.FormatInt(r.Token, 10), r.Value, strconv.FormatInt(n, 10)}
	if r.version >= 0 {
		args = append(args, "VERSION", strconv.FormatInt(r.version, 10))
	}
	rep, err := r.p.call(model.ResourceName, r.timeout, args...)
	if err != nil {
		return false, err
	}
	return rep.Kind == resp.Int && rep.Int == 1, nil
}

// Sleep works for d of the client's time. Unlike time.Sleep, a pause of
// the process holds it: it returns only after the process resumes.
func (r *Resource) Sleep(d time.Duration) { r.p.sleep(d) }

// CriticalSection is a user's own critical section, run instead of the
// standard read-modify-write while the client holds the lock. Use r for
// every access to the protected resource, and r.Sleep to work. The
// lost-update checker reads each accepted write as an increment of one of
// the value its writer last read: write Read()+1.
type CriticalSection func(ctx context.Context, r *Resource) error

// readModifyWrite is the standard critical section, as the catalogue's
// workload: read, work, then, as the caller model checks, write value+1:
// CallerValidity asks the lock's Until right before the write,
// CallerCareful its own lease clock, CallerTrusting nothing.
func readModifyWrite(work time.Duration, caller Caller, lease *leaseClock) CriticalSection {
	return func(ctx context.Context, r *Resource) error {
		v, err := r.Read(ctx)
		if err != nil {
			r.p.record(sim.Event{Kind: history.KindLeaseLost, Key: r.key, Value: r.Value, Note: "read failed; not writing"})
			return nil
		}
		r.Sleep(work)
		switch caller {
		case CallerValidity:
			// The library first, then the clock, as a user's caller
			// does: an Until that asks Redis takes time.
			l, ok := r.Lock.(Validity)
			if !ok && r.declared != nil {
				l, ok = r.declared, true
			}
			if ok && !validNow(l) {
				r.p.record(sim.Event{Kind: history.KindLeaseLost, Key: r.key, Value: r.Value, Note: "the lock's validity (Until) had passed before the write: not writing"})
				return nil
			}
		case CallerCareful:
			if lease.lapsed(time.Now()) {
				r.p.record(sim.Event{Kind: history.KindLeaseLost, Key: r.key, Value: r.Value, Note: "lease ran out on the client's clock before the write: not writing"})
				return nil
			}
		}
		_, _ = r.Write(ctx, v+1)
		return nil
	}
}

// validNow asks the lock until when its hold is valid, then reads the
// clock: an Until that queries Redis (a PTTL round trip) must be compared
// with the time it answered, not the time it was asked.
func validNow(l Validity) bool {
	until := l.Until()
	return time.Now().Before(until)
}

// leaseClock is CallerCareful's own idea of when its lease ends: the
// validity the lock reported at acquisition, moved forward by each
// successful extension. A lease that has lapsed on the client's clock
// stays lapsed even if a later extension succeeds (the watchdog records
// such a renewal as not believed). The zero deadline means the lock
// reports no validity and the client never gives up on its own.
type leaseClock struct {
	deadline atomic.Int64 // UnixNano on the bubble's clock; 0 = unknown
}

func newLeaseClock(deadline time.Time) *leaseClock {
	l := &leaseClock{}
	if !deadline.IsZero() {
		l.deadline.Store(deadline.UnixNano())
	}
	return l
}

// extend moves the deadline to until unless the lease had already
// lapsed at now.
func (l *leaseClock) extend(now, until time.Time) {
	d := l.deadline.Load()
	if d == 0 || now.UnixNano() >= d {
		return
	}
	l.deadline.Store(until.UnixNano())
}

// lapsed reports whether the lease has run out at now.
func (l *leaseClock) lapsed(now time.Time) bool {
	d := l.deadline.Load()
	return d != 0 && now.UnixNano() >= d
}
