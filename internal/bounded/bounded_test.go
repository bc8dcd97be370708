package bounded

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	l := Limit{What: "a thing", Bytes: 10, Name: "thing-bytes"}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	if b, err := l.ReadFile(write("ten", "0123456789")); err != nil || string(b) != "0123456789" {
		t.Errorf("at the limit: %q %v", b, err)
	}
	big := write("eleven", "0123456789a")
	_, err := l.ReadFile(big)
	var le *Error
	if !errors.As(err, &le) || err.Error() != big+" is 11 bytes: a thing is at most 10 bytes (limits: thing-bytes)" {
		t.Errorf("past the limit: %v", err)
	}
	// A device: read up to one byte past the limit, never to its end.
	if _, err := l.ReadFile("/dev/zero"); err == nil || err.Error() != "/dev/zero is more than 10 bytes: a thing is at most 10 bytes (limits: thing-bytes)" {
		t.Errorf("/dev/zero: %v", err)
	}
	if b, err := l.Read("stdin", strings.NewReader("abc")); err != nil || string(b) != "abc" {
		t.Errorf("Read: %q %v", b, err)
	}
	if _, err := l.ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := l.ReadFile(dir); err == nil {
		t.Errorf("a directory read")
	}
}

func TestClipAndQuote(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	for _, tc := range []struct{ got, want string }{
		{Clip("short"), "short"},
		{Clip(long), strings.Repeat("é", 100) + "... (100 more bytes)"},
		{Clip("a" + long), "a" + strings.Repeat("é", 99) + "... (102 more bytes)"}, // not inside a character
		{ClipPrefix("abc", 1000), "abc... (997 more bytes)"},
		{Quote("a\"b"), `"a\"b"`},
		{Quote(strings.Repeat("\n", 201)), `"` + strings.Repeat(`\n`, 200) + `"... (1 more bytes)`},
		{Q(strings.Repeat("x", 300)), `"` + strings.Repeat("x", 200) + `"... (100 more bytes)`},
		{Q(kind("k")), `"k"`},
		{Q(errors.New("e")), `"e"`},
		{Q('r'), `'r'`},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

type kind string
