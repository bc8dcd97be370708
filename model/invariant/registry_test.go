package invariant

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// declaredIDs reads the package's source for every constant of type ID:
// the invariants as the code declares them, independent of Registry.
func declaredIDs(t *testing.T) map[string]ID {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]ID{}
	for _, f := range pkgs["invariant"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if typ, ok := vs.Type.(*ast.Ident); !ok || typ.Name != "ID" {
					continue
				}
				for i, n := range vs.Names {
					v, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
					if err != nil {
						t.Fatal(err)
					}
					ids[n.Name] = ID(v)
				}
			}
		}
	}
	return ids
}

// TestEveryInvariantHasARegistryEntry fails when an ID constant is declared
// without its Registry entry, or an entry lacks a field: an invariant that
// is never checked, listed, coded or gated.
func TestEveryInvariantHasARegistryEntry(t *testing.T) {
	declared := declaredIDs(t)
	if len(declared) == 0 {
		t.Fatal("found no ID constants in the package source")
	}
	for name, id := range declared {
		if id == TokenOrder {
			continue // an old name Parse reads as two invariants
		}
		if _, ok := Lookup(id); !ok {
			t.Errorf("invariant %s (%q) has no Registry entry", name, id)
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile(`^[A-Z]{2}$`)
	codes, ids := map[string]ID{}, map[ID]bool{}
	permissive := Config{Fencing: TokenAtLeast, Tokens: true, LivenessBound: time.Second, Reentrant: true, Fair: true, Shared: true, Validity: true, AcquireTolerance: time.Second, AvailableBound: time.Second, Masters: []string{"r1", "r2", "r3"}, Tolerate: 1}
	for _, in := range Registry {
		if ids[in.ID] {
			t.Errorf("%s: two Registry entries", in.ID)
		}
		ids[in.ID] = true
		if !code.MatchString(in.Code) {
			t.Errorf("%s: code %q is not two capital letters", in.ID, in.Code)
		} else if other, dup := codes[in.Code]; dup {
			t.Errorf("%s: code %s is %s's too", in.ID, in.Code, other)
		}
		codes[in.Code] = in.ID
		if in.About == "" || in.Harm == HarmNone || in.NotJudged == nil || in.Check == nil {
			t.Errorf("%s: an entry needs About, Harm, NotJudged and Check: %+v", in.ID, in)
			continue
		}
		if why := in.NotJudged(permissive); why != "" {
			t.Errorf("%s: a config that promises everything does not judge it (%s)", in.ID, why)
		}
		if !strings.Contains(string(doc), "//   - "+string(in.ID)) {
			t.Errorf("%s: the package doc (doc.go) does not list it", in.ID)
		}
	}
}
