package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// labBuild is the lab the tests share: the wasm build of this package
// (go build GOOS=js GOARCH=wasm, as locksim lab makes it) and the site
// written from it, in a directory TestMain removes.
var labBuild struct {
	once            sync.Once
	dir, wasm, site string
	err             error
}

// buildLab returns the wasm file and the lab's site directory (the build
// costs ~40 s of CPU with a cold build cache).
func buildLab(t *testing.T) (wasm, site string) {
	t.Helper()
	labBuild.once.Do(func() {
		if labBuild.dir, labBuild.err = os.MkdirTemp("", "locksim-lab-"); labBuild.err != nil {
			return
		}
		labBuild.wasm = filepath.Join(labBuild.dir, "locksim.wasm")
		root, err := locksimSource("")
		if err != nil {
			labBuild.err = err
			return
		}
		if _, labBuild.err = goTool(root, []string{"GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"}, labBuildArgs(labBuild.wasm)...); labBuild.err != nil {
			return
		}
		labBuild.site = filepath.Join(labBuild.dir, "site")
		var out, errb bytes.Buffer
		if code := run([]string{"lab", "-o", labBuild.site, "--wasm", labBuild.wasm}, &out, &errb); code != 0 {
			labBuild.err = &usageError{"locksim lab: exit " + string(rune('0'+code)) + ": " + errb.String()}
		}
	})
	if labBuild.err != nil {
		t.Fatal(labBuild.err)
	}
	return labBuild.wasm, labBuild.site
}

type labCall struct {
	Args  []string          `json:"args"`
	Files map[string]string `json:"files,omitempty"`
}

type labResult struct {
	Code           int
	Stdout, Stderr string
	Written        map[string]string
}

// runWasm runs the calls on the wasm build under Node through the lab's
// own runner.js (the worker's code).
func runWasm(t *testing.T, calls []labCall) []labResult {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH")
	}
	wasm, site := buildLab(t)
	b, _ := json.Marshal(calls)
	in := filepath.Join(t.TempDir(), "calls.json")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(node, filepath.Join("testdata", "lab", "node-run.js"), site, wasm, in)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s", err, errb.String())
	}
	var res []labResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("node's output: %v\n%.500s", err, out.String())
	}
	if len(res) != len(calls) {
		t.Fatalf("node ran %d calls, want %d", len(res), len(calls))
	}
	return res
}

