package scenarios

import (
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzParse: Parse never panics, and whatever it accepts, Format writes
// back in a form Parse reads to the same scenario.
func FuzzParse(f *testing.F) {
	files, err := fs.Glob(catalogueFS, "catalogue/*.txt")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := catalogueFS.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(full))
	f.Add([]byte(base))
	f.Add([]byte("name x\ntitle t\nclients A\nfault pause A for 1s after A reply #2 +1ms # c\n----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.txt", data)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			return
		}
		text := s.Format()
		back, err := Parse("fuzz.txt", text)
		if err != nil {
			t.Fatalf("Format output does not parse: %v\ninput:\n%q\nformatted:\n%s", err, data, text)
		}
		if diff := cmp.Diff(s, back, cmpopts.IgnoreFields(Scenario{}, "Source"), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Parse(Format) differs (-first +second):\n%s\ninput:\n%q", diff, data)
		}
	})
}
