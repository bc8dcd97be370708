// Package resp parses RESP2 and RESP3 replies written by miniredis into
// Reply values.
//
// miniredis's own server.ParseReply drops EXEC replies that contain errors,
// so the simulator parses what the dispatch path wrote itself. A connection
// speaks RESP2 until it sends HELLO 3 (sim's nodes answer it as Redis 7.0
// does); then miniredis writes the RESP3 types: maps (%), sets (~),
// doubles (,), booleans (#), the null (_, parsed as NilBulk: RESP3 has one
// null) and pushes (>), the client-tracking invalidations.
package resp

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
)

// Kind is the RESP type of a reply.
type Kind uint8

// The reply kinds. NilBulk is "$-1" (and RESP3's "_"), NilArray is "*-1".
// Map, Set, Double, Bool and Push are RESP3's: a Map's Elems alternate key
// and value; a Double's Str is its text; a Bool's Int is 1 or 0; a Push's
// Elems are its items (">2 invalidate [keys]").
const (
	Status Kind = iota + 1
	Error
	Int
	Bulk
	NilBulk
	Array
	NilArray
	Map
	Set
	Double
	Bool
	Push
)

// Reply is one parsed RESP2 reply. Str holds the text of Status, Error and
// Bulk replies; Int holds integers; Elems holds array elements.
type Reply struct {
	Kind  Kind
	Str   string
	Int   int64
	Elems []Reply
}

// OK is the "+OK" status reply.
var OK = Reply{Kind: Status, Str: "OK"}

// Nil is the nil bulk reply "$-1".
var Nil = Reply{Kind: NilBulk}

// IntReply returns an integer reply.
func IntReply(n int64) Reply { return Reply{Kind: Int, Int: n} }

// BulkReply returns a bulk string reply.
func BulkReply(s string) Reply { return Reply{Kind: Bulk, Str: s} }

// ErrorReply returns an error reply; msg is the text after '-'.
func ErrorReply(msg string) Reply { return Reply{Kind: Error, Str: msg} }

// IsNil reports whether r is a nil bulk or nil array.
func (r Reply) IsNil() bool { return r.Kind == NilBulk || r.Kind == NilArray }

// IsError reports whether r is an error reply.
func (r Reply) IsError() bool { return r.Kind == Error }

// String renders r the way redis-cli does, on one line: OK, (nil),
// (integer) 1, "value", (error) ERR ..., [a, b]. The form is stable and
// used in histories and golden files.
func (r Reply) String() string {
	switch r.Kind { // the common replies, without a builder
	case Status:
		return r.Str
	case NilBulk, NilArray:
		return "(nil)"
	case Int:
		if r.Int >= 0 && r.Int < int64(len(smallInts)) {
			return smallInts[r.Int]
		}
		return "(integer) " + strconv.FormatInt(r.Int, 10)
	case Bulk:
		return strconv.Quote(r.Str)
	}
	var b strings.Builder
	r.write(&b)
	return b.String()
}

// StringHead returns the first n bytes of r.String() and the length of
// all of it, rendering about n bytes only: a history records the head of
// a huge reply and its length, and never holds the whole rendering.
func (r Reply) StringHead(n int) (head string, total int) {
	// The common replies (every reply of a lock design's commands) are
	// rendered as String does, with at most one allocation, when their
	// whole rendering fits: a status as it is, a bulk string quoted once
	// (strconv.Quote writes at most 4 bytes per input byte: \xNN), an
	// integer or nil from the table. Most of a run's allocations were the
	// builder's growth here.
	switch r.Kind {
	case Status:
		if len(r.Str) <= n {
			return r.Str, len(r.Str)
		}
	case NilBulk, NilArray, Int:
		if s := r.String(); len(s) <= n {
			return s, len(s)
		}
	case Error:
		if len(r.Str)+len("(error) ") <= n {
			s := "(error) " + r.Str
			return s, len(s)
		}
	case Bulk:
		if 4*len(r.Str)+2 <= n {
			s := strconv.Quote(r.Str)
			return s, len(s)
		}
	}
	h := headWriter{n: n}
	r.writeHead(&h)
	return h.b.String(), h.total
}

// headWriter keeps the first n bytes written to it and counts them all.
type headWriter struct {
	b        strings.Builder
	n, total int
	buf      []byte // reused by quote
}

func (h *headWriter) WriteString(s string) {
	h.total += len(s)
	if room := h.n - h.b.Len(); room > 0 {
		h.b.WriteString(s[:min(len(s), room)])
	}
}

