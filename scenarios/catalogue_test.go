package scenarios

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestCatalogueParses: every embedded file parses, is named after its
// file, and IDs lists exactly the embedded files.
func TestCatalogueParses(t *testing.T) {
	files, err := fs.Glob(catalogueFS, "catalogue/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(path.Base(f), ".txt"))
	}
	slices.Sort(names)
	ids := slices.Sorted(slices.Values(IDs))
	if diff := cmp.Diff(ids, names); diff != "" {
		t.Errorf("IDs and catalogue/*.txt differ (-IDs +files):\n%s", diff)
	}
	for _, id := range IDs {
		if _, err := parseEmbedded(id); err != nil {
			t.Error(err)
		}
	}
}

// TestCatalogueContent: each scenario teaches (a title, a text, what
// breaks and what survives) and its default design applies.
func TestCatalogueContent(t *testing.T) {
	all := All()
	if len(all) != len(IDs) {
		t.Fatalf("All returned %d scenarios, want %d", len(all), len(IDs))
	}
	for i, s := range all {
		if s.Name != IDs[i] {
			t.Errorf("All()[%d] = %s, want %s (catalogue order)", i, s.Name, IDs[i])
		}
		if s.Title == "" || s.Text == "" {
			t.Errorf("%s: empty title or text", s.Name)
		}
		if n := strings.Count(s.Text, ". ") + 1; n < 2 || len(s.Text) > 1200 {
			t.Errorf("%s: the text should be 2-5 short sentences (%d sentences, %d bytes)", s.Name, n, len(s.Text))
		}
		var kinds []string
		for _, e := range s.Expect {
			kinds = append(kinds, e.Kind)
		}
		if !slices.Contains(kinds, ExpectBreaks) || !slices.Contains(kinds, ExpectSurvives) {
			t.Errorf("%s: want expect lines for both breaks and survives, got %v", s.Name, kinds)
		}
		if ok, why := s.Applies(s.Design); !ok {
			t.Errorf("%s: default design %s does not apply: %s", s.Name, s.Design, why)
		}
	}
}

// TestScenarioRoundTrip: Format then Parse gives the same scenario.
func TestScenarioRoundTrip(t *testing.T) {
	ss := All()
	full, err := Parse("full.txt", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(ss, full) {
		text := s.Format()
		got, err := Parse(s.File, text)
		if err != nil {
			t.Errorf("%s: Format output does not parse: %v\n%s", s.Name, err, text)
			continue
		}
		if diff := cmp.Diff(s, got, cmpopts.IgnoreFields(Scenario{}, "Source")); diff != "" {
			t.Errorf("%s: Parse(Format) (-want +got):\n%s", s.Name, diff)
		}
		if again := got.Format(); string(again) != string(text) {
			t.Errorf("%s: Format is not stable:\n%s\nthen\n%s", s.Name, text, again)
		}
	}
}

func TestLookup(t *testing.T) {
	s, err := Lookup("gc-pause")
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.Faults[0].After.Actor = "Z" // a copy: the next Lookup is unaffected
	s.Designs = append(s.Designs, "x")
	again, _ := Lookup("gc-pause")
	if again.Spec.Faults[0].After.Actor != "A" || again.Designs != nil {
		t.Errorf("Lookup returned shared state")
	}
	_, err = Lookup("gc-paws")
	want := `unknown scenario "gc-paws" (known: ` + strings.Join(IDs, ", ") + `)`
	if err == nil || err.Error() != want {
		t.Errorf("Lookup(gc-paws) error\n got: %v\nwant: %s", err, want)
	}
}
