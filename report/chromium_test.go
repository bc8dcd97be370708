package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"locksim/internal/headless"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// browser is the headless Chromium this package's tests share: started
// by the first test that loads a page, closed by TestMain. A tab per page
// in one browser costs a fraction of a browser per page (about a second
// of CPU a start).
var browser struct {
	once sync.Once
	b    *headless.Browser
	err  error
}

// TestMain closes the shared browser after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if browser.b != nil {
		if err := browser.b.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err) // the browser's litter, not a failure
		}
	}
	os.Exit(code)
}

// sharedBrowser returns the shared browser, starting it the first time;
// the test is skipped when chromium is not on PATH (Debian: apt-get
// install chromium).
func sharedBrowser(t *testing.T) *headless.Browser {
	t.Helper()
	browser.once.Do(func() { browser.b, browser.err = headless.Start() })
	if errors.Is(browser.err, headless.ErrNoChromium) {
		t.Skip(browser.err)
	}
	if browser.err != nil {
		t.Fatal(browser.err)
	}
	return browser.b
}

// chromium loads url in a tab of the shared headless Chromium (a zero
// size: the browser's default window) and returns its DOM once the load
// event fired, as chromium --dump-dom prints it.
func chromium(t *testing.T, url string, size headless.Size) string {
	t.Helper()
	b := sharedBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dom, err := b.DumpDOM(ctx, url, size)
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return dom
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
	pages = append(pages, struct {
		name string
		fn   func() (*model.Result, Meta)
	}{"real-fenced-grouped", func() (*model.Result, Meta) { return fencedPause(t), Meta{Scenario: "real"} }})
	for _, f := range pages {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			r, meta := f.fn()
			path := filepath.Join(t.TempDir(), f.name+".html")
			if err := HTMLPath(path, r, meta); err != nil {
				t.Fatal(err)
			}
			dom := chromium(t, "file://"+path+"#selftest", headless.Size{})
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

// TestHTMLOpensOnTheWholeRun: without a fragment the page opens on the
// whole run with every violation's band drawn; #v2 opens zoomed on
// violation 2, #all on the whole run; the "whole run" button is there.
func TestHTMLOpensOnTheWholeRun(t *testing.T) {
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
		{"gc-pause", "", "all"},
		{"gc-pause", "#v2", "v2"},
		{"gc-pause", "#v9", "all"}, // no violation 9: the default
		{"gc-pause", "#all", "all"},
		{"pause-after-write", "", "all"},
		{"clean", "", "all"},
		{"empty", "", "all"},
	} {
		t.Run(tc.fixture+tc.frag, func(t *testing.T) {
			t.Parallel()
			dom := chromium(t, "file://"+pages[tc.fixture]+tc.frag, headless.Size{})
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
			if got := strings.Count(dom, `class="win-band"`); got != len(tl.Windows) {
				t.Errorf("the page draws %d violation bands, want %d", got, len(tl.Windows))
			}
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

// measure is a script the layout tests add after the page's own: it
// writes the geometry of what a person sees first (the viewport, the
// page's scroll width, the verdict badges, the chart, the violation
// entries, a danger map's rows and its list) into pre#geometry as JSON.
const measure = `<script>(function () {
  function box(n) { var b = n.getBoundingClientRect(); return { top: b.top, bottom: b.bottom, left: b.left, right: b.right }; }
  function all(sel) { return Array.prototype.map.call(document.querySelectorAll(sel), box); }
  var g = document.querySelector("#explanation li.group");
  var out = { vw: window.innerWidth, vh: window.innerHeight, scrollW: document.documentElement.scrollWidth,
    verdicts: all("#verdicts tr"), chart: all("#chart"), entries: all("#explanation ul.violations > li"),
    groups: all("#explanation li.group"), members: g ? all("#explanation li.group li[data-violation]") : [],
    groupStories: g ? g.querySelectorAll("details.story").length : 0,
    dangerRows: all("#lanes g.row[data-row=danger] rect"), lockRows: all("#lanes g.row[data-row=lock] rect"),
    ways: all("#ways"), wayGroups: all("#ways details") };
  var pre = document.createElement("pre");
  pre.id = "geometry";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();</script>`

type rect struct{ Top, Bottom, Left, Right float64 }

type geometry struct {
	VW, VH, ScrollW                       float64
	Verdicts, Chart, Entries, Groups      []rect
	Members                               []rect
	GroupStories                          int
	DangerRows, LockRows, Ways, WayGroups []rect
}

// layout loads the page in a 1280x800 window with the measuring script
// and returns what it measured (VH: 800).
func layout(t *testing.T, page []byte) geometry {
	t.Helper()
	i := bytes.LastIndex(page, []byte("</body>"))
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, append(append(append([]byte{}, page[:i]...), measure...), page[i:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := chromium(t, "file://"+path, headless.Size{Width: 1280, Height: 800})
	if body := regexp.MustCompile(`<body[^>]*>`).FindString(dom); !strings.Contains(body, `data-ready="1"`) || strings.Contains(body, "data-errors") {
		t.Fatalf("the script did not finish cleanly: %s", body)
	}
	m := regexp.MustCompile(`<pre id="geometry">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("the page has no geometry")
	}
	var g geometry
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &g); err != nil {
		t.Fatal(err)
	}
	if g.VW != 1280 {
		t.Fatalf("the window is %v px wide, want 1280", g.VW)
	}
	// The tab's viewport is emulated at 1280x800; the boxes are measured
	// from the top of the page at scroll 0 and judged against 800 (as
	// when the page had a window of that size, whose chrome took some of
	// its height).
	g.VH = 800
	return g
}

// within reports whether every box lies inside the opening viewport.
func within(g geometry, rs []rect) bool {
	for _, r := range rs {
		if r.Top < 0 || r.Left < 0 || r.Bottom > g.VH || r.Right > g.VW {
			return false
		}
	}
	return len(rs) > 0
}

// TestHTMLOpeningLayout: in a 1280x800 window the page opens with the
// verdict badges and the whole timeline on screen and no horizontal
// scrolling; violations that share a cause are one block (its members
// inside it, one folded story); measured from the DOM.
func TestHTMLOpeningLayout(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not on PATH")
	}
	pages := map[string]func() []byte{
		"gc-pause": func() []byte { r, meta := gcPause(); return page(t, r, meta) },
		"fenced":   func() []byte { return page(t, fencedPause(t), Meta{Scenario: "fenced"}) },
	}
	for _, name := range []string{"gc-pause", "fenced"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := layout(t, pages[name]())
			if g.ScrollW > g.VW {
				t.Errorf("the page is %v px wide in a %v px window: it scrolls sideways", g.ScrollW, g.VW)
			}
			if !within(g, g.Verdicts) {
				t.Errorf("the verdict badges %+v are not all in the opening %vx%v view", g.Verdicts, g.VW, g.VH)
			}
			if !within(g, g.Chart) {
				t.Errorf("the timeline %+v is not whole in the opening %vx%v view", g.Chart, g.VW, g.VH)
			}
			if name != "fenced" {
				return
			}
			if len(g.Groups) != 1 || len(g.Entries) != 1 {
				t.Fatalf("%d entries and %d groups, want the three violations as one group", len(g.Entries), len(g.Groups))
			}
			gr := g.Groups[0]
			if len(g.Members) != 3 {
				t.Errorf("the group shows %d violations, want 3", len(g.Members))
			}
			for _, m := range g.Members {
				if m.Top < gr.Top || m.Bottom > gr.Bottom {
					t.Errorf("a member %+v lies outside its group's block %+v", m, gr)
				}
			}
			if g.GroupStories != 1 {
				t.Errorf("the group has %d stories, want one, folded", g.GroupStories)
			}
		})
	}
}

// TestDangerPageLayout: a danger map's page draws its danger rows taller
// than the lock rows and before the ways it breaks, which are grouped by
// mechanism and folded.
func TestDangerPageLayout(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not on PATH")
	}
	var b bytes.Buffer
	if err := DangerHTML(&b, dangerFixture()); err != nil {
		t.Fatal(err)
	}
	g := layout(t, b.Bytes())
	if len(g.DangerRows) == 0 || len(g.Ways) != 1 {
		t.Fatalf("%d danger zones and %d lists of ways", len(g.DangerRows), len(g.Ways))
	}
	if len(g.WayGroups) != 2 {
		t.Errorf("%d groups of ways, want 2 (pause, clock-jump)", len(g.WayGroups))
	}
	tallest := 0.0
	for _, r := range g.LockRows {
		tallest = max(tallest, r.Bottom-r.Top)
	}
	for _, r := range g.DangerRows {
		if r.Bottom > g.Ways[0].Top {
			t.Errorf("a danger zone %+v is below the list of ways %+v", r, g.Ways[0])
		}
		if r.Bottom-r.Top <= tallest {
			t.Errorf("a danger zone is %v px tall, no taller than the lock rows' %v", r.Bottom-r.Top, tallest)
		}
	}
	if !within(g, g.DangerRows) {
		t.Error("the danger rows are not in the opening view")
	}
}

// page renders a result's HTML report.
func page(t *testing.T, r *model.Result, meta Meta) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, r, meta); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// dangerFixture is a danger map over the gc-pause fixture's run with
// three ways in two mechanisms.
func dangerFixture() *Danger {
	r, _ := gcPause()
	r.Violations = nil
	return &Danger{Run: r, Design: "set-px-lua", Guarantee: "explored all 10 one-fault schedules", Limits: "within this run",
		Points: []DangerPoint{
			{At: us(2949), Actor: "A", Harm: invariant.HarmData, Label: "A acquired", Detail: "2 of 3 broke"},
			{At: us(1049101), Actor: "B", Harm: invariant.HarmLease, Label: "B acquired", Detail: "1 of 3 broke"},
			{At: us(1104228), Actor: "B", Harm: invariant.HarmNone, Label: "B released", Detail: "0 of 3 broke"},
		},
		Verdicts: []DangerVerdict{{Invariant: "mutual-exclusion", Verdict: "broken", Text: "broken by 3 schedules"}},
		Ways: []DangerWay{
			{Mechanism: "pause the client right after the client acquired", Broken: "mutual-exclusion,stale-write", Schedules: 2, Smallest: []string{"pause A for 1.5s after A acquired"}},
			{Mechanism: "clock-jump its node forward right after the client acquired", Broken: "mutual-exclusion", Schedules: 1, Smallest: []string{"clock-jump r1 by 2s after A acquired"}},
			{Mechanism: "pause the client after the client read the resource", Broken: "lost-update", Schedules: 1, Smallest: []string{"pause A for 1.5s after A read"}},
		}}
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
	b := sharedBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p, err := b.NewPage(ctx, headless.Size{Width: 1400, Height: 900})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Navigate(ctx, "file://"+path); err != nil {
		t.Fatal(err)
	}
	res, err := p.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		t.Fatal(err)
	}
	var shot struct{ Data []byte } // base64 in the JSON
	if err := json.Unmarshal(res, &shot); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, shot.Data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHTMLCauseAndEffect: clock-jump's page opens on the span its story
// tells (#all on the whole run), draws A's hold after its key expired as
// "believed, not held", puts the clock jump and the expiry it caused side
// by side on r1 (the jump first); stale-release's page draws a line from
// A's late DEL to the key of C's it deleted.
func TestHTMLCauseAndEffect(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not on PATH")
	}
	page := func(id, design string) (string, *timeline) {
		r := runStory(t, lookup(t, id), design)
		path := filepath.Join(t.TempDir(), id+".html")
		if err := HTMLPath(path, r, Meta{}); err != nil {
			t.Fatal(err)
		}
		return path, build(r)
	}
	cj, tl := page("clock-jump", model.Redlock)
	if tl.Story == nil {
		t.Fatal("clock-jump has no story span")
	}
	dom := chromium(t, "file://"+cj, headless.Size{})
	body := regexp.MustCompile(`<body[^>]*>`).FindString(dom)
	if z := attr(body, "data-zoom"); z != "story" || strings.Contains(body, "data-errors") {
		t.Errorf("clock-jump opens on %q (%s), want story", z, body)
	}
	tag := regexp.MustCompile(`<svg id="lanes"[^>]*>`).FindString(dom)
	if from, to := attr(tag, "data-view-from-ns"), attr(tag, "data-view-to-ns"); from != strconv.FormatInt(int64(tl.Story.From), 10) || to != strconv.FormatInt(int64(tl.Story.To), 10) {
		t.Errorf("the view is %s..%s ns, want the story's %d..%d", from, to, tl.Story.From, tl.Story.To)
	}
	if n := strings.Count(dom, `class="believed"`); n != 1 {
		t.Errorf("%d holds drawn as believed, not held; want A's one", n)
	}
	r1 := dom[strings.Index(dom, `data-lane="r1"`):]
	r1 = r1[:strings.Index(r1, `data-lane="r2"`)]
	jump, expire := strings.Index(r1, `data-mark="`+markClockJump+`"`), strings.Index(r1, `data-mark="`+markExpired+`"`)
	if jump < 0 || expire < 0 || jump > expire {
		t.Errorf("r1 draws the clock jump at %d and the expiry at %d: want both, the jump first", jump, expire)
	}
	if all := chromium(t, "file://"+cj+"#all", headless.Size{}); attr(regexp.MustCompile(`<body[^>]*>`).FindString(all), "data-zoom") != "all" {
		t.Error("#all does not open on the whole run")
	}
	sr, tl := page("stale-release", model.SetPxGetdel)
	if len(tl.Hits) == 0 {
		t.Fatal("stale-release has no command that hit another's key")
	}
	dom = chromium(t, "file://"+sr+"#all", headless.Size{})
	if n := strings.Count(dom, `class="hit"`); n != len(tl.Hits) {
		t.Errorf("%d command lines drawn, want %d", n, len(tl.Hits))
	}
}
