package logcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pkg/errors"
)

// Kind is what a logged event says happened, as the client saw it.
type Kind string

// The kinds of the format (docs/check-log.md).
const (
	// AcquireAttempt: the client starts one acquisition (its lock value;
	// Deadline: how long the call may wait, if it was given a deadline).
	AcquireAttempt Kind = "acquire-attempt"
	// Granted: the lock call returned success; the client believes it
	// holds the key from this instant for Validity (0: until it releases).
	Granted Kind = "granted"
	// Refused: the acquisition gave up.
	Refused Kind = "refused"
	// Renewed: an extension returned success; the belief now lasts
	// Validity from this instant.
	Renewed Kind = "renewed"
	// Released: the client invoked release: its belief ends here.
	Released Kind = "released"
	// Lost: the client learnt its lease is gone (a failed renewal, a check):
	// its belief ends here. Cause says how it learnt (CauseRefused: the
	// store said so).
	Lost Kind = "lost"
	// Write: the protected resource accepted the client's write (Token).
	Write Kind = "write"
	// WriteRejected: the resource rejected the write (a fence at work).
	WriteRejected Kind = "write-rejected"
)

// The causes a lost event may give (absent: unknown).
const (
	// CauseRefused: a renewal or check was answered by the store that the
	// key is gone or another's (the lock library's "lease lost").
	CauseRefused = "refused"
	// CauseExpired: the validity ran out on the client's clock.
	CauseExpired = "expired"
	// CauseUnknown: a call failed and the lease's state is unknown.
	CauseUnknown = "unknown"
	// CauseEnded: the process or task that held the lock ended.
	CauseEnded = "ended"
)

// Causes lists the causes, in the format's order.
var Causes = []string{CauseRefused, CauseExpired, CauseUnknown, CauseEnded}

// Kinds lists every kind, in the order the format's table gives them.
var Kinds = []Kind{AcquireAttempt, Granted, Refused, Renewed, Released, Lost, Write, WriteRejected}

func knownKind(k Kind) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Event is one line of a lock log. Time is the host's clock reading in
// nanoseconds since the Unix epoch; Sent, for a write, when it was sent
// (0: unknown, Time stands for it).
type Event struct {
	Time     int64
	Host     string
	Client   string
	Key      string
	Kind     Kind
	Token    int64
	Value    string
	Validity time.Duration
	Sent     int64
	// Deadline, on an acquire-attempt, is how long the lock call may
	// wait (its context's deadline minus the attempt's time); 0: none.
	Deadline time.Duration
	// Cause, on a lost event, says how the client learnt (Causes); "":
	// not said.
	Cause string
	// File and Line locate the event in its input.
	File string
	Line int
}

// Where renders file:line.
func (e Event) Where() string { return e.File + ":" + strconv.Itoa(e.Line) }

// line is the JSON shape of one line.
type line struct {
	Time     json.RawMessage `json:"time"`
	Host     string          `json:"host"`
	Client   string          `json:"client"`
	Key      string          `json:"key"`
	Kind     string          `json:"kind"`
	Token    *int64          `json:"token"`
	Value    string          `json:"value"`
	Validity json.RawMessage `json:"validity"`
	Sent     json.RawMessage `json:"sent"`
	Deadline json.RawMessage `json:"deadline"`
	Cause    string          `json:"cause"`
}

// MaxQuote bounds how much of a bad line an error quotes.
const MaxQuote = 80

// Quote renders at most MaxQuote bytes of a line, for an error.
func Quote(b []byte) string {
	if len(b) <= MaxQuote {
		return strconv.Quote(string(b))
	}
	cut := MaxQuote
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "..."
}

// ParseError is a line the format does not allow.
type ParseError struct {
	File string
	Line int
	Msg  string
	Text []byte
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Msg, Quote(e.Text))
}

