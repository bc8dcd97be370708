package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// timelineKinds returns the values of the constants in timeline.go whose
// names start with prefix ("mark", "span"): every kind the timeline can
// produce, read from the source so that a new kind cannot be missed.
func timelineKinds(t *testing.T, prefix string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "timeline.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, prefix) || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s is not a string literal", n.Name)
				}
				v, _ := strconv.Unquote(lit.Value)
				out = append(out, v)
			}
		}
	}
	if len(out) < 5 {
		t.Fatalf("found only %d %s kinds in timeline.go: %v", len(out), prefix, out)
	}
	return out
}

// jsObjectKeys returns the quoted keys of the object literal assigned to
// `var name = {...};` in report.js.
func jsObjectKeys(t *testing.T, name string) map[string]bool {
	t.Helper()
	js := asset("report.js")
	i := strings.Index(js, "var "+name+" = {")
	if i < 0 {
		t.Fatalf("report.js has no var %s", name)
	}
	body := js[i:]
	body = body[:strings.Index(body, "};")]
	keys := map[string]bool{}
	for _, m := range regexp.MustCompile(`"([a-z-]+)":`).FindAllStringSubmatch(body, -1) {
		keys[m[1]] = true
	}
	return keys
}

func legendHas(ch byte) bool {
	return slices.ContainsFunc(legendText, func(l struct {
		ch   byte
		text string
	}) bool {
		return l.ch == ch
	})
}

// TestEveryMarkInTheLegend: every mark kind the timeline can produce has
// a glyph the text legend explains (or a span or mark that shows it, named
// in markShownBy), a shape in the HTML (MARKS) and a name in the HTML
// legend (MARK_NAMES); every span kind likewise (SPAN_NAMES).
func TestEveryMarkInTheLegend(t *testing.T) {
	shapes, names := jsObjectKeys(t, "MARKS"), jsObjectKeys(t, "MARK_NAMES")
	for _, k := range timelineKinds(t, "mark") {
		g, by := markGlyph[k], markShownBy[k]
		switch {
		case g != 0 && by != 0:
			t.Errorf("mark %s has a glyph %c and is also shown by %c", k, g, by)
		case g == 0 && by == 0:
			t.Errorf("mark %s has no glyph in the text timeline (markGlyph) and nothing shows it (markShownBy)", k)
		case g != 0 && !legendHas(g):
			t.Errorf("mark %s: its glyph %c has no entry in legendText", k, g)
		case by != 0 && !legendHas(by):
			t.Errorf("mark %s: %c, which shows it, has no entry in legendText", k, by)
		}
		if !shapes[k] {
			t.Errorf("mark %s has no shape in report.js MARKS", k)
		}
		if !names[k] {
			t.Errorf("mark %s has no entry in report.js MARK_NAMES (the HTML legend)", k)
		}
	}
	spans := jsObjectKeys(t, "SPAN_NAMES")
	for _, k := range timelineKinds(t, "span") {
		if g := spanGlyph[k]; k != spanKey && (g == 0 || !legendHas(g)) {
			t.Errorf("span %s has no glyph with an entry in legendText", k)
		}
		if !spans[k] {
			t.Errorf("span %s has no entry in report.js SPAN_NAMES (the HTML legend)", k)
		}
	}
	// The glyphs the text draws besides marks and spans.
	for _, g := range []byte{'+'} {
		if !legendHas(g) {
			t.Errorf("%c has no entry in legendText", g)
		}
	}
}
