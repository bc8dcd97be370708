package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// chromium runs headless Chromium on a page and returns its stdout; the
// test is skipped when chromium is not on PATH (Debian: apt-get install
// chromium).
func chromium(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not on PATH")
	}
	if testing.Short() {
		t.Skip("headless browser skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

// TestHTMLInChromium loads each fixture's page, and that of a real run
// with a pause between a write and its request, in headless Chromium with
// the page's self-test (zoom, pan, hover, focus, the event table) and
// checks the DOM after the scripts ran.
func TestHTMLInChromium(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not on PATH")
	}
	pages := slices.Clone(fixtures)
	pages = append(pages, struct {
		name string
		fn   func() (*model.Result, Meta)
	}{"real-fenced-pause-after-write", func() (*model.Result, Meta) {
		s := model.Spec{Design: "fenced", Fencing: model.FenceStrict, Options: model.Options{TTL: time.Second}, Clients: []string{"A", "B"},
			Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindWrite}}}}
		r, err := model.Run(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		return r, Meta{Scenario: "real"}
	}})
	for _, f := range pages {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			r, meta := f.fn()
			path := filepath.Join(t.TempDir(), f.name+".html")
			if err := HTMLPath(path, r, meta); err != nil {
				t.Fatal(err)
			}
			dom := chromium(t, "--dump-dom", "file://"+path+"#selftest")
			body := regexp.MustCompile(`<body[^>]*>`).FindString(dom)
			if !strings.Contains(body, `data-ready="1"`) {
				t.Fatalf("the script did not finish: body tag %q", body)
			}
			if strings.Contains(body, "data-errors") {
				t.Errorf("the script raised errors: %s", body)
			}
			if !strings.Contains(body, `data-selftest="done"`) {
				t.Errorf("the self-test did not run: %s", body)
			}
			tl := build(r)
			if got := strings.Count(dom, `class="lane"`); got != len(tl.Lanes) {
				t.Errorf("the DOM has %d lanes, want %d", got, len(tl.Lanes))
			}
			for _, l := range tl.Lanes {
				if !strings.Contains(dom, `data-lane="`+l.ID+`"`) {
					t.Errorf("the DOM lacks lane %s", l.ID)
				}
			}
			for _, want := range []string{`id="explanation"`, `id="verdicts"`, `id="legend"`} {
				if !strings.Contains(dom, want) {
					t.Errorf("the DOM lacks %s", want)
				}
			}
			if len(r.Violations) > 0 && !strings.Contains(dom, "in the history:") {
				t.Error("the DOM lacks the explanation's story")
			}
			if len(r.Violations) > 0 && !strings.Contains(dom, "win-label") {
				t.Error("the DOM lacks the violation windows")
			}
			// The self-test ends on the whole run, where every mark and
			// link is drawn: reads on the resource row, the instants writes
			// were prepared, and a link per answered write.
			if z := attr(body, "data-zoom"); z != "all" {
				t.Errorf("after the self-test's 'whole run' click the view is %q, want all", z)
			}
			count := map[string]int{}
			for _, l := range tl.Lanes {
				for _, rw := range l.Rows {
					for _, m := range rw.Marks {
						count[m.Kind]++
					}
				}
			}
			for _, k := range []string{markResRead, markWritePrepared, markResOK, markWriteOK} {
				if got := strings.Count(dom, `data-mark="`+k+`"`); got != count[k] {
					t.Errorf("the SVG draws %d %s marks, want %d", got, k, count[k])
				}
			}
			if strings.Contains(f.name, "pause-after-write") && count[markWritePrepared] == 0 {
				t.Error("a write sent after a pause has no write-prepared mark")
			}
			if got := strings.Count(dom, `class="link"`); got != len(tl.Links) {
				t.Errorf("the SVG draws %d write links, want %d", got, len(tl.Links))
			}
		})
	}
}

// attr returns the value of attribute name in an HTML tag's text.
func attr(tag, name string) string {
	m := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return m[1]
}

