package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"locksim/internal/headless"
)

var labLessons = flag.Bool("lab.lessons", false, "TestLabInChromium: take every lesson from broken to fixed (make long); without it each lesson is only loaded and its starting point checked")

// TestLabInChromium drives the served lab in headless Chromium over the
// DevTools protocol: a lesson's check says broken, the run says why,
// stepping moves through the history, an edited release script makes the
// check say fixed and the run break nothing, a check shows its progress,
// and the share link opens the same run; any console error or exception
// fails the test.
func TestLabInChromium(t *testing.T) {
	browser, err := headless.Start()
	if errors.Is(err, headless.ErrNoChromium) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := browser.Close(); err != nil {
			t.Log(err) // the browser's litter, not the lab's
		}
	}()
	_, site := buildLab(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: labHandler(site)}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String() + "/"

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := browser.NewPage(ctx, headless.Size{})
	if err != nil {
		t.Fatal(err)
	}
	must := func(expr string) json.RawMessage {
		t.Helper()
		v, err := c.Eval(ctx, expr)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	str := func(expr string) string {
		t.Helper()
		var s string
		json.Unmarshal(must(expr), &s)
		return s
	}
	// wait polls until the expression is true (a hung page fails at the
	// test's deadline).
	wait := func(what, expr string) {
		t.Helper()
		end := time.Now().Add(time.Minute) // wall clock: only a hung page's deadline
		for ctx.Err() == nil && time.Now().Before(end) {
			if string(must("!!("+expr+")")) == "true" {
				return
			}
			select {
			case e := <-c.Errors():
				t.Fatalf("while waiting for %s: %s", what, e)
			case <-time.After(200 * time.Millisecond):
			}
		}
		t.Fatalf("%s did not happen: status %q", what, str(`document.getElementById("status").textContent`))
	}
	open := func(url string) {
		t.Helper()
		if _, err := c.Call(ctx, "Page.navigate", map[string]any{"url": url}); err != nil {
			t.Fatal(err)
		}
		wait("the page loading", `document.readyState === "complete" && document.body.dataset.ready === "1"`)
	}
	// leave loads an empty page, so the next open loads the lab afresh.
	leave := func() {
		t.Helper()
		if _, err := c.Call(ctx, "Page.navigate", map[string]any{"url": "about:blank"}); err != nil {
			t.Fatal(err)
		}
		wait("leaving the page", `document.URL === "about:blank"`)
	}
	click := func(id string) { t.Helper(); must(`document.getElementById("` + id + `").click()`) }
	idle := `!document.getElementById("run").disabled`

	open(base + "#lesson=owner-values")
	// In the page, the worker prints what the native CLI prints.
	for _, args := range [][]string{{"run", "gc-pause", "--seed", "1"}, {"run", "gc-pause", "--seed", "2"}, {"run", "clock-jump", "--seed", "3", "--format", "json"},
		{"check", "--design", "watchdog", "--runs", "30", "--seed", "4", "--save", "case.json"}} {
		a, _ := json.Marshal(args)
		var got labResult
		json.Unmarshal(must(`locksimCall(`+string(a)+`, {})`), &got)
		native, saved := args, ""
		if args[0] == "check" { // natively, the case goes to a temporary directory
			saved = filepath.Join(t.TempDir(), "case.json")
			native = append(slices.Clone(args[:len(args)-1]), saved)
		}
		code, out, errs := runCLI(native...)
		if saved != "" {
			out = strings.ReplaceAll(out, saved, "case.json")
		}
		if got.Code != code || got.Stdout != out || got.Stderr != errs {
			t.Errorf("in the page, locksim %s: exit %d, %d bytes, stderr %q; native: exit %d, %d bytes, stderr %q",
				strings.Join(args, " "), got.Code, len(got.Stdout), got.Stderr, code, len(out), errs)
		}
		if args[0] == "check" && got.Code == 1 && !strings.Contains(got.Written["case.json"], `"seed"`) {
			t.Errorf("the page's check saved no case in memory: %v", got.Written)
		}
	}
	if got := str(`document.getElementById("lesson-title").textContent`); !strings.Contains(got, "Owner values") {
		t.Fatalf("the lesson's title is %q", got)
	}
	if got := str(`document.getElementById("release").value`); !strings.Contains(got, "redis.call('DEL'") {
		t.Fatalf("the lesson's release script is %q", got)
	}
	click("lesson-check")
	wait("the lesson's verdict", `document.getElementById("lesson-verdict").dataset.verdict`)
	if v := str(`document.getElementById("lesson-verdict").dataset.verdict`); v != "broken" {
		t.Fatalf("the lesson's starting point is %q, want broken: %s", v, str(`document.getElementById("lesson-verdict").textContent`))
	}
	click("run")
	wait("the run", idle+` && document.getElementById("verdict").dataset.code`)
	if code := str(`document.getElementById("verdict").dataset.code`); code != "1" {
		t.Fatalf("the broken run's exit code is %s", code)
	}
	if why := str(`document.getElementById("why").textContent`); !strings.Contains(why, "Why the lease broke") || !strings.Contains(why, "mutual-exclusion") {
		t.Errorf("the page does not say why the lease broke: %q", why)
	}
	if !strings.Contains(str(`document.getElementById("timeline").srcdoc`), `id="lanes"`) {
		t.Error("the timeline is not the report's HTML")
	}
	first := str(`document.getElementById("step-pos").textContent`)
	click("step-violation")
	if next := str(`document.getElementById("step-pos").textContent`); next == first || str(`document.getElementById("step-event").className`) != "in-violation" {
		t.Errorf("stepping to a violation's event: %q then %q", first, next)
	}

	// The student's change: an owner value per client and a
	// compare-and-delete. The release alone is not enough: with the same
	// value for everybody, comparing it proves nothing.
	cad := "if redis.call('GET', KEYS[1]) == ARGV[1] then\n  return redis.call('DEL', KEYS[1])\nend\nreturn 0\n"
	b, _ := json.Marshal(cad)
	must(`document.getElementById("release").value = ` + string(b))
	click("lesson-check")
	wait("the lesson's verdict", idle+` && document.getElementById("lesson-verdict").dataset.verdict`)
	if v := str(`document.getElementById("lesson-verdict").dataset.verdict`); v != "broken" {
		t.Fatalf("compare-and-delete of a shared value: the lesson says %q: %s", v, str(`document.getElementById("lesson-verdict").textContent`))
	}
	must(`document.getElementById("lesson-verdict").dataset.verdict = ""`)
	must(`document.getElementById("acquire").value = "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])"`)
	click("lesson-check")
	wait("the lesson's verdict", idle+` && document.getElementById("lesson-verdict").dataset.verdict`)
	if v := str(`document.getElementById("lesson-verdict").dataset.verdict`); v != "fixed" {
		t.Fatalf("compare-and-delete: the lesson says %q: %s", v, str(`document.getElementById("lesson-verdict").textContent`))
	}
	must(`document.getElementById("verdict").dataset.code = ""`)
	click("run")
	wait("the run", idle+` && document.getElementById("verdict").dataset.code`)
	if code := str(`document.getElementById("verdict").dataset.code`); code != "0" {
		t.Fatalf("the fixed run's exit code is %s", code)
	}

	// A check with its progress bar.
	must(`document.getElementById("runs").value = "40"`)
	must(`document.getElementById("verdict").dataset.code = ""`)
	click("check")
	wait("the check", idle+` && document.getElementById("verdict").dataset.code`)
	if code := str(`document.getElementById("verdict").dataset.code`); code != "0" && code != "1" {
		t.Fatalf("check: exit %s: %s", code, str(`document.getElementById("verdict").textContent`))
	}
	if !strings.Contains(str(`document.getElementById("progress-text").textContent`), "40/40 runs") {
		t.Errorf("the progress bar did not reach 40/40: %q", str(`document.getElementById("progress-text").textContent`))
	}

	// The share link opens the same run.
	click("share")
	link := str(`document.getElementById("share-link").value`)
	if !strings.HasPrefix(link, base+"#s=") {
		t.Fatalf("the share link is %q", link)
	}
	leave() // the link differs from the page's URL only in the fragment
	open(link)
	wait("the shared run", idle+` && document.getElementById("verdict").dataset.code`)
	if got := str(`document.getElementById("release").value`); got != cad {
		t.Errorf("the shared link's release script is %q", got)
	}
	if code := str(`document.getElementById("verdict").dataset.code`); code != "0" {
		t.Errorf("the shared run's exit code is %s", code)
	}
	if !strings.Contains(str(`document.getElementById("lesson-title").textContent`), "Owner values") {
		t.Error("the shared link lost its lesson")
	}
	if st := str(`document.getElementById("status").dataset.state`); st != "ready" {
		t.Errorf("the page's status is %q: %s", st, str(`document.getElementById("status").textContent`))
	}

	// The form's settings write the scenario file: the TTL, the
	// watchdog's period, a fault line (a pause with its length and
	// placement), and removing the faults.
	must(`document.getElementById("ttl").value = "3s"; document.getElementById("ttl-set").click()`)
	must(`document.getElementById("renew-every").value = "200ms"; document.getElementById("renew-set").click()`)
	must(`document.getElementById("renew-every").value = "300ms"; document.getElementById("renew-set").click()`)
	must(`document.getElementById("fault-clear").click(); document.getElementById("fault-line").value = "pause A for 2s after A write"; document.getElementById("fault-add").click()`)
	sc := str(`document.getElementById("scenario").value`)
	if !strings.Contains(sc, "\nttl 3s\n") || strings.Count(sc, "renew-every=") != 1 || !strings.Contains(sc, "option renew-every=300ms") ||
		strings.Count(sc, "\nfault ") != 1 || !strings.Contains(sc, "\nfault pause A for 2s after A write\n") {
		t.Errorf("the settings did not reach the scenario file:\n%s", sc)
	}

	// Every lesson loads, and its check, run on the simulator, says its
	// starting point is broken. With -lab.lessons (make long) the change
	// its question asks for then makes the check say fixed.
	setDesign := func(d string) string { return `document.getElementById("design").value = "` + d + `"` }
	setScript := func(id, src string) string {
		b, _ := json.Marshal(src)
		return `document.getElementById("` + id + `").value = ` + string(b)
	}
	setpx := "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])"
	solutions := map[string][]string{
		"setnx-no-expiry":    {setScript("acquire", "if redis.call('SETNX', KEYS[1], ARGV[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end return 0")},
		"ttl":                {setDesign("lua"), setScript("acquire", setpx)},
		"owner-values":       {setScript("acquire", setpx), setScript("release", cad)},
		"compare-and-delete": {setDesign("lua"), setScript("release", cad)},
		"watchdog":           {setScript("renew", "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0")},
		"fencing":            {setDesign("fenced")},
		"redlock":            {`document.getElementById("scenario").value = document.getElementById("scenario").value.replace("persistence=none", "persistence=aof-always")`},
		"failover":           {setDesign("wait-replica")},
		"consensus":          {setDesign("etcd-lease")},
	}
	var ids []string
	json.Unmarshal(must(`LOCKSIM_LESSONS.map(function (l) { return l.id; })`), &ids)
	if len(ids) != 9 || len(ids) != len(solutions) {
		t.Errorf("%d lessons, %d solutions in the test, want 9 (the story of the issue)", len(ids), len(solutions))
	}
	if n := str(`String(document.querySelectorAll("#lesson-list a").length)`); n != fmt.Sprint(len(ids)) {
		t.Errorf("the lesson list links %s lessons, want %d", n, len(ids))
	}
	for _, id := range ids {
		leave()
		open(base + "#lesson=" + id)
		if str(`document.getElementById("lesson-question").textContent`) == "" || str(`document.getElementById("scenario").value`) == "" {
			t.Errorf("lesson %s: no question or no scenario", id)
		}
		steps := []struct {
			change []string
			want   string
		}{{nil, "broken"}}
		if *labLessons {
			steps = append(steps, struct {
				change []string
				want   string
			}{solutions[id], "fixed"})
		}
		for _, step := range steps {
			for _, c := range step.change {
				must(c)
			}
			must(`document.getElementById("lua").hidden = document.getElementById("design").value !== "lua"`)
			must(`document.getElementById("lesson-verdict").dataset.verdict = ""`)
			click("lesson-check")
			wait("lesson "+id+"'s verdict", idle+` && document.getElementById("lesson-verdict").dataset.verdict`)
			if v := str(`document.getElementById("lesson-verdict").dataset.verdict`); v != step.want {
				t.Errorf("lesson %s: %q, want %s: %s", id, v, step.want, str(`document.getElementById("lesson-verdict").textContent`))
			}
		}
	}
	select {
	case e := <-c.Errors():
		t.Errorf("the page logged an error: %s", e)
	default:
	}
}
