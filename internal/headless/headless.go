// Package headless drives headless Chromium over the Chrome DevTools
// Protocol for the tests that load pages in a browser (report's pages, the
// lab): one browser process serves many pages, each in a tab of its own,
// so a test binary starts Chromium once instead of once per page.
//
// The protocol runs over --remote-debugging-pipe (fd 3: commands in, fd 4:
// replies and events out, each message JSON ending in a NUL byte): no
// websocket, no dependency. Tests only: nothing in the simulator imports
// it.
package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/pkg/errors"
)

// ErrNoChromium is Start's error when chromium is not on PATH (Debian:
// apt-get install chromium); tests skip on it.
var ErrNoChromium = errors.New("chromium not on PATH")

// Browser is one headless Chromium process.
type Browser struct {
	cmd     *exec.Cmd
	w       *os.File
	profile string
	exited  chan struct{}

	mu       sync.Mutex
	next     int
	pending  map[int]chan message
	sessions map[string]*Page
}

type message struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId"`
}

// Start starts headless Chromium with a profile directory of its own.
func Start() (*Browser, error) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		return nil, ErrNoChromium
	}
	// The profile directory is ours, not a test's TempDir: Chromium's
	// helper processes can still write to it for a moment after the
	// browser exits, and TempDir's cleanup fails a test on that.
	profile, err := os.MkdirTemp("", "locksim-chromium-")
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+profile,
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{inR, outW}
	if err := cmd.Start(); err != nil {
		return nil, errors.Wrap(err, "chromium")
	}
	inR.Close()
	outW.Close()
	b := &Browser{cmd: cmd, w: inW, profile: profile, exited: make(chan struct{}),
		pending: map[int]chan message{}, sessions: map[string]*Page{}}
	go func() { cmd.Wait(); close(b.exited) }()
	go b.read(bufio.NewReader(outR))
	return b, nil
}

// read hands each reply to its caller and each event to its page.
func (b *Browser) read(r *bufio.Reader) {
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			ch := b.pending[m.ID]
			delete(b.pending, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		p := b.sessions[m.SessionID]
		b.mu.Unlock()
		if p != nil {
			p.event(m)
		}
	}
}

// call sends a command, to a page's session when session is not empty,
// and returns its result.
func (b *Browser) call(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	if params == nil {
		params = map[string]any{}
	}
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan message, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.w.Write(append(data, 0)); err != nil {
		return nil, errors.Wrap(err, method)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, errors.Errorf("%s: the browser went away", method)
		}
		if m.Error != nil {
			return nil, errors.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, errors.Wrap(ctx.Err(), method)
	}
}

// Close asks the browser to shut down (it closes its helpers), gives it a
// few seconds, kills what is left and removes the profile directory; a
// directory that will not go is returned as the error (the browser's
// litter: callers log it).
func (b *Browser) Close() error {
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	b.call(ctx, "", "Browser.close", nil)
	stop()
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second): // wall clock: only a hung browser's deadline
		b.cmd.Process.Kill()
		<-b.exited
	}
	b.w.Close()
	var err error
	for range 20 {
		if err = os.RemoveAll(b.profile); err == nil {
			return nil
		}
		time.Sleep(250 * time.Millisecond) // wall clock: waiting out another process
	}
	return errors.Wrapf(err, "leaving Chromium's profile %s", b.profile)
}

// Page is one tab of the browser, attached: its commands go to it and its
// events come back to it.
type Page struct {
	b       *Browser
	target  string
	session string
	loads   chan struct{}
	errs    chan string
}

// Size is a viewport in CSS pixels; the zero Size keeps the browser's
// default window.
type Size struct{ Width, Height int }

// NewPage opens a blank tab of the given size with the Page, Runtime and
// Log domains on: its load events, console errors and exceptions come to
// it (Errors).
func (b *Browser) NewPage(ctx context.Context, size Size) (*Page, error) {
	res, err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		return nil, err
	}
	var target struct{ TargetID string }
	json.Unmarshal(res, &target)
	p := &Page{b: b, target: target.TargetID, loads: make(chan struct{}, 16), errs: make(chan string, 100)}
	if res, err = b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}); err != nil {
		p.Close()
		return nil, err
	}
	var att struct{ SessionID string }
	json.Unmarshal(res, &att)
	p.session = att.SessionID
	b.mu.Lock()
	b.sessions[p.session] = p
	b.mu.Unlock()
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		if _, err := p.Call(ctx, m, nil); err != nil {
			p.Close()
			return nil, err
		}
	}
	if size != (Size{}) {
		if _, err := p.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
			"width": size.Width, "height": size.Height, "deviceScaleFactor": 1, "mobile": false}); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// event takes one of the page's events.
