package main

import (
	"slices"
	"strings"

	"locksim/internal/bounded"
)

// formatRow is one --format value and the commands that accept it; a
// command with a mode that writes other formats is named with the mode
// ("check --exhaustive", "run --danger").
type formatRow struct {
	name string
	// alias: a second spelling, not listed in messages (md for markdown).
	alias    bool
	commands []string
}

// formatTable is every --format value of every command, in the order
// messages list them. checkFormat is the one validation.
var formatTable = []formatRow{
	{name: "text", commands: []string{"run", "run --danger", "replay", "check", "check --exhaustive", "merge", "check-log", "risk", "advise", "matrix", "sweep"}},
	{name: "json", commands: []string{"run", "run --danger", "replay", "check", "check --exhaustive", "merge", "check-log", "risk", "advise"}},
	{name: "markdown", commands: []string{"run", "replay", "check", "merge", "check-log", "risk", "matrix"}},
	{name: "md", alias: true, commands: []string{"check", "merge", "matrix"}},
	{name: "html", commands: []string{"run", "run --danger", "replay", "check", "check --exhaustive", "merge", "check-log", "risk", "matrix"}},
	{name: "svg", commands: []string{"sweep"}},
}

// formatsOf lists the formats cmd accepts, aliases left out.
func formatsOf(cmd string) []string {
	var out []string
	for _, r := range formatTable {
		if !r.alias && slices.Contains(r.commands, cmd) {
			out = append(out, r.name)
		}
	}
	return out
}

// checkFormat refuses a --format value cmd does not write, listing those
// it does.
func checkFormat(cmd, format string) error {
	for _, r := range formatTable {
		if r.name == format && slices.Contains(r.commands, cmd) {
			return nil
		}
	}
	with := ""
	if _, mode, ok := strings.Cut(cmd, " "); ok {
		with = " with " + mode
	}
	return usagef("unknown --format %s%s (want %s)", bounded.Q(format), with, orList(formatsOf(cmd)))
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
