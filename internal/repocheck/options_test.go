package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"locksim/harness"
)

// optionFuncs returns the With... functions of a package directory's
// non-test files, by name, with their declarations.
func optionFuncs(t *testing.T, dir string) map[string]*ast.FuncDecl {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.FuncDecl{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "With") {
				out[fd.Name.Name] = fd
			}
		}
	}
	return out
}

// adapts reports whether fd's body is `return shared(harness.NAME(...))`:
// the shared option itself, adapted, not a copy of it.
func adapts(fd *ast.FuncDecl) bool {
	if fd.Body == nil || len(fd.Body.List) != 1 {
		return false
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	outer, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || len(outer.Args) != 1 {
		return false
	}
	if id, ok := outer.Fun.(*ast.Ident); !ok || id.Name != "shared" {
		return false
	}
	inner, ok := outer.Args[0].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := inner.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "harness" && sel.Sel.Name == fd.Name.Name
}

// TestNoMirroredOptions: the check options locksim and realclient share
// are one set (harness.OptionTable): each row is a constructor of package
// harness, and both packages offer it as an adapter of that constructor
// (return shared(harness.WithX(...))), never as their own copy; an option
// both packages define is a row. Mirrored options (one name, two
// definitions that can drift) are 0.
func TestNoMirroredOptions(t *testing.T) {
	root, rc, h := optionFuncs(t, "."), optionFuncs(t, "realclient"), optionFuncs(t, "harness")
	rows := map[string]bool{}
	for _, r := range harness.OptionTable {
		rows[r.Name] = true
		if h[r.Name] == nil {
			t.Errorf("harness.OptionTable's %s is no constructor of package harness", r.Name)
		}
		for pkg, fns := range map[string]map[string]*ast.FuncDecl{"locksim": root, "realclient": rc} {
			switch fd := fns[r.Name]; {
			case fd == nil:
				t.Errorf("%s.%s is missing: every shared option is offered by both adapters", pkg, r.Name)
			case !adapts(fd):
				t.Errorf("%s.%s is its own copy of the shared option: make it return shared(harness.%s(...))", pkg, r.Name, r.Name)
			}
		}
	}
	var mirrored []string
	for name := range root {
		if rc[name] != nil && !rows[name] {
			mirrored = append(mirrored, name)
		}
	}
	sort.Strings(mirrored)
	if len(mirrored) > 0 {
		t.Errorf("locksim and realclient both define %s outside harness.OptionTable: make each a row and adapt it", strings.Join(mirrored, ", "))
	}
}

// TestCheckOptionsDocIsTheTable: docs/options.md lists the shared check
// options as harness.OptionsDoc renders them (between its markers).
func TestCheckOptionsDocIsTheTable(t *testing.T) {
	b, err := os.ReadFile("docs/options.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- check options table: harness.OptionsDoc -->\n", "<!-- end of check options table -->"
	_, rest, ok1 := strings.Cut(string(b), begin)
	got, _, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("docs/options.md lacks the markers %q and %q", begin, end)
	}
	if want := harness.OptionsDoc(); got != want {
		t.Errorf("docs/options.md's check options table is not harness.OptionTable's; put this between its markers:\n%s", want)
	}
}