func (p *Page) event(m message) {
	var e string
	switch m.Method {
	case "Page.loadEventFired":
		select {
		case p.loads <- struct{}{}:
		default:
		}
		return
	case "Runtime.consoleAPICalled":
		var a struct {
			Type string
			Args []struct {
				Value       any
				Description string
			}
		}
		json.Unmarshal(m.Params, &a)
		if a.Type != "error" && a.Type != "assert" {
			return
		}
		e = fmt.Sprintf("console.%s: %v", a.Type, a.Args)
	case "Runtime.exceptionThrown":
		e = "exception: " + string(m.Params)
	case "Log.entryAdded":
		var a struct {
			Entry struct{ Level, Text, URL string }
		}
		json.Unmarshal(m.Params, &a)
		if a.Entry.Level != "error" {
			return
		}
		e = "log: " + a.Entry.Text + " " + a.Entry.URL
	default:
		return
	}
	select {
	case p.errs <- e:
	default: // a hundred errors unread are enough to fail on
	}
}

// Errors delivers the page's console errors, exceptions and error log
// entries, as text.
func (p *Page) Errors() <-chan string { return p.errs }

// Call sends a command to the page and returns its result.
func (p *Page) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return p.b.call(ctx, p.session, method, params)
}

// Navigate loads url and returns once its load event fired (the page's
// inline scripts have run, as for chromium --dump-dom).
func (p *Page) Navigate(ctx context.Context, url string) error {
	for len(p.loads) > 0 { // an earlier page's
		<-p.loads
	}
	res, err := p.Call(ctx, "Page.navigate", map[string]any{"url": url})
	if err != nil {
		return err
	}
	var nav struct{ ErrorText string }
	json.Unmarshal(res, &nav)
	if nav.ErrorText != "" {
		return errors.Errorf("loading %s: %s", url, nav.ErrorText)
	}
	for {
		select {
		case <-p.loads:
		case <-ctx.Done():
			return errors.Wrapf(ctx.Err(), "loading %s", url)
		}
		// The load event of the document at url: a late one of the
		// blank page it replaced would not be complete at url.
		v, err := p.Eval(ctx, `document.readyState === "complete" && location.href === new URL(`+quote(url)+`).href`)
		if err != nil {
			return err
		}
		if string(v) == "true" {
			return nil
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise)
// and returns its value as JSON.
func (p *Page) Eval(ctx context.Context, expr string) (json.RawMessage, error) {
	res, err := p.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return nil, err
	}
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails json.RawMessage
	}
	json.Unmarshal(res, &r)
	if r.ExceptionDetails != nil {
		return nil, errors.Errorf("%s: %s", expr, r.ExceptionDetails)
	}
	return r.Result.Value, nil
}

// DOM returns the page's document as HTML, as chromium --dump-dom prints
// it.
func (p *Page) DOM(ctx context.Context) (string, error) {
	v, err := p.Eval(ctx, `(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "") + document.documentElement.outerHTML`)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", errors.Wrap(err, "the page's DOM")
	}
	return s, nil
}

// Close closes the tab.
func (p *Page) Close() {
	ctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	p.b.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.target})
	p.b.mu.Lock()
	delete(p.b.sessions, p.session)
	p.b.mu.Unlock()
}

// DumpDOM loads url in a new tab of the given size and returns its DOM
// once the load event fired, as chromium --dump-dom does.
func (b *Browser) DumpDOM(ctx context.Context, url string, size Size) (string, error) {
	p, err := b.NewPage(ctx, size)
	if err != nil {
		return "", err
	}
	defer p.Close()
	if err := p.Navigate(ctx, url); err != nil {
		return "", err
	}
	return p.DOM(ctx)
}
