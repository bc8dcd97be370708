// Package locklog writes the lock log that `locksim check-log` judges
// (docs/check-log.md in the locksim repository): a service wraps its lock
// calls with it, and each call's outcome becomes one JSON line, stamped
// with the host's clock.
//
// It has no dependencies beyond the standard library and does not import
// locksim. Any lock fits behind Locker (a go-redis lock, redsync, a
// Redisson-style watchdog lock, an etcd lease): three methods, each a thin
// adapter over the library's own calls. Writes to the protected resource
// are logged with Log.Write, so that fencing can be judged.
//
//	lg := locklog.New(file, "web-1", "web-1/pid-4711")
//	lock := lg.Wrap(myLocker)
//	g, err := lock.Acquire(ctx, "orders")
//	...
//	lg.Write("orders", g, func() (bool, error) { return db.UpdateIfToken(g.Token, row) })
//	lock.Release(ctx, "orders", g)
package locklog

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"
)

// Grant is what a successful acquisition returned.
type Grant struct {
	// Token is the fencing token, 0 for none.
	Token int64
	// Value is the acquisition's random lock value, "" if the lock has none.
	Value string
	// Validity is how long from the call's return the lock says the lease
	// lasts, 0 when the caller trusts it until it releases.
	Validity time.Duration
}

// Locker is the lock a service uses, behind three calls.
type Locker interface {
	// Acquire takes the key; an error means it was not acquired.
	Acquire(ctx context.Context, key string) (Grant, error)
	// Renew extends the lease and returns the new validity. It returns an
	// error wrapping ErrLost when the lease is gone; any other error leaves
	// the outcome unknown (nothing is logged: the belief runs out on its
	// validity).
	Renew(ctx context.Context, key string, g Grant) (time.Duration, error)
	// Release gives the key back.
	Release(ctx context.Context, key string, g Grant) error
}

// ErrLost is what a Locker's Renew wraps when the lease is gone.
var ErrLost = errors.New("lease lost")

// Log writes one host's and one client's events. It is safe for
// concurrent use; events of one Log are written in the order they happen.
type Log struct {
	mu     sync.Mutex
	w      io.Writer
	host   string
	client string
	buf    []byte
	err    error
	// Now stamps events; time.Now by default (a test sets its own).
	Now func() time.Time
}

// New returns a Log writing to w for a client (one process or thread; a
// restarted process should take a new name) on a host (whose clock stamps
// the events).
func New(w io.Writer, host, client string) *Log {
	return &Log{w: w, host: host, client: client, Now: time.Now}
}

// Err returns the first error writing the log; later events are dropped.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// event is one line of the format.
type event struct {
	kind, key, value string
	token            int64
	validity         time.Duration
	deadline         time.Duration // acquire-attempt: how long the call may wait
	cause            string        // lost: how the client learnt
	at, sent         time.Time
}

func (l *Log) emit(e event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	b := append(l.buf[:0], `{"time":"`...)
	b = e.at.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","host":`...)
	b = appendString(b, l.host)
	b = append(b, `,"client":`...)
	b = appendString(b, l.client)
	b = append(b, `,"key":`...)
	b = appendString(b, e.key)
	b = append(b, `,"kind":"`...)
	b = append(b, e.kind...)
	b = append(b, '"')
	if e.token != 0 {
		b = append(b, `,"token":`...)
		b = strconv.AppendInt(b, e.token, 10)
	}
	if e.value != "" {
		b = append(b, `,"value":`...)
		b = appendString(b, e.value)
	}
	if e.validity > 0 {
		b = append(b, `,"validity":"`...)
		b = append(b, e.validity.String()...)
		b = append(b, '"')
	}
	if e.cause != "" {
		b = append(b, `,"cause":"`...)
		b = append(b, e.cause...)
		b = append(b, '"')
	}
	if e.deadline > 0 {
		b = append(b, `,"deadline":"`...)
		b = append(b, e.deadline.String()...)
		b = append(b, '"')
	}
	if !e.sent.IsZero() {
		b = append(b, `,"sent":"`...)
		b = e.sent.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	b = append(b, "}\n"...)
	l.buf = b
	_, l.err = l.w.Write(b)
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// Wrap returns lk with every call logged: acquire-attempt before Acquire
// (with the context's deadline, if it has one, as how long the call may
// wait),
// then granted (token, value, validity) or refused; released as Release
// is invoked (the belief ends when the caller gives the key up, whatever
// the reply); renewed after a successful Renew, lost after one that
// reports ErrLost (with cause "refused").
func (l *Log) Wrap(lk Locker) Locker { return &wrapped{l: l, lk: lk} }

type wrapped struct {
	l  *Log
	lk Locker
}

func (w *wrapped) Acquire(ctx context.Context, key string) (Grant, error) {
	start := w.l.Now()
	att := event{kind: "acquire-attempt", key: key, at: start}
	if d, ok := ctx.Deadline(); ok {
		// The call's deadline, as how long it may wait: check-log judges
		// acquire-deadline by it. A deadline already passed logs none.
		att.deadline = d.Sub(start)
	}
	w.l.emit(att)
	g, err := w.lk.Acquire(ctx, key)
	now := w.l.Now()
	if err != nil {
		w.l.emit(event{kind: "refused", key: key, at: now})
		return g, err
	}
	w.l.emit(event{kind: "granted", key: key, token: g.Token, value: g.Value, validity: g.Validity, at: now})
	return g, nil
}

func (w *wrapped) Renew(ctx context.Context, key string, g Grant) (time.Duration, error) {
	v, err := w.lk.Renew(ctx, key, g)
	now := w.l.Now()
	switch {
	case err == nil:
		w.l.emit(event{kind: "renewed", key: key, value: g.Value, validity: v, at: now})
	case errors.Is(err, ErrLost):
		// The lock said the lease is gone: the store's word (cause
		// refused), which check-log's premature-loss judges.
		w.l.emit(event{kind: "lost", key: key, value: g.Value, cause: "refused", at: now})
	}
	return v, err
}

func (w *wrapped) Release(ctx context.Context, key string, g Grant) error {
	w.l.emit(event{kind: "released", key: key, value: g.Value, at: w.l.Now()})
	return w.lk.Release(ctx, key, g)
}

// Lost records that the caller found its lease gone by other means (a
// check before writing): its belief ends here.
func (l *Log) Lost(key string, g Grant) {
	l.emit(event{kind: "lost", key: key, value: g.Value, at: l.Now()})
}

// Write runs one write to the protected resource under grant g and logs
// its outcome: write when do reports it accepted, write-rejected when the
// resource refused it (a fence); nothing when do fails (the outcome is
// unknown). The log carries when the write was sent and when the answer
// came, the window in which the resource applied it.
func (l *Log) Write(key string, g Grant, do func() (accepted bool, err error)) (bool, error) {
	sent := l.Now()
	ok, err := do()
	if err != nil {
		return ok, err
	}
	kind := "write"
	if !ok {
		kind = "write-rejected"
	}
	l.emit(event{kind: kind, key: key, token: g.Token, value: g.Value, at: l.Now(), sent: sent})
	return ok, nil
}
