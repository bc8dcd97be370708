package resp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseMalformed feeds buffers that once panicked or allocated without
// bound; each must come back as an error.
func TestParseMalformed(t *testing.T) {
	for _, bad := range []string{
		"\r\n",                                   // no type byte: slice bounds
		"\r\n\r\n",                               //
		"$9223372036854775807\r\nx\r\n",          // n+l+2 overflows
		"$9223372036854775806\r\n",               //
		"*9223372036854775807\r\n",               // a huge preallocation
		"*1000000000\r\n:1\r\n",                  //
		"$3\r\nabcXY",                            // bulk not closed by CRLF
		"$1\r\nab\r\n",                           //
		"*1\r\n\r\n",                             // an element without a type byte
		strings.Repeat("*1\r\n", 100) + ":1\r\n", // nested too deeply
	} {
		r, n, err := Parse([]byte(bad))
		if err == nil {
			t.Errorf("Parse(%q) = %s, %d, want an error", bad, r, n)
		}
	}
}

// appendRESP writes r as RESP2 (the inverse of Parse, for the tests).
func appendRESP(b []byte, r Reply) []byte {
	switch r.Kind {
	case Status:
		return append(append(append(b, '+'), r.Str...), "\r\n"...)
	case Error:
		return append(append(append(b, '-'), r.Str...), "\r\n"...)
	case Int:
		return append(strconv.AppendInt(append(b, ':'), r.Int, 10), "\r\n"...)
	case Bulk:
		b = append(strconv.AppendInt(append(b, '$'), int64(len(r.Str)), 10), "\r\n"...)
		return append(append(b, r.Str...), "\r\n"...)
	case NilBulk:
		return append(b, "$-1\r\n"...)
	case NilArray:
		return append(b, "*-1\r\n"...)
	case Array, Set, Push, Map:
		n := len(r.Elems)
		if r.Kind == Map {
			n /= 2
		}
		b = append(strconv.AppendInt(append(b, map[Kind]byte{Array: '*', Set: '~', Push: '>', Map: '%'}[r.Kind]), int64(n), 10), "\r\n"...)
		for _, e := range r.Elems {
			b = appendRESP(b, e)
		}
		return b
	case Double:
		return append(append(append(b, ','), r.Str...), "\r\n"...)
	case Bool:
		if r.Int != 0 {
			return append(b, "#t\r\n"...)
		}
		return append(b, "#f\r\n"...)
	}
	return b
}

// FuzzParse: Parse never panics, consumes at most its input, and what it
// parsed reads back the same after writing it out again. Run briefly with
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 10s ./sim/resp/
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"+OK\r\n", "-ERR no\r\n", ":42\r\n", "$5\r\nhello\r\n", "$-1\r\n", "*-1\r\n",
		"*3\r\n:1\r\n$1\r\na\r\n*1\r\n+OK\r\n", "\r\n", "$0\r\n\r\n", "*0\r\n", ",1.5\r\n",
		"*2\r\n*1\r\n:1\r\n$-1\r\n", "%1\r\n$1\r\na\r\n:1\r\n", "~1\r\n#t\r\n", ">2\r\n$10\r\ninvalidate\r\n_\r\n", "%1\r\n", "$9223372036854775807\r\n", ":-9223372036854775808\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, buf []byte) {
		r, n, err := Parse(buf)
		if err != nil {
			return
		}
		if n <= 0 || n > len(buf) {
			t.Fatalf("Parse(%q) consumed %d of %d bytes", buf, n, len(buf))
		}
		_ = r.String()
		again := appendRESP(nil, r)
		r2, n2, err := Parse(again)
		if err != nil || n2 != len(again) {
			t.Fatalf("re-parse of %q (from %q): %v, %d of %d bytes", again, buf[:n], err, n2, len(again))
		}
		if diff := cmp.Diff(r, r2); diff != "" {
			t.Fatalf("round trip of %q (-first +second):\n%s", buf[:n], diff)
		}
	})
}
