package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestSearchDoc: every locksim command in docs/search.md's sh blocks runs
// and exits as its comment says.
func TestSearchDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "search.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	n := 0
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		for _, l := range strings.Split(block[1], "\n") {
			if !strings.HasPrefix(l, "locksim ") {
				continue
			}
			m := exitNote.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("%q does not say how it exits", l)
				continue
			}
			want, _ := strconv.Atoi(m[1])
			cmd, _, _ := strings.Cut(l, " #")
			args := append(shellWords(cmd)[1:], "--progress=false")
			code, out, errs := runCLI(args...)
			if code != want {
				t.Errorf("%s: exit %d, the page says %d\n%.600s\n%.600s", cmd, code, want, out, errs)
			}
			n++
		}
	}
	if n < 4 {
		t.Fatalf("found %d commands", n)
	}
}
