package logcheck

import (
	"bufio"
	"io"
	"strings"
	"time"

	"locksim/clock"
	"locksim/model/history"
	"locksim/sim"
)

// Export writes a simulated history in the format, keeping only what a
// wrapper around each client's lock calls would log: its acquisitions
// (acquire-attempt with the call's deadline if it had one, granted with the token and the validity its lock call
// reported, refused), renewals that reported success, releases, the
// leases it found lost, and the replies to its writes on the fenced
// resource (write, write-rejected). No node's state, no fault, no message
// is written. Each simulated client is its own host. Times are the
// simulation's true time from clock.Epoch, as a host with a perfectly set
// clock would stamp them: check such a file with --skew 0, or with a
// bound to see what a real clock's offset could hide or suggest.
//
// Two things a wrapper cannot see and the export still writes, both as
// lost events: a client's crash (its process, and with it its belief,
// died: a real service shows this as its log stopping) and the end of the
// task that held the lock. Shared (read) holds and nested reentrant holds
// are not written: the format has neither.
func Export(w io.Writer, h sim.History) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	holding := map[string]string{} // client -> value of its open exclusive hold
	holdTask := map[string]string{}
	key := map[string]string{}     // client -> key of its open hold
	prepared := map[string]int64{} // client -> time of its last prepared write
	emit := func(e Event) {
		buf = AppendJSON(buf[:0], e)
		bw.Write(buf)
	}
	at := func(d time.Duration) int64 { return clock.Epoch.Add(d).UnixNano() }
	end := func(e sim.Event, client, cause string) {
		if v, ok := holding[client]; ok {
			emit(Event{Time: at(e.At), Host: client, Client: client, Key: key[client], Kind: Lost, Value: v, Cause: cause})
			delete(holding, client)
		}
	}
	for _, e := range h {
		base := Event{Time: at(e.At), Host: e.Actor, Client: e.Actor, Key: e.Key, Value: e.Value}
		switch e.Kind {
		case history.KindAcquireStart:
			base.Kind = AcquireAttempt
			if e.Dur > 0 { // the call's deadline: how long it may wait
				base.Deadline = e.Dur
			}
			emit(base)
		case history.KindAcquired:
			a := history.Acquired(e)
			if a.Shared() || a.HoldCount() != 1 {
				continue
			}
			base.Kind, base.Token = Granted, e.Token
			left := a.LeaseLeft()
			if left > 0 {
				base.Validity = left
			}
			emit(base)
			holding[e.Actor], key[e.Actor], holdTask[e.Actor] = e.Value, e.Key, e.Task
			if left < 0 {
				// the validity was spent before the client heard of the grant
				end(e, e.Actor, CauseExpired)
			}
		case history.KindAcquireFailed:
			base.Kind = Refused
			emit(base)
		case history.KindRenew:
			r := history.Renew(e)
			if _, ok := holding[e.Actor]; ok && r.Extended() && r.LeaseLeft() > 0 {
				base.Kind, base.Validity, base.Key = Renewed, r.LeaseLeft(), key[e.Actor]
				emit(base)
			} else if ok && !r.Extended() && strings.HasPrefix(e.Note, "returned 0") {
				// The store answered that the key is not the client's:
				// the library reports the lease lost.
				end(e, e.Actor, CauseRefused)
			}
		case history.KindRelease:
			if history.Release(e).HoldsLeft() <= 0 {
				if _, ok := holding[e.Actor]; ok {
					base.Kind = Released
					emit(base)
					delete(holding, e.Actor)
				}
			}
		case history.KindLeaseLost:
			end(e, e.Actor, CauseUnknown)
		case sim.KindCrash:
			end(e, e.Actor, CauseEnded)
		case sim.KindTaskEnd:
			if t, ok := holdTask[e.Actor]; ok && (t == e.Task || t == "" && e.Task == "main" || t == "main" && e.Task == "") {
				end(e, e.Actor, CauseEnded)
			}
		case history.KindWrite:
			prepared[e.Actor] = at(e.At)
		case history.KindResWrite:
			client := e.Peer
			k := Write
			if e.Reply != "(integer) 1" {
				k = WriteRejected
			}
			wk := key[client]
			if wk == "" {
				wk = "lock"
			}
			emit(Event{Time: at(e.At), Host: client, Client: client, Key: wk, Kind: k, Token: e.Token, Value: e.Value, Sent: prepared[client]})
		}
	}
	return bw.Flush()
}
