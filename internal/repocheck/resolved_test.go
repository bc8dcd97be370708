package repocheck

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// resolvedOnly lists, per non-test file, how many calls of a spec's
// WithDefaults() and Traits() it may make, and why. A spec is resolved
// once, at the entry point that takes it (model.Spec.Resolve, or
// Spec.Resolution where a run goes on to refuse a design that cannot be
// built), and the model.Resolved is passed down: its Spec has the
// defaults, its Traits, Roster and Check what the run takes. What remains
// here is either another type's method of the same name, a spec read as
// given (whether a design fits before a spec is complete: a Resolved would
// answer for the spec with its defaults, which for a Lua design on a
// cluster takes a quorum the given spec does not yet say), or not yet
// converted, named as such.
var resolvedOnly = map[string]struct {
	withDefaults, traits int
	why                  string
}{
	"model/traits.go":              {traits: 1, why: "TraitsOf asks a design that declares its traits (the Traited interface)"},
	"consensus/config.go":          {withDefaults: 1, why: "consensus.Config's own defaults, another type"},
	"consensus/design.go":          {withDefaults: 1, why: "consensus.Config's own defaults, another type"},
	"scenarios/generate_config.go": {traits: 1, why: "as given: the generator's draws fill the fields the defaults would, so they read the traits before them (the drawn run is resolved once)"},
	"scenarios/scenario.go":        {traits: 3, why: "as given: whether a scenario's layout fits a design"},
	"engine/matrix.go":             {traits: 1, why: "as given: whether a scenario fits a matrix column's design"},
	"engine/sweep.go":              {traits: 1, why: "as given: whether a sweep's parameter fits the design"},
	"engine/check.go":              {traits: 1, why: "as given: Validate's watchdog place for a design that does not renew"},
	"cmd/locksim/check.go":         {traits: 1, why: "as given: check's flags validated before the defaults"},
	"risk/advise.go":               {traits: 2, why: "as given: the advisor's grid varies the design the user gave"},
}

// TestASpecIsResolvedOnce: no non-test file of the module (or of
// realclient) calls a spec's WithDefaults() or Traits() (syntactically: a
// call of either with no arguments) more often than resolvedOnly allows,
// and every row of resolvedOnly is exact, so a call site added anywhere
// fails here and one taken out lowers its row.
func TestASpecIsResolvedOnce(t *testing.T) {
	type count struct{ withDefaults, traits int }
	got := map[string]*count{}
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (path == "tools" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) > 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "WithDefaults" && sel.Sel.Name != "Traits" {
				return true
			}
			p := filepath.ToSlash(path)
			if got[p] == nil {
				got[p] = &count{}
			}
			if sel.Sel.Name == "WithDefaults" {
				got[p].withDefaults++
			} else {
				got[p].traits++
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("parsed %d files: the walk is broken", files)
	}
	var paths []string
	for p := range got {
		paths = append(paths, p)
	}
	for p := range resolvedOnly {
		if got[p] == nil {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		c, allowed := got[p], resolvedOnly[p]
		if c == nil {
			c = &count{}
		}
		switch {
		case c.withDefaults > allowed.withDefaults || c.traits > allowed.traits:
			t.Errorf("%s: %d call(s) of .WithDefaults() and %d of .Traits(), %d and %d allowed (%s): resolve the spec once at the entry point (model.Spec.Resolve) and pass the model.Resolved down",
				p, c.withDefaults, c.traits, allowed.withDefaults, allowed.traits, cmp.Or(allowed.why, "no row"))
		case c.withDefaults < allowed.withDefaults || c.traits < allowed.traits:
			t.Errorf("%s: %d call(s) of .WithDefaults() and %d of .Traits(), its row allows %d and %d: lower the row in resolvedOnly",
				p, c.withDefaults, c.traits, allowed.withDefaults, allowed.traits)
		}
	}
}