// TestHTMLOpensOnTheFirstViolation: without a fragment the page opens
// zoomed on violation 1 (on the whole run when there is none), #v2 on
// violation 2, #all on the whole run; the "whole run" button is there.
func TestHTMLOpensOnTheFirstViolation(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not on PATH")
	}
	pages := map[string]string{}
	for _, f := range fixtures {
		r, meta := f.fn()
		path := filepath.Join(t.TempDir(), f.name+".html")
		if err := HTMLPath(path, r, meta); err != nil {
			t.Fatal(err)
		}
		pages[f.name] = path
	}
	for _, tc := range []struct{ fixture, frag, zoom string }{
		{"gc-pause", "", "v1"},
		{"gc-pause", "#v2", "v2"},
		{"gc-pause", "#v9", "v1"}, // no violation 9: the default
		{"gc-pause", "#all", "all"},
		{"pause-after-write", "", "v1"},
		{"clean", "", "all"},
		{"empty", "", "all"},
	} {
		t.Run(tc.fixture+tc.frag, func(t *testing.T) {
			t.Parallel()
			dom := chromium(t, "--dump-dom", "file://"+pages[tc.fixture]+tc.frag)
			body := regexp.MustCompile(`<body[^>]*>`).FindString(dom)
			if !strings.Contains(body, `data-ready="1"`) || strings.Contains(body, "data-errors") {
				t.Fatalf("the script did not finish cleanly: %s", body)
			}
			if z := attr(body, "data-zoom"); z != tc.zoom {
				t.Errorf("the page opens on %q, want %q", z, tc.zoom)
			}
			if !regexp.MustCompile(`<button type="button" id="zoom-reset"[^>]*>whole run</button>`).MatchString(dom) {
				t.Error(`the page lacks the "whole run" button`)
			}
			tag := regexp.MustCompile(`<svg id="lanes"[^>]*>`).FindString(dom)
			from, err1 := strconv.ParseInt(attr(tag, "data-view-from-ns"), 10, 64)
			to, err2 := strconv.ParseInt(attr(tag, "data-view-to-ns"), 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("the SVG does not say its view: %s", tag)
			}
			var r, _ = fixtureByName(t, tc.fixture)
			tl := build(r)
			end := max(int64(tl.End), 1000)
			if tc.zoom == "all" {
				if from != 0 || to != end {
					t.Errorf("the view is %d..%d ns, want the whole run 0..%d", from, to, end)
				}
				return
			}
			w := tl.Windows[tc.zoom[1]-'1']
			if from > int64(w.From) || to < int64(w.To) || to-from >= end/2 {
				t.Errorf("the view %d..%d ns does not zoom on violation %s (%d..%d ns of %d)", from, to, tc.zoom[1:], w.From, w.To, end)
			}
			if !strings.Contains(dom, "(violation "+tc.zoom[1:]+")") {
				t.Errorf("the toolbar does not say the view shows violation %s", tc.zoom[1:])
			}
		})
	}
}

func fixtureByName(t *testing.T, name string) (*model.Result, Meta) {
	t.Helper()
	for _, f := range fixtures {
		if f.name == name {
			return f.fn()
		}
	}
	t.Fatalf("no fixture %q", name)
	return nil, Meta{}
}

// TestHTMLScreenshot writes a screenshot of the gc-pause page when
// LOCKSIM_SCREENSHOT names a PNG file, for people to look at.
func TestHTMLScreenshot(t *testing.T) {
	out := os.Getenv("LOCKSIM_SCREENSHOT")
	if out == "" {
		t.Skip("set LOCKSIM_SCREENSHOT=/tmp/report.png to take a screenshot")
	}
	r, meta := gcPause()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := HTMLPath(path, r, meta); err != nil {
		t.Fatal(err)
	}
	chromium(t, "--screenshot="+out, "--window-size=1400,900", "file://"+path)
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}
