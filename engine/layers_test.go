package engine

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// renderers are the packages that render for people: engine returns
// results and imports none of them (package report renders).
var renderers = []string{"locksim/report", "html/template", "text/template", "html"}

// dataWriters are engine's functions that write to an io.Writer: the
// JSON documents, the results' data forms (merge reads locksim.check/v1
// back). Any other function taking an io.Writer renders, and belongs in
// report.
var dataWriters = []string{"NewJSONWriter", "ExhaustiveJSON"}

// TestEngineImportsNoRenderer: engine's non-test files import no renderer
// and no exported function of theirs writes for people.
func TestEngineImportsNoRenderer(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if slices.Contains(renderers, imp) {
			t.Errorf("engine imports %s: rendering belongs in package report", imp)
		}
	}
	fset := token.NewFileSet()
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || slices.Contains(dataWriters, fn.Name.Name) {
				continue
			}
			for _, p := range fn.Type.Params.List {
				if sel, ok := p.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Writer" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "io" {
						t.Errorf("%s: %s takes an io.Writer: a renderer, which belongs in package report", fset.Position(fn.Pos()), fn.Name.Name)
					}
				}
			}
			if strings.HasSuffix(fn.Name.Name, "Text") || strings.HasSuffix(fn.Name.Name, "Markdown") || strings.HasSuffix(fn.Name.Name, "HTML") {
				t.Errorf("%s: %s is named as a renderer: it belongs in package report", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
}
