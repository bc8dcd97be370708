package sim

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
)

// Limits of ParseLine and ParseHistory: they read text a person wrote or
// pasted, so they bound what they accept before they look at it.
const (
	// MaxLineBytes bounds one event line: a reply of MaxRecordedBytes
	// escapes to at most four times its length in a note, and every
	// other field is short.
	MaxLineBytes = 64 << 10
	// MaxHistoryLines bounds the lines of a history text: DefaultMaxEvents,
	// the most events a run records by default.
	MaxHistoryLines = DefaultMaxEvents
)

// lineFields are the optional fields of an event line, in the fixed order
// Line writes them; local= ends every line.
var lineFields = []string{"peer", "args", "reply", "key", "value", "token", "n", "dur", "note", "local"}

// ParseLine reads one event in the form Line writes it:
//
//	time actor[/task] kind [peer=P] [args=[...]] [reply=R] [key=K] [value=V] [token=T] [n=N] [dur=D] [note="..."] local=L
//
// Times (the first word, dur= and local=) are seconds with up to nine
// decimals, "1.050000s", negative allowed. The header's words are separated
// by one or more spaces, the fields by exactly one, in the order above,
// each at most once. peer, key and value are single words; reply runs to
// the next field of the list ("reply=(error) ERR no such key key=lock");
// args are quoteArgs's list, words bare or Go-quoted ("[SET lock \"a b\"]");
// note is Go-quoted. A field Line leaves out is zero; an empty value is an
// error.
//
// It is the inverse of Line up to what Line does not keep: times below a
// microsecond, the task name "main" (Line writes no task, ParseLine
// returns ""; package history reads both alike), and arguments Line cut to
// 64 bytes. Seq is 0. A line longer than MaxLineBytes, or holding a
// newline, is refused. The error says what is wrong and where; ParseLine
// never panics.
func ParseLine(line string) (Event, error) {
	var e Event
	if len(line) > MaxLineBytes {
		return e, errors.Errorf("event line is %d bytes, longer than the limit of %d", len(line), MaxLineBytes)
	}
	if strings.Contains(line, "\n") {
		return e, errors.New("event line holds a line break")
	}
	rest := line
	var words [3]string
	for i, what := range []string{"time", "actor", "kind"} {
		rest = strings.TrimLeft(rest, " ")
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			return e, errors.Errorf("event line has no %s (a line is: time actor[/task] kind [field=value ...] local=time)", what)
		}
		words[i], rest = rest[:end], rest[end:]
	}
	at, err := parseSeconds(words[0])
	if err != nil {
		return e, errors.Wrap(err, "event time")
	}
	e.At = at
	actor, task, hasTask := strings.Cut(words[1], "/")
	if actor == "" || hasTask && task == "" {
		return e, errors.Errorf("actor %s: want a name, or name/task", bounded.Q(words[1]))
	}
	e.Actor, e.Task = actor, task
	if strings.Contains(words[2], "=") {
		return e, errors.Errorf("%s is not an event kind (a line is: time actor[/task] kind [field=value ...] local=time)", bounded.Q(words[2]))
	}
	e.Kind = Kind(words[2])
	rest = strings.TrimLeft(rest, " ")
	if err := parseFields(&e, rest); err != nil {
		return Event{}, err
	}
	return e, nil
}

var errNoLocal = errors.New("event line has no local= (every line ends with local=time, the actor's clock)")

// parseFields reads the fields after the kind into e.
func parseFields(e *Event, rest string) error {
	next := 0 // the index in lineFields of the first field still allowed
	for {
		name, _, ok := strings.Cut(rest, "=")
		i := fieldIndex(name)
		switch {
		case rest == "":
			return errNoLocal
		case !ok || i < 0:
			word, _, _ := strings.Cut(rest, " ")
			return errors.Errorf("unknown field %s (the fields, in order: %s)", bounded.Q(word), strings.Join(lineFields, " "))
		case i < next:
			return errors.Errorf("field %s= out of order or repeated (the fields, in order: %s)", name, strings.Join(lineFields, " "))
		}
		next = i + 1
		val, after, err := fieldValue(name, rest[len(name)+1:])
		if err != nil {
			return errors.Wrapf(err, "field %s=", name)
		}
		if err := setField(e, name, val); err != nil {
			return errors.Wrapf(err, "field %s=", name)
		}
		if name == "local" {
			if after != "" {
				return errors.Errorf("text after local=: %s (local= ends the line)", bounded.Q(after))
			}
			return nil
		}
		if after == "" {
			return errNoLocal
		}
		if !strings.HasPrefix(after, " ") {
			return errors.Errorf("field %s= is not followed by a space and local=", name)
		}
		rest = after[1:]
	}
}

// fieldIndex is name's position in lineFields, -1 if it is none.
func fieldIndex(name string) int {
	for i, f := range lineFields {
		if f == name {
			return i
		}
	}
	return -1
}

