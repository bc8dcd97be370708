package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink is an inline markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)

var codeSpan = regexp.MustCompile("`[^`\n]*`")

// prose is a page without its fenced blocks and code spans, where links
// and headings are not links and headings.
func prose(text string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			out = append(out, l)
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives a page's headings:
// lowercase, spaces to '-', every character but letters, digits, '-' and
// '_' dropped (code spans keep their text), a repeated anchor suffixed -1,
// -2, ....
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	for _, l := range prose(text) {
		m := regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`).FindStringSubmatch(l)
		if m == nil {
			continue
		}
		h := mdLink.ReplaceAllStringFunc(m[1], func(s string) string { return s[1:strings.Index(s, "](")] })
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := count[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		count[a]++
	}
	return anchors
}

// brokenLinks returns the relative links of page (relative to root) that
// name no file or no heading of their file.
func brokenLinks(root, page string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		return nil, err
	}
	var broken []string
	for _, l := range prose(string(b)) {
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(l, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := filepath.Join(root, page) // a bare #anchor is the page itself
			if file != "" {
				path = filepath.Join(root, filepath.Dir(page), filepath.FromSlash(file))
			}
			if _, err := os.Stat(path); err != nil {
				broken = append(broken, target+": no such file")
				continue
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(path, ".md") {
				broken = append(broken, target+": an anchor into a file that is not markdown")
				continue
			}
			tb, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			if !headingAnchors(string(tb))[anchor] {
				broken = append(broken, target+": no such heading")
			}
		}
	}
	return broken, nil
}

// Every relative link and #anchor in README.md, CONTRIBUTING.md,
// CATALOGUE.md and docs/*.md names a file that exists and, with an anchor,
// a heading of that file.
func TestDocLinksResolve(t *testing.T) {
	n := 0
	for _, page := range docPages(t) {
		broken, err := brokenLinks(repoRoot, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range broken {
			t.Errorf("%s: %s", page, b)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("checked %d pages", n)
	}
}

// The link checker sees a link to a missing file, to a missing heading and
// a heading made of punctuation and code the way GitHub anchors it.
func TestDocLinksCheckerCatches(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "docs"), 0o755)
	os.WriteFile(filepath.Join(dir, "docs", "b.md"), []byte("# B\n\n## What `Check` does, in CI!\n\n## Twice\n\n## Twice\n\n```sh\n# not a heading\n```\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.md"), []byte(strings.Join([]string{
		"[ok](docs/b.md#what-check-does-in-ci) [ok](docs/b.md#twice-1) [ok](#a) [ok](https://x.org/#y)",
		"[bad](docs/c.md) [bad](docs/b.md#nope) [bad](docs/b.md#not-a-heading) [bad](#twice)",
		"`[not a link](nowhere.md)`",
		"# A",
	}, "\n")), 0o644)
	got, err := brokenLinks(dir, "a.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"docs/c.md: no such file", "docs/b.md#nope: no such heading", "docs/b.md#not-a-heading: no such heading", "#twice: no such heading"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("broken links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The README is the front door: what locksim is, one story, the two
// examples, how to read a report and where to go next. The rest lives in
// docs/.
func TestReadmeIsShort(t *testing.T) {
	const maxLines = 300
	if n := strings.Count(readPage(t, "README.md"), "\n"); n >= maxLines {
		t.Errorf("README.md has %d lines, at most %d: move a section into docs/ and link it", n, maxLines-1)
	}
}
