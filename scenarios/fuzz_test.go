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

// FuzzParseFault: ParseFault never panics, and every fault it accepts
// formats (Fault.String) to a line it reads back to the same fault.
func FuzzParseFault(f *testing.F) {
	for _, s := range []string{
		"pause A for 1.5s after A write", "partition r1,A | r2,r3,B,sentinel at 0s for 30s", "partition 0|+ at 0",
		"delay A->resource +1.5s for 10ms after A write", "drop r1->A count=2 at 1s for 1s", "node-crash r1 for 10ms after A acquired",
		"clock-jump r1 by=-2s at 1s", "clock-drift r1 rate=+50000ppm at 0s", "evict r1 key=lock at 2s", "crash A restart for 1s at 3s",
		"pause A for 1s after A call #2 task watchdog since acquire-start #3 +5ms", "partition A | r4,r5 oneway at 0s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fault, err := ParseFault(s)
		if err != nil {
			return
		}
		line := fault.String()
		back, err := ParseFault(line)
		if err != nil {
			t.Fatalf("%q parses, but its formatted form %q does not: %v", s, line, err)
		}
		if diff := cmp.Diff(fault, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%q: ParseFault(String) differs (-first +second):\n%s", s, diff)
		}
	})
}