// quote writes strconv.Quote(s) a chunk at a time. Quote escapes each
// rune on its own (an invalid byte is one rune), so chunks cut where a
// rune starts quote to the pieces of the whole.
func (h *headWriter) quote(s string) {
	const chunk = 16 << 10
	h.WriteString(`"`)
	for len(s) > 0 {
		k := min(len(s), chunk)
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		h.buf = strconv.AppendQuote(h.buf[:0], s[:k])
		if q := h.buf[1 : len(h.buf)-1]; h.b.Len() < h.n {
			h.WriteString(string(q))
		} else {
			h.total += len(q) // only counted
		}
		s = s[k:]
	}
	h.WriteString(`"`)
}

func (r Reply) writeHead(h *headWriter) {
	switch r.Kind {
	case Status:
		h.WriteString(r.Str)
	case Error:
		h.WriteString("(error) ")
		h.WriteString(r.Str)
	case Bulk:
		h.quote(r.Str)
	case Array, Set, Push, Map:
		open, sep, end := r.Kind.brackets()
		h.WriteString(open)
		for i, e := range r.Elems {
			if i > 0 {
				h.WriteString(r.Kind.sep(i, sep))
			}
			e.writeHead(h)
		}
		h.WriteString(end)
	default:
		var b strings.Builder
		r.write(&b)
		h.WriteString(b.String())
	}
}

// brackets returns how an aggregate kind is rendered: [a, b] for arrays,
// {a, b} for sets, >[invalidate, [k]] for pushes, {k: v, k2: v2} for maps.
func (k Kind) brackets() (open, sep, end string) {
	switch k {
	case Set:
		return "{", ", ", "}"
	case Push:
		return ">[", ", ", "]"
	case Map:
		return "{", ", ", "}"
	}
	return "[", ", ", "]"
}

// sep is the separator before element i: a map's key and value are joined
// by ": ".
func (k Kind) sep(i int, sep string) string {
	if k == Map && i%2 == 1 {
		return ": "
	}
	return sep
}

// Short renders r as String does, for a message: every string cut to
// its first bounded.MaxQuote bytes (saying how many more there were) and
// an array to the elements that fit in about that many bytes (saying how
// many more), so that a message quoting a reply stays a few hundred bytes
// however large the reply.
func (r Reply) Short() string {
	var b strings.Builder
	r.writeShort(&b)
	return b.String()
}

func (r Reply) writeShort(b *strings.Builder) {
	switch r.Kind {
	case Status:
		b.WriteString(bounded.Clip(r.Str))
	case Error:
		b.WriteString("(error) ")
		b.WriteString(bounded.Clip(r.Str))
	case Bulk:
		b.WriteString(bounded.Quote(r.Str))
	case Array, Set, Push, Map:
		open, sep, end := r.Kind.brackets()
		b.WriteString(open)
		for i, e := range r.Elems {
			if i > 0 {
				b.WriteString(r.Kind.sep(i, sep))
			}
			if b.Len() > bounded.MaxQuote {
				b.WriteString("... (" + strconv.Itoa(len(r.Elems)-i) + " more elements)")
				break
			}
			e.writeShort(b)
		}
		b.WriteString(end)
	default:
		r.write(b)
	}
}

// smallInts are the rendered integer replies 0 to 15, made once: most
// replies a lock design gets (DEL, PEXPIRE, EVAL's 0 or 1) are among them.
var smallInts = func() (out [16]string) {
	for i := range out {
		out[i] = "(integer) " + strconv.Itoa(i)
	}
	return out
}()

func (r Reply) write(b *strings.Builder) {
	switch r.Kind {
	case Status:
		b.WriteString(r.Str)
	case Error:
		b.WriteString("(error) ")
		b.WriteString(r.Str)
	case Int:
		b.WriteString("(integer) ")
		b.WriteString(strconv.FormatInt(r.Int, 10))
	case Bulk:
		b.WriteString(strconv.Quote(r.Str))
	case NilBulk, NilArray:
		b.WriteString("(nil)")
	case Array, Set, Push, Map:
		open, sep, end := r.Kind.brackets()
		b.WriteString(open)
		for i, e := range r.Elems {
			if i > 0 {
				b.WriteString(r.Kind.sep(i, sep))
			}
			e.write(b)
		}
		b.WriteString(end)
	case Double:
		b.WriteString("(double) ")
		b.WriteString(r.Str)
	case Bool:
		if r.Int != 0 {
			b.WriteString("(true)")
		} else {
			b.WriteString("(false)")
		}
	default:
		b.WriteString("(invalid)")
	}
}

// aggregateKind is the kind of an aggregate's type byte.
func aggregateKind(b byte) Kind {
	switch b {
	case '~':
		return Set
	case '>':
		return Push
	case '%':
		return Map
	}
	return Array
}

