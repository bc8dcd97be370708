package serve

import (
	"bytes"
	"io"
	"os"
	"sync"
	"time"

	"locksim/logcheck"
	"locksim/model/history"
	"locksim/sim"
)

// simKinds maps the check-log kinds a client writes to the history kinds
// the world records them as: a fault line's trigger may name either
// ("after A granted" is "after A acquired").
var simKinds = map[logcheck.Kind]sim.Kind{
	logcheck.AcquireAttempt: history.KindAcquireStart,
	logcheck.Granted:        history.KindAcquired,
	logcheck.Refused:        history.KindAcquireFailed,
	logcheck.Renewed:        history.KindRenew,
	logcheck.Released:       history.KindReleased,
	logcheck.Lost:           history.KindLeaseLost,
	logcheck.Write:          history.KindWrite,
	logcheck.WriteRejected:  history.KindWrite,
}

// triggerKinds are the kinds a trigger may name, both spellings.
func triggerKind(k sim.Kind) (sim.Kind, bool) {
	if s, ok := simKinds[logcheck.Kind(k)]; ok {
		return s, true
	}
	for _, s := range simKinds {
		if s == k {
			return s, true
		}
	}
	return "", false
}

// pauseTrigger is a pause fault waiting for its client's event.
type pauseTrigger struct {
	f    sim.Fault
	kind sim.Kind
	seen int
	done bool
}

// logWatch follows one client's log file.
type logWatch struct {
	mu     sync.Mutex
	client string
	path   string
	f      *os.File
	buf    []byte
	n      int
}

// WatchLog follows the check-log file a client writes, as it grows: each
// event is recorded in the world as the client's (so the endpoint's
// history has what the workload reported, and fault triggers such as
// "after A granted +100ms" fire on it). It stops when the endpoint
// closes. Lines that do not parse are left to the judgement after the
// run, which reports them.
func (e *Endpoint) WatchLog(client, path string) {
	lw := &logWatch{client: client, path: path}
	e.mu.Lock()
	e.watches[client] = lw
	e.mu.Unlock()
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-e.done:
				lw.mu.Lock()
				if lw.f != nil {
					lw.f.Close()
				}
				lw.mu.Unlock()
				return
			case <-tick.C:
			}
			e.drain(lw)
		}
	}()
}

// drain reads what the client has added to its log and posts each event.
func (e *Endpoint) drain(lw *logWatch) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.f == nil {
		f, err := os.Open(lw.path)
		if err != nil {
			return
		}
		lw.f = f
	}
	chunk, _ := io.ReadAll(io.LimitReader(lw.f, 1<<20))
	lw.buf = append(lw.buf, chunk...)
	for {
		i := bytes.IndexByte(lw.buf, '\n')
		if i < 0 {
			break
		}
		line := lw.buf[:i]
		lw.buf = lw.buf[i+1:]
		lw.n++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ev, err := logcheck.ParseLine(line, lw.path, lw.n)
		if err != nil || ev.Client != lw.client {
			continue
		}
		if !e.post(func() { e.reported(lw.client, ev) }) {
			return
		}
	}
	if len(lw.buf) > 64<<10 {
		lw.buf = nil // a line longer than the format allows: judged after the run
	}
}

// reported records a client's reported event and fires the pauses it
// triggers. World goroutine.
func (e *Endpoint) reported(client string, ev logcheck.Event) {
	k := simKinds[ev.Kind]
	if x := e.xs[client]; x != nil && !e.w.Done() && k != "" && !e.exited[client] {
		x.Record(sim.Event{Kind: k, Key: ev.Key, Value: ev.Value, Token: ev.Token, Note: "reported by the client: " + string(ev.Kind)})
	}
	for _, t := range e.triggers {
		if t.done || t.f.After.Actor != client || t.kind != k {
			continue
		}
		t.seen++
		if t.seen < max(t.f.After.Nth, 1) {
			continue
		}
		t.done = true
		f := t.f
		f.At += e.now()
		f.After = nil
		e.schedulePause(f)
	}
}
