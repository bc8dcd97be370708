package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Event is one entry of a run's history. At and Seq order every event of a
// run totally; the other fields are optional and zero when unused.
type Event struct {
	// Seq is the event's position in the history, from 0.
	Seq int `json:"seq"`
	// At is the true (simulation) time of the event.
	At time.Duration `json:"at_ns"`
	// Actor is who did it: a client process ("A"), a Redis node ("r1"), a
	// service ("resource"), "sentinel", or "fault" for fault bookkeeping.
	Actor string `json:"actor"`
	// Task names the coroutine within a client process ("main", "watchdog").
	Task string `json:"task,omitempty"`
	// Kind says what happened; Kinds (sim's) and history.Kinds (the lock
	// protocol's) document every kind: who records it and which fields it
	// uses.
	Kind Kind `json:"kind"`
	// Local is the actor's own clock at the event: a client's monotonic
	// reading, a node's wall clock as a duration since clock.Epoch.
	Local time.Duration `json:"local_ns"`
	// Peer is the other party: the node a client called, the client a node
	// served, the target of a fault.
	Peer string `json:"peer,omitempty"`
	// Args is a command and its arguments.
	Args []string `json:"args,omitempty"`
	// Reply is a rendered reply (resp.Reply.String) or an error text.
	Reply string `json:"reply,omitempty"`
	// Key and Value name a lock key and its random value.
	Key   string `json:"key,omitempty"`
	Value string `json:"value,omitempty"`
	// Token is a fencing token (0 when none).
	Token int64 `json:"token,omitempty"`
	// N is a count or value whose meaning depends on Kind: a resource
	// value, rows affected, a reentrant hold count, a replication offset,
	// a rate in ppm. The kind tables say which; readers of the lock
	// protocol's events read it by name through package history's views
	// (history.Acquired(e).HoldCount(), history.ValueOf).
	N int64 `json:"n,omitempty"`
	// Dur is a length of time whose meaning depends on Kind: a pause, a
	// partition, a lease left (history.Acquired.LeaseLeft), a jump.
	Dur time.Duration `json:"dur_ns,omitempty"`
	// Note is free text for people (e.g. the cause of a lost message),
	// except on an acquired event, where it stores the hold's flags
	// (history.HoldFlags; read them with history.Acquired.Shared and
	// Wall).
	Note string `json:"note,omitempty"`
}

// History is the ordered list of events of one run.
type History []Event

// FormatTime renders a true or local time as seconds with microsecond
// precision, the form used in every text output: "1.050000s".
func FormatTime(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	us := int64(d / time.Microsecond)
	s := strconv.FormatInt(us/1_000_000, 10) + "." + fmt.Sprintf("%06d", us%1_000_000) + "s"
	if neg {
		return "-" + s
	}
	return s
}

// Line renders one event as a stable single line.
func (e Event) Line() string {
	var b strings.Builder
	e.writeLine(&b, false)
	return b.String()
}

func (e Event) writeLine(b *strings.Builder, exact bool) {
	t := FormatTime(e.At)
	if exact {
		t = strconv.FormatInt(int64(e.At), 10)
	}
	fmt.Fprintf(b, "%s %-9s %-14s", t, e.actorName(), string(e.Kind))
	if e.Peer != "" {
		b.WriteString(" peer=")
		b.WriteString(e.Peer)
	}
	if len(e.Args) > 0 {
		b.WriteString(" args=")
		b.WriteString(quoteArgs(e.Args))
	}
	if e.Reply != "" {
		b.WriteString(" reply=")
		b.WriteString(e.Reply)
	}
	if e.Key != "" {
		b.WriteString(" key=")
		b.WriteString(e.Key)
	}
	if e.Value != "" {
		b.WriteString(" value=")
		b.WriteString(e.Value)
	}
	if e.Token != 0 {
		b.WriteString(" token=")
		b.WriteString(strconv.FormatInt(e.Token, 10))
	}
	if e.N != 0 {
		b.WriteString(" n=")
		b.WriteString(strconv.FormatInt(e.N, 10))
	}
	if e.Dur != 0 {
		b.WriteString(" dur=")
		if exact {
			b.WriteString(strconv.FormatInt(int64(e.Dur), 10))
		} else {
			b.WriteString(FormatTime(e.Dur))
		}
	}
	if e.Note != "" {
		b.WriteString(" note=")
		b.WriteString(strconv.Quote(e.Note))
	}
	b.WriteString(" local=")
	if exact {
		b.WriteString(strconv.FormatInt(int64(e.Local), 10))
	} else {
		b.WriteString(FormatTime(e.Local))
	}
}

func (e Event) actorName() string {
	if e.Task != "" && e.Task != "main" {
		return e.Actor + "/" + e.Task
	}
	return e.Actor
}

// quoteArgs renders a command like redis-cli: words bare, others quoted.
func quoteArgs(args []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		// A word cut at 61 bytes and "..." stays quoted, so that the text
		// parsed back (ParseHistory) renders the same (a filler's value).
		if len(a) > 0 && len(a) <= 64 && !strings.ContainsAny(a, " \t\n\"'\\[]") && !strings.HasSuffix(a, "...") {
			b.WriteString(a)
		} else {
			if len(a) > 64 {
				a = a[:61] + "..."
			}
			b.WriteString(strconv.Quote(a))
		}
	}
	b.WriteByte(']')
	return b.String()
}

// Text renders the history one event per line with microsecond times.
func (h History) Text() string {
	var b strings.Builder
	for _, e := range h {
		e.writeLine(&b, false)
		b.WriteByte('\n')
	}
	return b.String()
}

// Hash returns a hex SHA-256 of the history at full (nanosecond) precision.
// Two runs with the same inputs have the same hash.
func (h History) Hash() string {
	s := sha256.New()
	var b strings.Builder
	for _, e := range h {
		b.Reset()
		e.writeLine(&b, true)
		b.WriteByte('\n')
		s.Write([]byte(b.String()))
	}
	return hex.EncodeToString(s.Sum(nil))
}
