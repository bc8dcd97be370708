package repocheck

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docLayers returns docs/architecture.md's package bullets in order, as
// import paths ("locksim/sim", "locksim" for the root).
func docLayers(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	bullet := regexp.MustCompile(`(?m)^- \*\*([a-z0-9/]+?)/?\*\*`)
	var out []string
	for _, m := range bullet.FindAllStringSubmatch(string(b), -1) {
		p := "locksim/" + m[1]
		if m[1] == "locksim" {
			p = "locksim"
		}
		out = append(out, p)
	}
	if len(out) < 10 {
		t.Fatalf("docs/architecture.md lists %d packages: the bullets were not read", len(out))
	}
	return out
}

// layerOf is the index of the bullet a package belongs to: its own, or
// the closest parent's (sim/script is sim's), -1 for none.
func layerOf(layers []string, pkg string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		if (pkg == l || l != "locksim" && strings.HasPrefix(pkg, l+"/")) && len(l) > bestLen {
			best, bestLen = i, len(l)
		}
	}
	return best
}

// TestArchitectureLayersAreTrue: docs/architecture.md's sentence "Each
// package imports only packages listed before it" holds for every
// package of the module as go list reports its (non-test) imports, every
// package belongs to a bullet, and realclient's library imports no root
// package (its tests may).
func TestArchitectureLayersAreTrue(t *testing.T) {
	layers := docLayers(t)
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	pkgs := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs++
		me := layerOf(layers, p.ImportPath)
		if me < 0 {
			t.Errorf("docs/architecture.md lists no bullet for %s", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if imp != "locksim" && !strings.HasPrefix(imp, "locksim/") {
				continue
			}
			if l := layerOf(layers, imp); l > me {
				t.Errorf("%s imports %s, which docs/architecture.md lists after it", p.ImportPath, imp)
			}
		}
	}
	if pkgs < 10 {
		t.Fatalf("go list gave %d packages", pkgs)
	}
	files, err := filepath.Glob("realclient/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue // its tests may compare with locksim.Check
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "locksim" {
				t.Errorf("%s imports the root package locksim", path)
			}
		}
	}
}
