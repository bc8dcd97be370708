package main

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pkg/errors"

	"locksim/scenarios"
)

// labFiles are the lab's pages and scripts, written as they are.
//
//go:embed lab
var labFiles embed.FS

// labMaxBytes is the most the lab may ship: every file it writes.
const labMaxBytes = 8 << 20

// cmdLab writes the lab (a static site running the simulator compiled to
// WebAssembly) into a directory, or serves it on localhost.
//
// The wasm build is made here, with the local Go toolchain, from the
// locksim source tree (the module that holds the working directory, or
// --src), or taken ready-made with --wasm. A build committed to the
// repository would add its 6-7 MB to the history on every change of the
// simulator, and a test that it is fresh would need the same build.
func cmdLab(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("lab", "lab (-o DIR | --serve [--addr 127.0.0.1:PORT]) [--wasm FILE | --src DIR]", stdout)
	out := fs.String("o", "", "write the lab's static site into this directory")
	serve := fs.Bool("serve", false, "serve the lab on localhost (written into a temporary directory, or -o)")
	addr := fs.String("addr", "127.0.0.1:8046", "with --serve: the loopback address and port to listen on")
	wasm := fs.String("wasm", "", "use this locksim build for GOOS=js GOARCH=wasm (plain or gzipped) instead of building one")
	src := fs.String("src", "", "the locksim source tree to build the wasm from (default: the module holding the working directory)")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("lab takes no arguments, got %q", fs.Arg(0))
	}
	if *out == "" && !*serve {
		return exitUsage, usagef("give -o DIR to write the lab, or --serve to serve it")
	}
	var ln net.Listener
	if *serve {
		host, _, err := net.SplitHostPort(*addr)
		if err != nil {
			return exitUsage, usagef("--addr %q: %v", *addr, err)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return exitUsage, usagef("--addr %q: the lab serves on a loopback address only (127.0.0.1, ::1 or localhost)", *addr)
		}
		// Listen before the build, so a port in use fails at once.
		if ln, err = net.Listen("tcp", *addr); err != nil {
			return exitUsage, errors.Wrap(err, "--addr")
		}
		defer ln.Close()
	}
	gz, err := labWasm(*wasm, *src, stderr)
	if err != nil {
		return exitUsage, err
	}
	dir := *out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "locksim-lab-"); err != nil {
			return exitUsage, err
		}
		defer os.RemoveAll(dir)
	}
	n, err := writeLab(dir, gz)
	if err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(stdout, "lab: %d files, %d bytes (at most %d) in %s\n", len(labFileNames())+3, n, labMaxBytes, dir)
	if !*serve {
		fmt.Fprintf(stdout, "open it through a web server (the page fetches its .wasm, which Chromium refuses from file://): locksim lab --serve, or any static host\n")
		return exitSafe, nil
	}
	fmt.Fprintf(stdout, "serving on http://%s/ (Ctrl-C to stop)\n", ln.Addr())
	return exitUsage, http.Serve(ln, labHandler(dir))
}

// labHandler serves the lab's directory, never caching (a rebuilt lab is
// seen at once).
func labHandler(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	})
}

// labFileNames are the embedded lab files, relative to lab/.
func labFileNames() []string {
	var names []string
	_ = fs.WalkDir(labFiles, "lab", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, strings.TrimPrefix(p, "lab/"))
		}
		return nil
	})
	return names
}

// writeLab writes the site into dir: the embedded pages, wasm_exec.js of
// the Go toolchain, the catalogue's scenarios as data.js and the gzipped
// wasm. It returns the bytes written and fails over labMaxBytes.
func writeLab(dir string, gz []byte) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	files := map[string][]byte{"locksim.wasm.gz": gz}
	for _, name := range labFileNames() {
		b, err := labFiles.ReadFile("lab/" + name)
		if err != nil {
			return 0, err
		}
		files[name] = b
	}
	exec, err := wasmExecJS()
	if err != nil {
		return 0, err
	}
	files["wasm_exec.js"] = exec
	files["data.js"] = labData()
	total := 0
	for _, b := range files {
		total += len(b)
	}
	if total > labMaxBytes {
		return total, errors.Errorf("the lab would ship %d bytes, more than %d", total, labMaxBytes)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// labData is data.js: the catalogue's scenario files, for the page's
// scenario editor.
func labData() []byte {
	type sc struct {
		ID, Title, Design, Source string
	}
	var all []sc
	for _, s := range scenarios.All() {
		all = append(all, sc{s.Name, s.Title, s.Design, s.Source})
	}
	b, err := json.Marshal(all)
	if err != nil {
		panic(err) // strings only
	}
	return []byte("// Written by locksim lab: the catalogue's scenario files.\nvar LOCKSIM_SCENARIOS = " + string(b) + ";\n")
}

// goTool runs the go command with env added, in dir.
func goTool(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out, nil
}

// wasmExecJS is the Go toolchain's wasm_exec.js, which must match the Go
// that built the wasm.
func wasmExecJS() ([]byte, error) {
	root, err := goTool("", nil, "env", "GOROOT")
	if err != nil {
		return nil, errors.Wrap(err, "finding wasm_exec.js (the lab needs the Go toolchain)")
	}
	r := strings.TrimSpace(string(root))
	for _, p := range []string{filepath.Join(r, "lib", "wasm", "wasm_exec.js"), filepath.Join(r, "misc", "wasm", "wasm_exec.js")} {
		if b, err := os.ReadFile(p); err == nil {
			return b, nil
		}
	}
	return nil, errors.Errorf("no wasm_exec.js under %s/lib/wasm or misc/wasm", r)
}

// labWasm returns the gzipped wasm build: the file given (gzipped here if
// it is not), or one built from the source tree.
func labWasm(file, src string, stderr io.Writer) ([]byte, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			return b, nil
		}
		if !bytes.HasPrefix(b, []byte("\x00asm")) {
			return nil, errors.Errorf("--wasm %s is neither WebAssembly nor gzip", file)
		}
		return gzipBytes(b), nil
	}
	root, err := locksimSource(src)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "locksim-wasm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "locksim.wasm")
	fmt.Fprintf(stderr, "lab: building locksim for GOOS=js GOARCH=wasm from %s\n", root)
	if _, err := goTool(root, []string{"GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"}, labBuildArgs(path)...); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return gzipBytes(b), nil
}

// labBuildArgs are the go command's arguments for the wasm build.
func labBuildArgs(out string) []string {
	return []string{"build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/locksim"}
}

// locksimSource is the root of the locksim module: src, or the module
// holding the working directory.
func locksimSource(src string) (string, error) {
	dir := src
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.HasPrefix(strings.TrimSpace(string(b)), "module locksim\n") {
			return d, nil
		}
		if filepath.Dir(d) == d || src != "" {
			break
		}
	}
	return "", usagef("%s is not in the locksim source tree: the lab builds the simulator for WebAssembly from it; run in a checkout, or give --src DIR or --wasm FILE", dir)
}

// gzipBytes compresses b at the best level.
func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}
