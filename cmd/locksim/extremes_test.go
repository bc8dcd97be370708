package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"locksim/internal/bounded"
)

// flagsOf reads a command's flags and their types from its --help.
func flagsOf(t *testing.T, cmd string) map[string]string {
	t.Helper()
	_, out, _ := runCLI(cmd, "--help")
	flags := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)(?: (\w+))?$`).FindAllStringSubmatch(out, -1) {
		flags[m[1]] = m[2]
	}
	if len(flags) < 3 {
		t.Fatalf("%s --help lists %d flags:\n%s", cmd, len(flags), out)
	}
	return flags
}

// extremes are the values each flag type is tried with: below, at and far
// past any sane bound, and malformed.
var extremes = map[string][]string{
	"int":      {"-1", "-9223372036854775808", "9223372036854775807", "99999999999999999999", "1e9", ""},
	"uint":     {"-1", "18446744073709551616", "x"},
	"duration": {"-1s", "9223372036854775807ns", "2562047h", "1e400s", "1h5", ""},
	"string":   {"", strings.Repeat("x", 10_000), "\x00", "../../../../etc/passwd"},
	"":         {"maybe", "2"}, // a bool
}

// accepted lists the flag values that are fine: the command may run with
// them and exit 0 or 1. Every other extreme value must exit 2 with a
// message.
var accepted = map[string]bool{
	"seed=18446744073709551615": true, "show=9223372036854775807": true, "max-schedules=9223372036854775807": true,
	"show=1e9": false,
}

// Every flag of every command, given an extreme value, exits 2 with a
// message that names it (or, where the value is allowed, runs and exits
// 0 or 1): never a panic, a hang or an out-of-memory crash.
func TestExtremeFlagValues(t *testing.T) {
	dir := t.TempDir()
	caseFile := filepath.Join(dir, "case.json")
	if code, _, errs := runCLI("run", "gc-pause", "--save", caseFile); code != exitViolation {
		t.Fatalf("saving a case: %d %s", code, errs)
	}
	shard := filepath.Join(dir, "shard.json")
	if code, _, errs := runCLI("check", "--design", "set-px-lua", "--runs", "2", "--format", "json", "-o", shard, "--save", filepath.Join(dir, "f.json"), "--progress=false"); code > 1 {
		t.Fatalf("a shard: %d %s", code, errs)
	}
	bases := map[string][]string{
		"run":    {"run", "gc-pause"},
		"check":  {"check", "--design", "set-px-lua", "--runs", "2", "--progress=false", "--save", filepath.Join(dir, "c.json")},
		"matrix": {"matrix", "--seeds", "1", "--designs", "set-px-lua"},
		"sweep":  {"sweep", "--seeds", "1", "--x", "250ms,500ms", "--y", "100ms,200ms", "--progress=false"},
		"replay": {"replay", caseFile},
		"merge":  {"merge", shard, "--save", filepath.Join(dir, "m.json")},
	}
	skip := map[string]bool{
		"help": true,
		// Output paths: a path like ../../etc/passwd would be written to.
		"o": true, "save": true, "save-dir": true,
	}
	for cmd, base := range bases {
		for name, typ := range flagsOf(t, cmd) {
			if skip[name] {
				continue
			}
			for _, v := range extremes[typ] {
				arg := "--" + name + "=" + v
				if typ == "" && v == "2" {
					arg = "--" + name // a bool's own form, once
				}
				args := append(append([]string{}, base...), arg)
				code, out, errs := runCLI(args...)
				short := name + "=" + v
				if len(short) > 60 {
					short = short[:60] + "..."
				}
				switch {
				case code < 0 || code > 2:
					t.Errorf("%s %s: exit %d", cmd, short, code)
				case code == exitUsage && !strings.Contains(errs, name) && !strings.Contains(errs, "locksim "+cmd+":"):
					t.Errorf("%s %s: exit 2, but the message does not name the flag: %q", cmd, short, firstLine(errs))
				case code != exitUsage && !accepted[name+"="+v] && typ != "" && typ != "string":
					t.Errorf("%s %s: accepted (exit %d): %s", cmd, short, code, firstLine(out))
				case len(v) > 2*bounded.MaxQuote && strings.Contains(errs+out, v[:2*bounded.MaxQuote]):
					// Issue 38 point 2: a message quotes a bounded prefix of
					// a value, never the value whole.
					t.Errorf("%s %s: the output quotes the %d-byte value past %d bytes: %.120q", cmd, short, len(v), bounded.MaxQuote, firstLine(errs+out))
				}
			}
		}
	}
	_ = os.Remove(caseFile)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// A command-line argument of 20,000 bytes, to every command, as a file
// or a word, and as the command itself: refused (exit 2), and no message
// holds it whole (issue 38 point 2: a bounded prefix of any value; an os
// error's path included).
func TestLongArgumentsAreQuotedBounded(t *testing.T) {
	long := strings.Repeat("x", 20_000)
	for _, args := range append([][]string{{long}}, func() (all [][]string) {
		for _, c := range commandNames() {
			all = append(all, []string{c, long})
		}
		return all
	}()...) {
		code, out, errs := runCLI(args...)
		name := args[0]
		if len(name) > 20 {
			name = name[:20] + "..."
		}
		if code != exitUsage {
			t.Errorf("%s LONG: exit %d, want %d", name, code, exitUsage)
		}
		if strings.Contains(out+errs, long[:2*bounded.MaxQuote]) {
			t.Errorf("%s LONG: the output holds the argument past %d bytes: %.160q", name, bounded.MaxQuote, firstLine(errs))
		}
	}
}