// TestLabWasmMatchesNative: the lab's WebAssembly build, run by the
// worker's runner under Node, prints what the native CLI prints for the
// same arguments and seeds, byte for byte, with the same exit code: runs
// in text, JSON and HTML, your own Lua scripts from files, a check, an
// exhaustive check, and errors.
func TestLabWasmMatchesNative(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	acquire := file("acquire.lua", "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n")
	release := file("release.lua", "return redis.call('DEL', KEYS[1])\n")
	sc, _ := os.ReadFile(filepath.Join("..", "..", "scenarios", "catalogue", "stale-release.txt"))
	scenario := file("scenario.txt", strings.Replace(string(sc), "ttl 1s", "ttl 800ms", 1))
	files := map[string]string{}
	for _, p := range []string{acquire, release, scenario} {
		b, _ := os.ReadFile(p)
		files[p] = string(b)
	}
	var calls []labCall
	for seed := range 4 {
		calls = append(calls, labCall{Args: []string{"run", "gc-pause", "--seed", string(rune('1' + seed))}})
	}
	calls = append(calls,
		labCall{Args: []string{"run", "stale-release", "--seed", "7", "--format", "json"}},
		labCall{Args: []string{"run", "failover-lost-write", "--format", "html"}},
		labCall{Args: []string{"run", scenario, "--acquire", acquire, "--release", release, "--seed", "3"}, Files: files},
		labCall{Args: []string{"run", scenario, "--acquire", acquire, "--release", release, "--format", "html"}, Files: files},
		labCall{Args: []string{"check", "--design", "set-px-lua", "--runs", "60", "--seed", "5", "--save", filepath.Join(dir, "case.json")}},
		labCall{Args: []string{"check", "--design", "watchdog", "--runs", "40", "--faults", "pause,partition", "--save", filepath.Join(dir, "case2.json")}},
		labCall{Args: []string{"check", "--exhaustive", "--scenario", "gc-pause", "--design", "set-px-lua", "--save-dir", ""}},
		labCall{Args: []string{"list"}},
		labCall{Args: []string{"run", "no-such-scenario"}},
		labCall{Args: []string{"run", filepath.Join(dir, "missing.txt")}},
	)
	got := runWasm(t, calls)
	for i, c := range calls {
		code, out, errs := runCLI(c.Args...)
		g := got[i]
		if i == len(calls)-1 {
			// Go's js/wasm names ENOENT "No such file or directory" (its
			// errno table), Linux's "no such file or directory".
			g.Stderr = strings.Replace(g.Stderr, "No such file", "no such file", 1)
		}
		if g.Code != code || g.Stdout != out || g.Stderr != errs {
			t.Errorf("locksim %s: wasm exit %d, %d bytes out, stderr %q; native exit %d, %d bytes out, stderr %q",
				strings.Join(c.Args, " "), g.Code, len(g.Stdout), g.Stderr, code, len(out), errs)
			if g.Stdout != out {
				t.Errorf("first difference at byte %d", firstDiff(g.Stdout, out))
			}
		}
		if code > 2 || (code == 0 && len(out) == 0) {
			t.Errorf("locksim %s: exit %d with %d bytes: the comparison proves nothing", strings.Join(c.Args, " "), code, len(out))
		}
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestLabSite: locksim lab -o writes every file the page loads, the wasm
// gzipped (the page inflates it), at most 8 MB in all; the gzip holds the
// wasm build byte for byte.
func TestLabSite(t *testing.T) {
	wasm, site := buildLab(t)
	total := int64(0)
	for _, name := range []string{"index.html", "lab.js", "lab.css", "lessons.js", "worker.js", "runner.js", "wasm_exec.js", "data.js", "locksim.wasm.gz"} {
		fi, err := os.Stat(filepath.Join(site, name))
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
	}
	entries, _ := os.ReadDir(site)
	if len(entries) != 9 {
		t.Errorf("the site has %d files, want 9", len(entries))
	}
	t.Logf("the lab ships %d bytes", total)
	if total > labMaxBytes {
		t.Errorf("the lab ships %d bytes, more than %d", total, labMaxBytes)
	}
	f, err := os.Open(filepath.Join(site, "locksim.wasm.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	inflated, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(wasm)
	if !bytes.Equal(inflated, want) {
		t.Error("locksim.wasm.gz does not inflate to the wasm build")
	}
	// The page loads what the site has.
	html, _ := os.ReadFile(filepath.Join(site, "index.html"))
	for _, s := range []string{`src="data.js"`, `src="lessons.js"`, `src="lab.js"`, `href="lab.css"`} {
		if !bytes.Contains(html, []byte(s)) {
			t.Errorf("index.html lacks %s", s)
		}
	}
}

// TestLabUsage: the lab's bad input is exit 2 with the reason, before any
// build.
func TestLabUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lab"}, "give -o DIR"},
		{[]string{"lab", "--serve", "--addr", "0.0.0.0:8046"}, "loopback address only"},
		{[]string{"lab", "--serve", "--addr", "nonsense"}, "--addr"},
		{[]string{"lab", "-o", t.TempDir(), "extra"}, "no arguments"},
		{[]string{"lab", "-o", t.TempDir(), "--wasm", filepath.Join(t.TempDir(), "none.wasm")}, "no such file"},
		{[]string{"lab", "-o", t.TempDir(), "--src", t.TempDir()}, "not in the locksim source tree"},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("locksim %s: exit %d, stderr %q, stdout %q; want exit 2 saying %q", strings.Join(tc.args, " "), code, errs, out, tc.want)
		}
	}
	code, out, _ := runCLI("lab", "--help")
	if code != 0 || !strings.Contains(out, "-serve") {
		t.Errorf("lab --help: exit %d, %q", code, out)
	}
}

// TestLabServe: locksim lab --serve, a real process, serves the site on
// the loopback address given: the page, the worker and the gzipped wasm
// as written (no Content-Encoding, the page inflates it). It is given the
// site's locksim.wasm.gz, which it serves as it is (TestLabSite's build
// gives lab a wasm file, which it gzips: both kinds of --wasm file are
// run, and the 34 MB wasm is compressed once).
func TestLabServe(t *testing.T) {
	_, site := buildLab(t)
	wasm := filepath.Join(site, "locksim.wasm.gz")
	gz, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	bin := buildCLI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "lab", "--serve", "--addr", addr, "--wasm", wasm)
	stdout, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	serving := false
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "serving on http://"+addr+"/") {
			serving = true
			break
		}
	}
	if !serving {
		t.Fatalf("lab --serve did not say it serves on %s: %s", addr, errb.String())
	}
	for path, want := range map[string]string{"/": "<title>locksim lab</title>", "/worker.js": "DecompressionStream", "/locksim.wasm.gz": "\x1f\x8b"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(b, []byte(want)) || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("GET %s: %s, encoding %q, %d bytes without %q", path, resp.Status, resp.Header.Get("Content-Encoding"), len(b), want)
		}
		if path == "/locksim.wasm.gz" && !bytes.Equal(b, gz) {
			t.Errorf("GET %s: %d bytes, not the %d of the gzip file given", path, len(b), len(gz))
		}
	}
}
