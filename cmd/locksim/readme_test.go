package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// tourCommand is one `locksim ...` line of the README's tour and the exit
// code its comment documents ("(exit 1)").
type tourCommand struct {
	line string
	env  []string // the NAME=value assignments before locksim
	args []string
	code int
}

// envAssign is a shell assignment that starts a command line.
var envAssign = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)=(\S*)\s+`)

var exitNote = regexp.MustCompile(`\(exit (\d)\b`)

// readmeTour returns the locksim commands in the sh blocks of the README
// from "## A short tour" to "## Architecture", continuation lines joined.
func readmeTour(t *testing.T) ([]tourCommand, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start, end := strings.Index(text, "## A short tour"), strings.Index(text, "## Architecture")
	if start < 0 || end < start {
		t.Fatal("the README has no tour")
	}
	tour := text[start:end]
	var cmds []tourCommand
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(tour, -1) {
		lines := strings.Split(block[1], "\n")
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			for strings.HasSuffix(strings.TrimSpace(strings.SplitN(l, "#", 2)[0]), "\\") && i+1 < len(lines) {
				l = strings.TrimSuffix(strings.TrimSpace(strings.SplitN(l, "#", 2)[0]), "\\") + " " + strings.TrimSpace(lines[i+1])
				i++
			}
			var env []string
			for m := envAssign.FindStringSubmatch(l); m != nil; m = envAssign.FindStringSubmatch(l) {
				env = append(env, m[1]+"="+m[2])
				l = l[len(m[0]):]
			}
			if !strings.HasPrefix(l, "locksim ") {
				continue
			}
			// The note may sit on the comment lines that follow.
			note := l
			for j := i + 1; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "#"); j++ {
				note += lines[j]
			}
			code := -1
			if m := exitNote.FindStringSubmatch(note); m != nil {
				code, _ = strconv.Atoi(m[1])
			}
			cmdPart, _, _ := strings.Cut(l, " #")
			cmds = append(cmds, tourCommand{line: strings.TrimSpace(cmdPart), env: env, args: shellWords(cmdPart)[1:], code: code})
		}
	}
	return cmds, tour
}

// shellWords splits a command line as sh would for these lines: spaces,
// and double or single quotes around a word.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	quote, in := byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// Every locksim command of the README's tour runs, in order, in a fresh
// directory with the README's own acquire.lua and release.lua, and exits
// with the code its comment documents.
func TestReadmeTour(t *testing.T) {
	cmds, tour := readmeTour(t)
	if len(cmds) < 15 {
		t.Fatalf("found only %d commands in the tour", len(cmds))
	}
	lua := regexp.MustCompile("(?s)```lua\n-- acquire.lua\n(.*?)-- release.lua\n(.*?)```").FindStringSubmatch(tour)
	if lua == nil {
		t.Fatal("the tour has no acquire.lua and release.lua block")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("acquire.lua", []byte(lua[1]), 0o644)
	os.WriteFile("release.lua", []byte(lua[2]), 0o644)
	// Each command has only the environment its line sets: a user's
	// shell has no shard variables.
	for _, k := range []string{envShardIndex, envShardCount, envJobIndex} {
		t.Setenv(k, "")
	}
	for _, c := range cmds {
		if c.code < 0 {
			t.Errorf("the README does not say how %q exits: add (exit N) to its comment", c.line)
			continue
		}
		args := append([]string{}, c.args...)
		if args[0] == "check" || args[0] == "sweep" {
			args = append(args, "--progress=false")
		}
		for _, kv := range c.env {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
		code, out, errs := runCLI(args...)
		for _, kv := range c.env {
			k, _, _ := strings.Cut(kv, "=")
			os.Setenv(k, "")
		}
		if code != c.code {
			t.Errorf("%s: exit %d, the README says %d\n%.400s\n%.400s", c.line, code, c.code, out, errs)
		}
	}
}
