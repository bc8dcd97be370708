package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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

// TestHTMLInChromium loads each fixture's page in headless Chromium with
// the page's self-test (zoom, pan, hover, focus, the event table) and
// checks the DOM after the scripts ran.
func TestHTMLInChromium(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium not on PATH")
	}
	for _, f := range fixtures {
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
		})
	}
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