// Parse parses exactly one RESP2 or RESP3 reply from buf and returns it with the
// number of bytes consumed. Malformed or truncated input is an error, never
// a panic, and nothing is allocated beyond what buf can hold (FuzzParse).
func Parse(buf []byte) (Reply, int, error) {
	r, n, err := parse(buf, 0)
	if err != nil {
		return Reply{}, 0, err
	}
	return r, n, nil
}

// ParseAll parses a buffer that must hold exactly one reply.
func ParseAll(buf []byte) (Reply, error) {
	r, n, err := parse(buf, 0)
	if err != nil {
		return Reply{}, err
	}
	if n != len(buf) {
		return Reply{}, errors.Errorf("%d trailing bytes after reply", len(buf)-n)
	}
	return r, nil
}

// line returns the text of the line that starts at buf[0] (its type byte)
// and the bytes it spans with its CRLF. len(buf) > 0.
func line(buf []byte) (string, int, error) {
	for i := 1; i+1 < len(buf); i++ {
		if buf[i] == '\r' && buf[i+1] == '\n' {
			return string(buf[1:i]), i + 2, nil
		}
	}
	return "", 0, errors.New("unterminated line")
}

// maxDepth bounds nesting so a malformed buffer cannot recurse forever.
const maxDepth = 64

// minReplyBytes is the size of the shortest reply ("+\r\n").
const minReplyBytes = 3

func parse(buf []byte, depth int) (Reply, int, error) {
	if depth > maxDepth {
		return Reply{}, 0, errors.New("reply nested too deeply")
	}
	if len(buf) == 0 {
		return Reply{}, 0, errors.New("empty reply")
	}
	s, n, err := line(buf)
	if err != nil {
		return Reply{}, 0, err
	}
	switch buf[0] {
	case '+':
		return Reply{Kind: Status, Str: s}, n, nil
	case '-':
		return Reply{Kind: Error, Str: s}, n, nil
	case ':':
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return Reply{}, 0, errors.Wrap(err, "bad integer")
		}
		return Reply{Kind: Int, Int: v}, n, nil
	case '$':
		l, err := strconv.Atoi(s)
		if err != nil {
			return Reply{}, 0, errors.Wrap(err, "bad bulk length")
		}
		if l < 0 {
			return Reply{Kind: NilBulk}, n, nil
		}
		if l > len(buf)-n-2 { // not n+l+2 > len(buf): l may be near MaxInt
			return Reply{}, 0, errors.New("short bulk string")
		}
		if buf[n+l] != '\r' || buf[n+l+1] != '\n' {
			return Reply{}, 0, errors.New("bulk string not terminated by CRLF")
		}
		return Reply{Kind: Bulk, Str: string(buf[n : n+l])}, n + l + 2, nil
	case '_': // RESP3's null
		if s != "" {
			return Reply{}, 0, errors.New("bad null")
		}
		return Reply{Kind: NilBulk}, n, nil
	case '#':
		switch s {
		case "t":
			return Reply{Kind: Bool, Int: 1}, n, nil
		case "f":
			return Reply{Kind: Bool}, n, nil
		}
		return Reply{}, 0, errors.New("bad boolean")
	case '*', '~', '>', '%':
		l, err := strconv.Atoi(s)
		if err != nil {
			return Reply{}, 0, errors.Wrap(err, "bad aggregate length")
		}
		kind := aggregateKind(buf[0])
		if l < 0 {
			if kind != Array {
				return Reply{}, 0, errors.New("negative aggregate length")
			}
			return Reply{Kind: NilArray}, n, nil
		}
		if kind == Map {
			if l > (len(buf)-n)/(2*minReplyBytes) {
				return Reply{}, 0, errors.New("short map")
			}
			l *= 2
		}
		// Every element takes at least minReplyBytes, so a count beyond
		// what the rest of buf can hold is refused before allocating.
		if l > (len(buf)-n)/minReplyBytes {
			return Reply{}, 0, errors.New("short array")
		}
		elems := make([]Reply, 0, l)
		for i := 0; i < l; i++ {
			e, m, err := parse(buf[n:], depth+1)
			if err != nil {
				return Reply{}, 0, err
			}
			elems = append(elems, e)
			n += m
		}
		return Reply{Kind: kind, Elems: elems}, n, nil
	case ',': // RESP3's double, written by miniredis for RESP3 peers
		return Reply{Kind: Double, Str: s}, n, nil
	default:
		return Reply{}, 0, errors.Errorf("unknown reply type %q", buf[0])
	}
}