// ParseLine reads one line of the format. Blank lines are the caller's
// to skip.
func ParseLine(b []byte, file string, n int) (Event, error) {
	bad := func(format string, args ...any) (Event, error) {
		return Event{}, &ParseError{File: file, Line: n, Msg: fmt.Sprintf(format, args...), Text: b}
	}
	var l line
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "json: ")
		return bad("not a JSON object of the format (%s)", msg)
	}
	if dec.More() {
		return bad("more than one JSON value on the line")
	}
	e := Event{Host: l.Host, Client: l.Client, Key: l.Key, Kind: Kind(l.Kind), Value: l.Value, File: file, Line: n}
	switch {
	case len(l.Time) == 0:
		return bad("no time")
	case l.Client == "":
		return bad("no client")
	case l.Host == "":
		return bad("no host")
	case l.Key == "":
		return bad("no key")
	case l.Kind == "":
		return bad("no kind")
	case !knownKind(e.Kind):
		return bad("unknown kind %q (known: %s)", l.Kind, kindList())
	}
	var err error
	if e.Time, err = parseTime(l.Time); err != nil {
		return bad("time: %v", err)
	}
	if l.Token != nil {
		if *l.Token < 0 {
			return bad("token %d is negative", *l.Token)
		}
		e.Token = *l.Token
	}
	if len(l.Validity) > 0 {
		if e.Validity, err = parseDuration(l.Validity); err != nil {
			return bad("validity: %v", err)
		}
		if e.Validity < 0 {
			return bad("validity %v is negative", e.Validity)
		}
	}
	if len(l.Sent) > 0 {
		if e.Kind != Write && e.Kind != WriteRejected {
			return bad("sent is for write and write-rejected events")
		}
		if e.Sent, err = parseTime(l.Sent); err != nil {
			return bad("sent: %v", err)
		}
		if e.Sent > e.Time {
			return bad("sent is after time")
		}
	}
	if len(l.Deadline) > 0 {
		if e.Kind != AcquireAttempt {
			return bad("deadline is for acquire-attempt events")
		}
		if e.Deadline, err = parseDuration(l.Deadline); err != nil {
			return bad("deadline: %v", err)
		}
		if e.Deadline <= 0 {
			return bad("deadline %v is not positive", e.Deadline)
		}
	}
	if l.Cause != "" {
		if e.Kind != Lost {
			return bad("cause is for lost events")
		}
		ok := false
		for _, c := range Causes {
			ok = ok || c == l.Cause
		}
		if !ok {
			return bad("unknown cause %q (known: %s)", l.Cause, strings.Join(Causes, ", "))
		}
		e.Cause = l.Cause
	}
	if (e.Kind == Write || e.Kind == WriteRejected) && l.Token == nil {
		// A write without a token is not fenced: kept for counts only.
		e.Token = 0
	}
	return e, nil
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// parseTime reads an RFC 3339 string (nanoseconds allowed) or an integer
// of Unix nanoseconds.
func parseTime(raw json.RawMessage) (int64, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return 0, errors.Errorf("%q is not RFC 3339 (2026-12-07T15:04:05.123456789Z)", s)
		}
		return t.UnixNano(), nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, errors.Errorf("%s is neither an RFC 3339 string nor an integer of Unix nanoseconds", raw)
	}
	return n, nil
}

// parseDuration reads a Go duration string ("10s", "1.5ms") or an integer
// of nanoseconds.
func parseDuration(raw json.RawMessage) (time.Duration, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, errors.Errorf("%q is not a duration (10s, 1500ms)", s)
		}
		return d, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, errors.Errorf("%s is neither a duration string nor an integer of nanoseconds", raw)
	}
	return time.Duration(n), nil
}

// AppendJSON appends e as one line of the format (with its newline),
// times as RFC 3339 with nanoseconds in UTC.
func AppendJSON(b []byte, e Event) []byte {
	b = append(b, `{"time":"`...)
	b = time.Unix(0, e.Time).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","host":`...)
	b = appendString(b, e.Host)
	b = append(b, `,"client":`...)
	b = appendString(b, e.Client)
	b = append(b, `,"key":`...)
	b = appendString(b, e.Key)
	b = append(b, `,"kind":"`...)
	b = append(b, e.Kind...)
	b = append(b, '"')
	if e.Token != 0 {
		b = append(b, `,"token":`...)
		b = strconv.AppendInt(b, e.Token, 10)
	}
	if e.Value != "" {
		b = append(b, `,"value":`...)
		b = appendString(b, e.Value)
	}
	if e.Validity != 0 {
		b = append(b, `,"validity":"`...)
		b = append(b, e.Validity.String()...)
		b = append(b, '"')
	}
	if e.Deadline != 0 {
		b = append(b, `,"deadline":"`...)
		b = append(b, e.Deadline.String()...)
		b = append(b, '"')
	}
	if e.Cause != "" {
		b = append(b, `,"cause":"`...)
		b = append(b, e.Cause...)
		b = append(b, '"')
	}
	if e.Sent != 0 {
		b = append(b, `,"sent":"`...)
		b = time.Unix(0, e.Sent).UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	return append(b, "}\n"...)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
