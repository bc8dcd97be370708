package report

import (
	"strconv"
	"strings"
	"time"

	"locksim/model"
	"locksim/sim"
)

// Meta says what a run was, for the header of every report. Every field is
// optional; empty fields are left out.
type Meta struct {
	// Scenario is the catalogue scenario ID ("gc-pause").
	Scenario string `json:"scenario,omitempty"`
	// Title is a one-line human title of the scenario.
	Title string `json:"title,omitempty"`
	// Design is the lock design ID; empty means the Result's Spec.Design.
	Design string `json:"design,omitempty"`
	// Seed is the run's seed; 0 means the Result's Seed.
	Seed uint64 `json:"seed"`
	// Teaching is a paragraph for people: what the scenario shows and why.
	Teaching string `json:"teaching,omitempty"`
	// Modules names the library modules and versions a real client's run
	// linked (model.Result.Modules); nil means the Result's.
	Modules []string `json:"modules,omitempty"`
	// WhatIf lists the knobs a run changed from the scenario as written
	// ("--ttl 3s"): run's what-if flags.
	WhatIf []string `json:"what_if,omitempty"`
}

// withResult fills the empty fields of m from r.
func (m Meta) withResult(r *model.Result) Meta {
	if m.Design == "" {
		m.Design = r.Spec.Design
	}
	if m.Seed == 0 {
		m.Seed = r.Seed
	}
	if m.Modules == nil {
		m.Modules = r.Modules
	}
	return m
}

// TextOptions tune the text timeline.
type TextOptions struct {
	// Meta is printed in the header.
	Meta Meta
	// Width is the number of columns of the time axis. Default 72; at
	// least 20.
	Width int
	// Color turns on ANSI colours. Off, the output is plain ASCII.
	Color bool
	// Wrap is the width in columns the prose (teaching text, legend,
	// explanations) wraps at; 0 means DefaultWrap, else at least 40. The
	// CLI sets it to the terminal's width when stdout is a terminal; a
	// file keeps the default, so it stays the same bytes.
	Wrap int
	// Details lists every invariant's verdict with its reason; without
	// it the invariants not checked are named on one line.
	Details bool
}

// DefaultWrap is the width the text report's prose wraps at by default.
const DefaultWrap = 78

// DefaultWidth is the text timeline's default time-axis width in columns.
const DefaultWidth = 72

// fmtT renders a time like every other text output: "1.050000s".
func fmtT(d time.Duration) string { return sim.FormatTime(d) }

// short renders a duration compactly and exactly in ASCII ("1.5s",
// "250ms", "14us").
func short(d time.Duration) string { return strings.ReplaceAll(d.String(), "µ", "u") }

// ownerOf returns the client that a lock value belongs to, from the values
// seen in client events, a reentrant hash's field name, or the value's
// prefix before ':' (the model draws values as "A:xxxx").
func ownerOf(values map[string]string, v string) string {
	if v == "" {
		return ""
	}
	if c, ok := values[v]; ok {
		return c
	}
	// A reentrant hash renders as "owner=count,...": take the first field.
	f := v
	if i := strings.IndexByte(f, ','); i >= 0 {
		f = f[:i]
	}
	if i := strings.LastIndexByte(f, '='); i >= 0 {
		if c, ok := values[f[:i]]; ok {
			return c
		}
		f = f[:i]
	}
	if i := strings.IndexByte(f, ':'); i > 0 {
		return f[:i]
	}
	return ""
}

// natLess orders names naturally: "r2" before "r10".
func natLess(a, b string) bool {
	pa, na := splitNum(a)
	pb, nb := splitNum(b)
	if pa != pb {
		return pa < pb
	}
	if na != nb {
		return na < nb
	}
	return a < b
}

func splitNum(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || len(s)-i > 9 {
		return s, -1
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n
}
