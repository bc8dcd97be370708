// Package bounded reads every input through its limit and quotes every
// value in a message by a bounded prefix: no file, pipe, device or value
// makes locksim's memory grow past a limit it states.
//
// Limit.ReadFile reads at most the limit plus one byte, whatever the path
// names (a file, a FIFO, /dev/zero, a terminal), and refuses one byte more
// with an *Error that names the limit ("(limits: case-bytes)"). A regular
// file past the limit is refused from its size, before it is read. A FIFO
// is read as its writer writes: the read waits for the writer as cat
// does, and is refused as soon as the limit is passed, without waiting for
// the writer to close.
//
// Clip and Quote cut a user-supplied or script-produced value to its
// first MaxQuote bytes and say how many more there were, so that an error
// quoting a 60 MB Lua reply is a few hundred bytes.
package bounded

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/pkg/errors"
)

// Limit bounds one kind of input: What it is, its size in Bytes, and the
// Name docs/limits.md lists it under.
type Limit struct {
	What  string // "a case file"
	Bytes int64
	Name  string // "case-bytes"
}

// Error is an input past its limit.
type Error struct {
	// Path names the input as given.
	Path  string
	Limit Limit
	// Size is the input's size when known (a regular file), else 0: it
	// was only read up to one byte past the limit.
	Size int64
}

func (e *Error) Error() string {
	l := e.Limit
	size := "more than " + strconv.FormatInt(l.Bytes, 10) + " bytes"
	if e.Size > 0 {
		size = strconv.FormatInt(e.Size, 10) + " bytes"
	}
	return e.Path + " is " + size + ": " + l.What + " is at most " + strconv.FormatInt(l.Bytes, 10) + " bytes (limits: " + l.Name + ")"
}

// ReadFile reads the file path names, at most l.Bytes. A path that is not
// a regular file (a pipe, a device, /dev/stdin) is read the same way.
func (l Limit) ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if st.Size() > l.Bytes {
			return nil, &Error{Path: path, Limit: l, Size: st.Size()}
		}
		size = st.Size()
	}
	return l.read(path, f, size)
}

// Read reads r to its end, at most l.Bytes; name names it in the error.
func (l Limit) Read(name string, r io.Reader) ([]byte, error) {
	return l.read(name, r, 0)
}

func (l Limit) read(name string, r io.Reader, size int64) ([]byte, error) {
	var b bytes.Buffer
	// A regular file's size is a hint (it may grow while read); a pipe
	// or a device starts small and the buffer grows as it delivers, to
	// at most twice the limit.
	if size > 0 {
		b.Grow(int(min(size, l.Bytes)) + 1)
	}
	n, err := b.ReadFrom(io.LimitReader(r, l.Bytes+1))
	if err != nil {
		return nil, errors.Wrapf(err, "reading %s", name)
	}
	if n > l.Bytes {
		return nil, &Error{Path: name, Limit: l}
	}
	return b.Bytes(), nil
}

// MaxQuote is how many bytes of a value a message quotes.
const MaxQuote = 200

// Clip returns s when it is at most MaxQuote bytes, else its first
// MaxQuote bytes (cut at a character boundary) followed by "... (N more
// bytes)".
func Clip(s string) string { return ClipPrefix(s, len(s)) }

// ClipPrefix clips s, the first bytes of a value of total bytes, as Clip
// does: the count of bytes cut includes those of the value that s does
// not hold.
func ClipPrefix(s string, total int) string {
	if len(s) <= MaxQuote && total <= len(s) {
		return s
	}
	cut := cutAt(s)
	return s[:cut] + "... (" + strconv.Itoa(max(total, len(s))-cut) + " more bytes)"
}

// cutAt is where a quote of s ends: MaxQuote bytes, or fewer so as not
// to split a character.
func cutAt(s string) int {
	if len(s) <= MaxQuote {
		return len(s)
	}
	cut := MaxQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return cut
}

// Quote is strconv.Quote of s's first MaxQuote bytes, followed by "...
// (N more bytes)" when s is longer: what %q of a value says in a message.
func Quote(s string) string {
	if len(s) <= MaxQuote {
		return strconv.Quote(s)
	}
	cut := cutAt(s)
	return strconv.Quote(s[:cut]) + "... (" + strconv.Itoa(len(s)-cut) + " more bytes)"
}

// Q is what %q of v says in a message, bounded: Quote of a string, of a
// fmt.Stringer's String or of an error's text; any other value as %q
// formats it (a rune, a byte), clipped.
func Q(v any) string {
	switch x := v.(type) {
	case string:
		return Quote(x)
	case error:
		return Quote(x.Error())
	case fmt.Stringer:
		return Quote(x.String())
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return Quote(rv.String()) // a named string type
	}
	return Clip(fmt.Sprintf("%q", v))
}
