package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// reportDataText returns the JSON embedded in an HTML report.
func reportDataText(t *testing.T, page string) string {
	t.Helper()
	const open = `<script id="report-data" type="application/json">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatal("no script#report-data in the page")
	}
	rest := page[i+len(open):]
	j := strings.Index(rest, "</script>")
	if j < 0 {
		t.Fatal("script#report-data is not closed")
	}
	return rest[:j]
}

// reportData extracts and decodes the JSON embedded in an HTML report.
func reportData(t *testing.T, page string) map[string]any {
	t.Helper()
	var data map[string]any
	if err := json.Unmarshal([]byte(reportDataText(t, page)), &data); err != nil {
		t.Fatalf("the embedded JSON does not parse: %v", err)
	}
	return data
}

func renderHTML(t *testing.T, name string) string {
	t.Helper()
	for _, f := range fixtures {
		if f.name == name {
			r, meta := f.fn()
			var b bytes.Buffer
			if err := HTML(&b, r, meta); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
	}
	t.Fatalf("no fixture %q", name)
	return ""
}

// TestHTMLGolden compares the page around the script (verdicts,
// explanations and key events with their times in ms, the toolbar) with
// testdata/NAME.html, where the inline CSS, script and data are elided,
// and the timeline the script draws (lanes, marks with their hover texts,
// write links, windows) with testdata/NAME.timeline.json.
func TestHTMLGolden(t *testing.T) {
	for _, name := range []string{"gc-pause", "pause-after-write", "clean"} {
		t.Run(name, func(t *testing.T) {
			page := renderHTML(t, name)
			for _, e := range []struct{ open, stands string }{
				{"<style>", "/* report.css */"},
				{`<script id="report-data" type="application/json">`, "(the JSON report and the timeline)"},
				{"<script>", "/* report.js */"},
			} {
				i := strings.Index(page, e.open)
				if i < 0 {
					t.Fatalf("the page lacks %s", e.open)
				}
				i += len(e.open)
				j := i + strings.Index(page[i:], "</")
				page = page[:i] + e.stands + page[j:]
			}
			golden(t, name+".html", []byte(page))
			dec := json.NewDecoder(strings.NewReader(reportDataText(t, renderHTML(t, name))))
			dec.UseNumber()
			var data map[string]any
			if err := dec.Decode(&data); err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(data["timeline"], "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".timeline.json", append(b, '\n'))
		})
	}
}

func TestHTMLSelfContained(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			page := renderHTML(t, f.name)
			if !strings.HasPrefix(page, "<!DOCTYPE html>") || strings.Count(page, "<html") != 1 ||
				strings.Count(page, "</html>") != 1 || !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
				t.Error("the page is not exactly one HTML document")
			}
			for _, bad := range []string{"http://", "https://", "<link", " src=", "@import", "url(http", "//cdn"} {
				if strings.Contains(page, bad) {
					t.Errorf("the page contains %q: it must load nothing", bad)
				}
			}
			for _, want := range []string{`id="lanes"`, `id="explanation"`, `id="verdicts"`, `id="report-data"`, `id="zoom-in"`, `id="zoom-reset"`} {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %s", want)
				}
			}
			data := reportData(t, page)
			if data["schema"] != Schema {
				t.Errorf("embedded schema = %v, want %s", data["schema"], Schema)
			}
			tl, _ := data["timeline"].(map[string]any)
			lanes, ok := tl["lanes"].([]any)
			r, _ := f.fn()
			if want := len(build(r).Lanes); !ok || len(lanes) != want {
				t.Errorf("embedded timeline has lanes %#v, want %d lanes", tl["lanes"], want)
			}
		})
	}
}

func TestHTMLContent(t *testing.T) {
	page := renderHTML(t, "gc-pause")
	for _, want := range []string{
		"A stop-the-world pause longer than the TTL",                    // teaching text
		`overlap for <span class="ms" title="0.055127s">55.1 ms</span>`, // a checker's explanation, in ms
		"Also in the history: A was paused from",                        // the story
		`<tr class="broken" data-invariant="mutual-exclusion">`,
		`<tr class="held" data-invariant="lost-update">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	data := reportData(t, page)
	lanes := data["timeline"].(map[string]any)["lanes"].([]any)
	var ids []string
	for _, l := range lanes {
		ids = append(ids, l.(map[string]any)["id"].(string))
	}
	if got, want := strings.Join(ids, ","), "A,B,r1,resource"; got != want {
		t.Errorf("lanes = %s, want %s", got, want)
	}
}

// TestHTMLEscapes checks that hostile text in a history cannot end the
// data script or inject markup.
func TestHTMLEscapes(t *testing.T) {
	r, meta := gcPause()
	r.History[0].Value = `</script><script>alert(1)</script>`
	r.Violations[0].Explanation = `<b>bold</b> & "quoted"`
	meta.Teaching = `<img onerror=x>`
	var b bytes.Buffer
	if err := HTML(&b, r, meta); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<b>bold") || strings.Contains(page, "<img") {
		t.Error("text from the result reached the page unescaped")
	}
	if n := len(regexp.MustCompile(`</script>`).FindAllString(page, -1)); n != 2 {
		t.Errorf("the page has %d </script> tags, want 2", n)
	}
	reportData(t, page)
}

func TestHTMLPath(t *testing.T) {
	r, meta := clean()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := HTMLPath(path, r, meta); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := HTML(&want, r, meta); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want.Bytes()) {
		t.Error("HTMLPath wrote something else than HTML")
	}
	if err := HTMLPath(filepath.Join(t.TempDir(), "no", "such", "dir", "x.html"), r, meta); err == nil {
		t.Error("HTMLPath into a missing directory returned no error")
	}
}

func TestHTMLDeterministic(t *testing.T) {
	a, b := renderHTML(t, "failover"), renderHTML(t, "failover")
	if a != b {
		t.Error("two renderings differ")
	}
}

// TestProse: teaching texts keep their escaping and show `IDs` as code.
func TestProse(t *testing.T) {
	for in, want := range map[string]string{
		"under `fenced`: safe": "under <code>fenced</code>: safe",
		"`a` and `b<`":         "<code>a</code> and <code>b&lt;</code>",
		"a lone ` stays <b>":   "a lone ` stays &lt;b&gt;",
		"no quotes & all":      "no quotes &amp; all",
		"`<img onerror=x>`":    "<code>&lt;img onerror=x&gt;</code>",
	} {
		if got := string(prose(in)); got != want {
			t.Errorf("prose(%q) = %q, want %q", in, got, want)
		}
	}
}
