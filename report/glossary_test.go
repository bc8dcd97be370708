package report

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"locksim/model"
	"locksim/model/invariant"
)

// TestGlossaryDoc: docs/glossary.md is the glossary the reports link to,
// entry for entry (make golden, or -rewrite, writes it).
func TestGlossaryDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "glossary.md")
	got := GlossaryMarkdown()
	if f := flag.Lookup("rewrite"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("docs/glossary.md is not the report's glossary; run make golden and review the diff")
	}
	for _, g := range glossary {
		if !strings.Contains(string(want), "\n## "+g.Name+"\n") {
			t.Errorf("docs/glossary.md has no entry %q", g.Name)
		}
	}
}

// TestGlossaryTermsAreLinked: the page links the terms of its story to
// entries at its foot, every link has its entry, a word that only looks
// like a term's (the acquire wait, not WAIT) is not linked, and the text
// report ends with the terms it used and docs/glossary.md.
func TestGlossaryTermsAreLinked(t *testing.T) {
	r := runStory(t, lookup(t, "failover-lost-write"), model.WaitReplica)
	var b strings.Builder
	if err := HTML(&b, r, Meta{Teaching: lookup(t, "failover-lost-write").Text}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<a class="term" href="#g-down-after">down-after</a>`, `<a class="term" href="#g-wait">WAIT</a>`, `<dt id="g-down-after">`, `<dt id="g-failover">`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, m := range regexp.MustCompile(`href="#g-([a-z-]+)"`).FindAllStringSubmatch(page, -1) {
		if !strings.Contains(page, `<dt id="g-`+m[1]+`">`) {
			t.Errorf("a link to #g-%s has no entry on the page", m[1])
		}
	}
	if strings.Contains(page, `>wait</a>`) {
		t.Error("the page links a plain 'wait' to WAIT")
	}
	var tx strings.Builder
	if err := Text(&tx, r, TextOptions{Meta: Meta{Teaching: lookup(t, "failover-lost-write").Text}}); err != nil {
		t.Fatal(err)
	}
	foot := tx.String()[strings.LastIndex(tx.String(), "Terms used"):]
	for _, want := range []string{"docs/glossary.md", "down-after", "failover", "WAIT", "lease"} {
		if !strings.Contains(foot, want) {
			t.Errorf("the text's terms line lacks %q:\n%s", want, foot)
		}
	}
}

// TestVerdictNamesAreTerms: every invariant a text report prints a
// verdict line for is a glossary term, and the report's "Terms used"
// names it.
func TestVerdictNamesAreTerms(t *testing.T) {
	for _, name := range []string{"clock-jump", "failover-lost-write", "read-write", "fair-queue"} {
		sc := lookup(t, name)
		r := runStory(t, sc, sc.Design)
		var tx strings.Builder
		if err := Text(&tx, r, TextOptions{Meta: Meta{Teaching: sc.Text}, Details: true}); err != nil {
			t.Fatal(err)
		}
		out := tx.String()
		foot := strings.Join(strings.Fields(out[strings.LastIndex(out, "Terms used"):]), " ")
		vs := out[strings.Index(out, "\nVerdicts:"):strings.LastIndex(out, "Terms used")]
		for _, id := range invariant.All {
			if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(string(id)) + ` `).MatchString(vs) {
				continue
			}
			i, ok := termOf[string(id)]
			if !ok {
				t.Errorf("%s: the verdict %s is no glossary term", name, id)
				continue
			}
			if !strings.Contains(foot, glossary[i].Name) {
				t.Errorf("%s: the terms line lacks %s:\n%s", name, glossary[i].Name, foot)
			}
		}
	}
}

// TestPrematureLossSaysWhatItDidNotJudge: in clock-jump (redlock) A's key
// expired on r1 at the instant r1's clock jumped; premature-loss excuses
// a clock fault by design, so its verdict line says so rather than a bare
// "held".
func TestPrematureLossSaysWhatItDidNotJudge(t *testing.T) {
	sc := lookup(t, "clock-jump")
	r := runStory(t, sc, sc.Design)
	var tx strings.Builder
	if err := Text(&tx, r, TextOptions{Meta: Meta{Teaching: sc.Text}}); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^  premature-loss +(.*)$`).FindStringSubmatch(tx.String())
	if line == nil {
		t.Fatalf("no premature-loss verdict line:\n%s", tx.String())
	}
	for _, want := range []string{"held (", "not judged", "A's lease was lost at 0.110054s after r1's clock jumped"} {
		if !strings.Contains(line[1], want) {
			t.Errorf("the premature-loss verdict %q lacks %q", line[1], want)
		}
	}
}
