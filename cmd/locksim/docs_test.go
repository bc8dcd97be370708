package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the repository root, seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

// docPages returns every markdown page the doc tests read, relative to the
// repository root: README.md, CONTRIBUTING.md, CATALOGUE.md and docs/*.md.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "CONTRIBUTING.md", "CATALOGUE.md"}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	for _, d := range docs {
		rel, _ := filepath.Rel(repoRoot, d)
		pages = append(pages, filepath.ToSlash(rel))
	}
	return pages
}

func readPage(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, page))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docCommand is one `locksim ...` line of a page's sh blocks and the exit
// code its comment documents ("(exit 1)").
type docCommand struct {
	line string
	env  []string // the NAME=value assignments before locksim
	args []string
	code int // -1 when the comment names none
}

// envAssign is a shell assignment that starts a command line.
var envAssign = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)=(\S*)\s+`)

var exitNote = regexp.MustCompile(`\(exit (\d)\b`)

var shBlock = regexp.MustCompile("(?s)```sh\n(.*?)```")

// gcLog is a page's example GC log, in a text block that starts "# gc.log".
var gcLog = regexp.MustCompile("(?s)```text\n# gc.log\n(.*?)```")

// logFiles are a page's example lock logs and traces: a ```jsonl or
// ```json block whose info string names the file ("```jsonl web-1.jsonl",
// "```json trace.json"), written into the page's directory before its
// commands run.
var logFiles = regexp.MustCompile("(?s)```jsonl? ([A-Za-z0-9._-]+)\n(.*?)```")

// luaScripts is a page's acquire.lua and release.lua, in one lua block.
var luaScripts = regexp.MustCompile("(?s)```lua\n-- acquire.lua\n(.*?)-- release.lua\n(.*?)```")

// pageCommands returns the locksim commands in the sh blocks of a page, in
// order, continuation lines joined. The exit note may sit on the command's
// line or on the comment lines that follow it.
func pageCommands(text string) []docCommand {
	var cmds []docCommand
	for _, block := range shBlock.FindAllStringSubmatch(text, -1) {
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
			note := l
			for j := i + 1; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "#"); j++ {
				note += lines[j]
			}
			code := -1
			if m := exitNote.FindStringSubmatch(note); m != nil {
				code, _ = strconv.Atoi(m[1])
			}
			cmdPart, _, _ := strings.Cut(l, " #")
			cmds = append(cmds, docCommand{line: strings.TrimSpace(cmdPart), env: env, args: shellWords(cmdPart)[1:], code: code})
		}
	}
	return cmds
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

// minDocCommands is how many commands a page is known to hold: fewer means
// the parser lost some (a changed block syntax) or the text was cut.
var minDocCommands = map[string]int{
	"README.md":          2,
	"docs/tour.md":       25,
	"docs/reports.md":    8,
	"docs/consensus.md":  12,
	"docs/search.md":     2,
	"docs/node-stall.md": 3,
	"docs/starve.md":     4,
	"docs/evict.md":      5,
	"docs/risk.md":       8,
	"docs/limits.md":     3,
	"docs/serve.md":      6,
	"docs/check-log.md":  21,
}

// runDocCommand runs one command in the current directory with only the
// environment its line sets and returns its exit code and output.
func runDocCommand(c docCommand) (int, string, string) {
	args := append([]string{}, c.args...)
	if args[0] == "check" || args[0] == "sweep" {
		args = append(args, "--progress=false")
	}
	for _, kv := range c.env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	defer func() {
		for _, kv := range c.env {
			k, _, _ := strings.Cut(kv, "=")
			os.Setenv(k, "")
		}
	}()
	return runCLI(args...)
}

