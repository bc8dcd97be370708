// Package fingerprint identifies the simulator without version control:
// Sum is a hash of the locksim module's non-test Go sources, the files
// they embed (the scenario catalogue, the scenario format's help, the
// report templates) and go.mod and go.sum, generated into sum.go and
// committed. Two builds with the same Sum run the same simulation from
// the same seeds, whatever the checkout path, the file order on disk, a
// -buildvcs=false build, a source tarball or a container without .git.
//
// Every change to a non-test Go file of the module changes Sum. Refresh it
// with
//
//	make fingerprint
//
// (go generate ./internal/fingerprint/); TestSumIsFresh fails, naming that
// command, while the committed Sum is stale. Tests (_test.go files and
// testdata directories), the nested modules realclient and tools, and
// documentation do not count, nor does sum.go itself.
package fingerprint

//go:generate go run ./gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"
)

// SumFile is the generated file that holds Sum, relative to the module
// root; it is left out of the hash (it could not hold its own hash).
const SumFile = "internal/fingerprint/sum.go"

// Len is the number of hex digits of a fingerprint (64 bits).
const Len = 16

// Files lists the files of the module at root that the fingerprint
// hashes, as slash-separated paths relative to root, sorted: go.mod,
// go.sum, every .go file that is not a _test.go file outside testdata
// directories, directories whose name starts with . or _ (which the go
// command ignores) and nested modules, and every file a //go:embed line
// of those files names. Build constraints are not read: every platform's
// files count, so the fingerprint is the same on every platform.
func Files(root string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(rel string) {
		if !seen[rel] {
			seen[rel] = true
			files = append(files, rel)
		}
	}
	add("go.mod")
	add("go.sum")
	var goFiles []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module: not this one
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || rel == SumFile {
			return nil
		}
		goFiles = append(goFiles, rel)
		add(rel)
		return nil
	})
	if err != nil {
		return nil, errors.Wrap(err, "fingerprint")
	}
	for _, rel := range goFiles {
		embeds, err := embedded(root, rel)
		if err != nil {
			return nil, err
		}
		for _, e := range embeds {
			add(e)
		}
	}
	slices.Sort(files)
	return files, nil
}

// embedded returns the files the //go:embed lines of the Go file rel
// name, relative to root.
func embedded(root, rel string) ([]string, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, errors.Wrap(err, "fingerprint")
	}
	dir := path.Dir(rel)
	var out []string
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "//go:embed ")
		if !ok {
			continue
		}
		pats, err := embedPatterns(rest)
		if err != nil {
			return nil, errors.Wrapf(err, "fingerprint: %s: //go:embed", rel)
		}
		for _, pat := range pats {
			all := false
			if p, ok := strings.CutPrefix(pat, "all:"); ok {
				pat, all = p, true
			}
			matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(path.Join(dir, pat))))
			if err != nil {
				return nil, errors.Wrapf(err, "fingerprint: %s: //go:embed %s", rel, pat)
			}
			if len(matches) == 0 {
				return nil, errors.Errorf("fingerprint: %s: //go:embed %s matches no file", rel, pat)
			}
			for _, m := range matches {
				err := filepath.WalkDir(m, func(p string, d fs.DirEntry, err error) error {
					if err != nil {
						return err
					}
					if p != m && !all && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
						if d.IsDir() {
							return filepath.SkipDir
						}
						return nil
					}
					if d.Type().IsRegular() {
						r, err := filepath.Rel(root, p)
						if err != nil {
							return err
						}
						out = append(out, filepath.ToSlash(r))
					}
					return nil
				})
				if err != nil {
					return nil, errors.Wrap(err, "fingerprint")
				}
			}
		}
	}
	return out, nil
}

// embedPatterns splits a //go:embed line's patterns: space-separated,
// each maybe a Go string literal.
func embedPatterns(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' || s[0] == '`' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, err
			}
			p, err := strconv.Unquote(q)
			if err != nil {
				return nil, err
			}
			out, s = append(out, p), s[len(q):]
			continue
		}
		p, rest, _ := strings.Cut(s, " ")
		out, s = append(out, p), rest
	}
	return out, nil
}

// Compute hashes the files Files lists: SHA-256 over each one's path,
// length and contents, in path order, with CRLF line ends read as LF (a
// checkout that converts line ends is the same simulator). It returns the
// first Len hex digits.
func Compute(root string) (string, error) {
	files, err := Files(root)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return "", errors.Wrap(err, "fingerprint")
		}
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
		h.Write([]byte(rel + "\x00" + strconv.Itoa(len(b)) + "\x00"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:Len], nil
}

// Source returns the text of SumFile for the fingerprint sum.
func Source(sum string) []byte {
	return []byte(`// Code generated by go generate ./internal/fingerprint/ (make fingerprint); DO NOT EDIT.

package fingerprint

// Sum is the fingerprint of this simulator's sources (see the package
// doc). TestSumIsFresh fails when it is stale: run make fingerprint.
const Sum = "` + sum + `"
`)
}

// Root finds the locksim module's root from dir: the nearest directory
// at or above it whose go.mod declares module locksim.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && modulePath(b) == "locksim" {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.Errorf("fingerprint: no go.mod of module locksim at or above %s", dir)
		}
		d = parent
	}
}

func modulePath(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	return ""
}