// fieldValue splits s, the text after name=, into the field's value (for
// args and note still in their written form) and what follows it.
func fieldValue(name, s string) (string, string, error) {
	var val string
	switch name {
	case "args":
		end, err := argsEnd(s)
		if err != nil {
			return "", "", err
		}
		val = s[:end]
	case "note":
		if !strings.HasPrefix(s, `"`) {
			return "", "", errors.New(`want a Go-quoted string ("...")`)
		}
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", "", errors.Errorf("unterminated or malformed quoted string %s", clip(s))
		}
		val = q
	case "reply":
		// The reply runs to the first later field.
		end := len(s)
		for _, f := range lineFields[fieldIndex("reply")+1:] {
			if j := strings.Index(s, " "+f+"="); j >= 0 && j < end {
				end = j
			}
		}
		val = s[:end]
		if strings.TrimSpace(val) != val {
			return "", "", errors.Errorf("reply %s starts or ends with a space", bounded.Q(val))
		}
	default:
		val, _, _ = strings.Cut(s, " ")
	}
	if val == "" {
		return "", "", errors.New("empty value (leave the field out instead)")
	}
	return val, s[len(val):], nil
}

// argsEnd returns the length of the args list at the start of s: "[", then
// words bare or Go-quoted, separated by single spaces, then "]".
func argsEnd(s string) (int, error) {
	if !strings.HasPrefix(s, "[") {
		return 0, errors.New("want a list in brackets, [SET lock v]")
	}
	if strings.HasPrefix(s, "[]") {
		return 0, errors.New("empty list (leave the field out instead)")
	}
	i := 1
	for {
		if i >= len(s) {
			return 0, errors.Errorf("list %s has no closing ]", clip(s))
		}
		if s[i] == '"' {
			q, err := strconv.QuotedPrefix(s[i:])
			if err != nil {
				return 0, errors.Errorf("malformed quoted argument %s", clip(s[i:]))
			}
			i += len(q)
		} else {
			j := strings.IndexAny(s[i:], " ]")
			if j < 0 {
				return 0, errors.Errorf("list %s has no closing ]", clip(s))
			}
			if j == 0 {
				return 0, errors.Errorf("empty argument in %s (an empty one is written \"\")", clip(s))
			}
			i += j
		}
		if i >= len(s) {
			return 0, errors.Errorf("list %s has no closing ]", clip(s))
		}
		switch s[i] {
		case ']':
			return i + 1, nil
		case ' ':
			i++
		default:
			return 0, errors.Errorf("want a space or ] after an argument in %s", clip(s))
		}
	}
}

// splitArgs reads a list argsEnd accepted.
func splitArgs(list string) []string {
	var out []string
	s := list[1 : len(list)-1]
	for s != "" {
		var a string
		if s[0] == '"' {
			q, _ := strconv.QuotedPrefix(s)
			a, _ = strconv.Unquote(q)
			s = s[len(q):]
		} else {
			w, _, _ := strings.Cut(s, " ")
			a, s = w, s[len(w):]
		}
		out = append(out, a)
		s = strings.TrimPrefix(s, " ")
	}
	return out
}

// setField stores a field's value in e.
func setField(e *Event, name, val string) error {
	var err error
	switch name {
	case "peer":
		e.Peer = val
	case "args":
		e.Args = splitArgs(val)
	case "reply":
		e.Reply = val
	case "key":
		e.Key = val
	case "value":
		e.Value = val
	case "token":
		e.Token, err = strconv.ParseInt(val, 10, 64)
	case "n":
		e.N, err = strconv.ParseInt(val, 10, 64)
	case "dur":
		e.Dur, err = parseSeconds(val)
	case "note":
		e.Note, err = strconv.Unquote(val)
	case "local":
		e.Local, err = parseSeconds(val)
	}
	if numErr := (*strconv.NumError)(nil); errors.As(err, &numErr) {
		return errors.Errorf("%s is not an integer in range", bounded.Q(val))
	}
	return err
}

// parseSeconds reads a time as FormatTime writes it: [-]seconds[.fraction]s
// with at most nine decimals.
func parseSeconds(s string) (time.Duration, error) {
	bad := errors.Errorf("%s is not a time in seconds (like 1.050000s)", bounded.Q(clip(s)))
	body, ok := strings.CutSuffix(s, "s")
	neg := strings.HasPrefix(body, "-")
	body = strings.TrimPrefix(body, "-")
	whole, frac, hasFrac := strings.Cut(body, ".")
	if !ok || !digits(whole) || hasFrac && (!digits(frac) || len(frac) > 9) {
		return 0, bad
	}
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || sec > math.MaxInt64/int64(time.Second)-1 {
		return 0, errors.Errorf("time %s is out of range", bounded.Q(clip(s)))
	}
	ns := int64(0)
	if hasFrac {
		ns, _ = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	}
	d := time.Duration(sec)*time.Second + time.Duration(ns)
	if neg {
		d = -d
	}
	return d, nil
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// ParseHistory reads the text History.Text writes: one event per line
// (ParseLine), blank lines skipped; Seq numbers the events from 0 in order.
// Times need not grow (a history a person writes may be out of order; the
// checkers read it in the order given). A text of more than
// MaxHistoryLines lines is refused; an error names its line, from 1.
func ParseHistory(text string) (History, error) {
	if n := strings.Count(text, "\n"); n > MaxHistoryLines {
		return nil, errors.Errorf("history has %d lines, more than the limit of %d", n, MaxHistoryLines)
	}
	var h History
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		e, err := ParseLine(line)
		if err != nil {
			return nil, errors.Wrapf(err, "line %d", i+1)
		}
		e.Seq = len(h)
		h = append(h, e)
	}
	return h, nil
}
