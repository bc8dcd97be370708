package fingerprint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The committed Sum is the sources' fingerprint: a change to a non-test
// Go file (or an embedded file, go.mod, go.sum) without make fingerprint
// fails here, naming the command.
func TestSumIsFresh(t *testing.T) {
	root, err := Root(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Compute(root)
	if err != nil {
		t.Fatal(err)
	}
	if got != Sum {
		t.Fatalf("the committed simulator fingerprint %s is stale: the sources hash to %s. Run\n\n\tmake fingerprint\n\nand commit %s with the change (CONTRIBUTING.md: the simulator fingerprint)", Sum, got, SumFile)
	}
	if len(Sum) != Len {
		t.Errorf("Sum %q has %d hex digits, want %d", Sum, len(Sum), Len)
	}
}

// tree writes a small module of files into dir.
func tree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	// Write in a different order each call: the hash must not care.
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sample() map[string]string {
	return map[string]string{
		"go.mod":                    "module locksim\n\ngo 1.26\n",
		"go.sum":                    "example.com/x v1.0.0 h1:abc=\n",
		"a.go":                      "package locksim\n",
		"a_test.go":                 "package locksim\n",
		"sim/b.go":                  "package sim\n",
		"sim/testdata/c.go":         "package c\n",
		"scenarios/s.go":            "package scenarios\n\nimport \"embed\"\n\n//go:embed catalogue/*.txt \"format.txt\"\nvar fs embed.FS\n",
		"scenarios/catalogue/x.txt": "name x\n",
		"scenarios/format.txt":      "help\n",
		"scenarios/notes.md":        "not embedded\n",
		"realclient/go.mod":         "module locksim/realclient\n",
		"realclient/r.go":           "package realclient\n",
		".ci/x.go":                  "package ci\n",
		SumFile:                     string(Source("0000000000000000")),
	}
}

func compute(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	tree(t, dir, files)
	s, err := Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	tree(t, dir, sample())
	got, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.go", "go.mod", "go.sum", "scenarios/catalogue/x.txt", "scenarios/format.txt", "scenarios/s.go", "sim/b.go"}
	if !slices.Equal(got, want) {
		t.Errorf("Files = %q\nwant    %q", got, want)
	}
}

// The same sources give the same fingerprint in another directory (the
// checkout path does not count) and with CRLF line ends; what the
// simulator is made of changes it, tests, docs, nested modules and sum.go
// do not.
func TestComputeCountsWhatChangesTheSimulator(t *testing.T) {
	base := compute(t, sample())
	if again := compute(t, sample()); again != base {
		t.Fatalf("same sources in another directory: %s, then %s", base, again)
	}
	edit := func(name, text string) string {
		f := sample()
		f[name] = text
		return compute(t, f)
	}
	for _, tc := range []struct {
		name, text string
		changes    bool
	}{
		{"a.go", "package locksim\n\nconst X = 1\n", true},
		{"sim/b.go", "package sim\r\n", false}, // CRLF
		{"go.sum", "example.com/x v1.0.1 h1:def=\n", true},
		{"go.mod", "module locksim\n\ngo 1.27\n", true},
		{"scenarios/catalogue/x.txt", "name y\n", true},
		{"scenarios/format.txt", "other help\n", true},
		{"sim/new.go", "package sim\n", true},
		{"a_test.go", "package locksim\n\nfunc TestX() {}\n", false},
		{"sim/testdata/c.go", "package d\n", false},
		{"scenarios/notes.md", "edited\n", false},
		{"realclient/r.go", "package realclient\n\nconst Y = 2\n", false},
		{"README.md", "docs\n", false},
		{SumFile, string(Source("1111111111111111")), false},
	} {
		got := edit(tc.name, tc.text)
		if changed := got != base; changed != tc.changes {
			t.Errorf("editing %s: fingerprint changed %v, want %v", tc.name, changed, tc.changes)
		}
	}
}

func TestEmbedPatternMatchingNothingIsAnError(t *testing.T) {
	f := sample()
	f["scenarios/s.go"] = strings.Replace(f["scenarios/s.go"], "format.txt", "missing.txt", 1)
	dir := t.TempDir()
	tree(t, dir, f)
	if _, err := Compute(dir); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("err = %v, want one naming missing.txt", err)
	}
}