// Every locksim command in the sh blocks of every page (README.md,
// CONTRIBUTING.md, CATALOGUE.md, docs/*.md) runs, in the page's order, in
// a fresh directory per page that holds the page's own acquire.lua and
// release.lua when it defines them, and exits with the code its comment
// documents. A command that reads a file an earlier one wrote (replay,
// merge) finds it there.
func TestDocCommands(t *testing.T) {
	// Each command has only the environment its line sets: a user's
	// shell has no shard variables.
	for _, k := range []string{envShardIndex, envShardCount, envJobIndex} {
		t.Setenv(k, "")
	}
	seen := map[string]bool{}
	for _, page := range docPages(t) {
		text := readPage(t, page)
		cmds := pageCommands(text)
		seen[page] = true
		if len(cmds) < minDocCommands[page] {
			t.Errorf("%s: found %d locksim commands, want at least %d", page, len(cmds), minDocCommands[page])
		}
		if len(cmds) == 0 {
			continue
		}
		t.Run(strings.ReplaceAll(page, "/", "_"), func(t *testing.T) {
			lua := luaScripts.FindStringSubmatch(text)
			t.Chdir(t.TempDir())
			if lua != nil {
				os.WriteFile("acquire.lua", []byte(lua[1]), 0o644)
				os.WriteFile("release.lua", []byte(lua[2]), 0o644)
			}
			if log := gcLog.FindStringSubmatch(text); log != nil {
				os.WriteFile("gc.log", []byte(log[1]), 0o644)
			}
			for _, f := range logFiles.FindAllStringSubmatch(text, -1) {
				os.WriteFile(f[1], []byte(f[2]), 0o644) // a page's example lock logs (docs/check-log.md)
			}
			if page == "docs/serve.md" {
				serveClients(t) // docs/serve.md's client programs, built by make clients
			}
			for _, c := range cmds {
				if c.code < 0 {
					t.Errorf("%s does not say how %q exits: add (exit N) to its comment", page, c.line)
					continue
				}
				if lua == nil && slices.ContainsFunc(c.args, func(a string) bool { return strings.HasSuffix(a, ".lua") }) {
					t.Errorf("%s: %q reads a script the page does not define in a ```lua block (-- acquire.lua, -- release.lua)", page, c.line)
					continue
				}
				if code, out, errs := runDocCommand(c); code != c.code {
					t.Errorf("%s: exit %d, %s says %d\n%.400s\n%.400s", c.line, code, page, c.code, out, errs)
				}
			}
		})
	}
	for page := range minDocCommands {
		if !seen[page] {
			t.Errorf("%s is gone: update minDocCommands", page)
		}
	}
}

// absRepoRoot is repoRoot as an absolute path, taken before any test
// changes directory.
var absRepoRoot, _ = filepath.Abs(repoRoot)

// serveClients links the repository's clients/ (make clients builds
// them) into the current directory, for docs/serve.md's commands; it skips
// when they are not built, or fails under LOCKSIM_REQUIRE_CLIENTS=1
// (.ci/run).
func serveClients(t *testing.T) {
	t.Helper()
	root := absRepoRoot
	for _, p := range []string{"clients/python/.venv/.installed", "clients/java/target/classes/LockWorkload.class", "clients/java/target/classpath.txt"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			if os.Getenv("LOCKSIM_REQUIRE_CLIENTS") == "1" {
				t.Fatalf("%s is missing: run make clients", p)
			}
			t.Skipf("%s is missing: run make clients (make test does)", p)
		}
	}
	if err := os.Symlink(filepath.Join(root, "clients"), "clients"); err != nil {
		t.Fatal(err)
	}
}

// The README's story quotes the output of its two commands: each line of
// the plain blocks after its sh block is a line of the matching command's
// output, so the excerpt cannot drift from what locksim prints.
func TestReadmeStoryExcerpts(t *testing.T) {
	text := readPage(t, "README.md")
	start := strings.Index(text, "## A story")
	if start < 0 {
		t.Fatal("the README has no story")
	}
	story := text[start:]
	story = story[:strings.Index(story[3:], "\n## ")+3]
	cmds := pageCommands(story)
	var excerpts []string // the blocks with no language
	for _, b := range fencedBlocks(story) {
		if b.lang == "" {
			excerpts = append(excerpts, b.body)
		}
	}
	if len(cmds) != 2 || len(excerpts) != 2 {
		t.Fatalf("the story has %d commands and %d excerpts, want 2 and 2", len(cmds), len(excerpts))
	}
	t.Chdir(t.TempDir())
	for i, c := range cmds {
		_, out, _ := runDocCommand(c)
		lines := map[string]bool{}
		for _, l := range strings.Split(out, "\n") {
			lines[strings.TrimRight(l, " ")] = true
		}
		for _, l := range strings.Split(strings.TrimSuffix(excerpts[i], "\n"), "\n") {
			if !lines[strings.TrimRight(l, " ")] {
				t.Errorf("the README quotes %q from `%s`, which does not print it:\n%s", l, c.line, out)
			}
		}
	}
}

// fencedBlock is one ``` block of a page: its language and its text.
type fencedBlock struct{ lang, body string }

// fencedBlocks returns a page's fenced blocks in order; an indented fence
// (inside a list item) counts too.
func fencedBlocks(text string) []fencedBlock {
	var out []fencedBlock
	var cur *fencedBlock
	for _, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &fencedBlock{lang: strings.TrimPrefix(trimmed, "```")}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += l + "\n"
		}
	}
	return out
}
