package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// check --exhaustive: the guarantee, the ways it breaks with replay lines
// that replay, the danger map; exit 1 when something counted broke, 0 when
// nothing did.
func TestCheckExhaustive(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI("check", "--design", "set-px-lua", "--exhaustive", "--save-dir", dir, "--progress=false")
	if code != exitViolation {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{"explored all ", " one-fault schedules of design set-px-lua", "ways it breaks, grouped by mechanism",
		"pause the client right after the client acquired", "replay: locksim replay " + filepath.Join(dir, "01.json"), "Danger map of set-px-lua", "danger *"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, rout, rerr := runCLI("replay", filepath.Join(dir, "01.json")); code != exitViolation {
		t.Errorf("replaying the first break: exit %d: %s%s", code, rout, rerr)
	}
	// The data survives every single fault when reads are fenced too.
	code, out, errs = runCLI("check", "--design", "fenced", "--fencing", "strict-reads", "--exhaustive", "--invariants", "lost-update",
		"--save-dir", "", "--progress=false")
	if code != exitSafe || !strings.Contains(out, "0 broke lost-update") {
		t.Errorf("fenced strict-reads: exit %d:\n%s%s", code, out, errs)
	}
}

// The text output of set-px-getdel's exhaustive check, whole.
func TestCheckExhaustiveGolden(t *testing.T) {
	code, out, errs := runCLI("check", "--design", "set-px-getdel", "--exhaustive", "--save-dir", "", "--progress=false")
	if code != exitViolation {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "check-exhaustive-set-px-getdel.txt", out)
}

func TestCheckExhaustiveFormats(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "x.json")
	if code, _, errs := runCLI("check", "--design", "set-px-lua", "--exhaustive", "--format", "json", "-o", js, "--save-dir", dir, "--progress=false"); code != exitViolation {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema    string `json:"schema"`
		Guarantee string `json:"guarantee"`
		Schedules []int  `json:"schedules"`
		Breaks    []struct {
			Mechanism string   `json:"mechanism"`
			Smallest  []string `json:"smallest"`
			Case      string   `json:"case"`
		} `json:"breaks"`
		Danger []struct {
			Trigger string `json:"trigger"`
			Harm    string `json:"harm"`
		} `json:"danger"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "locksim.exhaustive/v1" || len(doc.Schedules) != 1 || len(doc.Breaks) == 0 || doc.Breaks[0].Case == "" || len(doc.Danger) == 0 {
		t.Errorf("json document: %+v", doc)
	}
	harms := map[string]bool{}
	for _, d := range doc.Danger {
		harms[d.Harm] = true
	}
	if !harms["data"] || !harms["none"] {
		t.Errorf("danger harms %v, want data and none", harms)
	}
	page := filepath.Join(dir, "danger.html")
	if code, _, errs := runCLI("check", "--design", "set-px-lua", "--exhaustive", "--format", "html", "-o", page, "--save-dir", "", "--progress=false"); code != exitViolation {
		t.Fatalf("html: exit %d: %s", code, errs)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"danger map of set-px-lua", `"name": "danger"`, `"kind": "danger-data"`, `"kind": "danger-none"`, "explored all ",
		"Verdicts of every schedule", "broken by ", "Ways it breaks", "pause the client right after the client acquired"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(string(html), "No violations found") {
		t.Error("the danger map's page shows the fault-free run's verdicts as if nothing broke")
	}
}

// Flags of random runs, impossible depths and bounds, unknown kinds and
// classes: exit 2 with what to change.
func TestCheckExhaustiveRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--runs", "5"}, "--runs applies to random runs"},
		{[]string{"--shard", "0/2"}, "--shard applies to random runs"},
		{[]string{"--depth", "3"}, "--depth 3"},
		{[]string{"--depth", "2", "--max-schedules", "1000"}, "more than the bound of 1000"},
		{[]string{"--max-schedules", "10"}, "more than the bound of 10"},
		{[]string{"--faults", "evict"}, "not placed exhaustively"},
		{[]string{"--durations", "ttl+,forever"}, `no duration class "forever"`},
		{[]string{"--format", "markdown"}, "want text, json or html"},
	} {
		args := append([]string{"check", "--design", "set-px-lua", "--exhaustive", "--save-dir", "", "--progress=false"}, tc.args...)
		code, _, errs := runCLI(args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// run SCENARIO --danger: the scenario's configuration without its faults,
// every fault placed; fenced with strict-reads keeps the data.
func TestRunDanger(t *testing.T) {
	code, out, errs := runCLI("run", "gc-pause", "--danger")
	if code != exitViolation || !strings.Contains(out, "Danger map of set-px-lua") || !strings.Contains(dangerGlyphs(out), "*") {
		t.Errorf("gc-pause --danger: exit %d:\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI("run", "gc-pause", "--danger", "--design", "fenced", "--fencing", "strict-reads", "--invariants", "lost-update")
	if code != exitSafe || dangerGlyphs(out) == "" || strings.Contains(dangerGlyphs(out), "*") {
		t.Errorf("fenced strict-reads --danger: exit %d, a data zone or none at all:\n%s%s", code, out, errs)
	}
	if code, _, errs := runCLI("run", "gc-pause", "--danger", "--save", "x.json"); code != exitUsage || !strings.Contains(errs, "--save-dir") {
		t.Errorf("--danger --save: exit %d %s", code, errs)
	}
}

// dangerGlyphs returns the glyphs of every danger row of a text timeline.
func dangerGlyphs(out string) string {
	var g strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if _, row, ok := strings.Cut(l, " danger "); ok && !strings.Contains(l, ":") {
			g.WriteString(strings.TrimSpace(row))
		}
	}
	return g.String()
}

// The flags of exhaustive mode without it are an error, not ignored.
func TestExhaustiveFlagsNeedExhaustive(t *testing.T) {
	for _, f := range exhaustiveOnly {
		arg := "--" + f + "=1"
		if code, _, errs := runCLI("check", "--design", "set-px-lua", arg); code != exitUsage || !strings.Contains(errs, "goes with --exhaustive") {
			t.Errorf("%s: exit %d %q", arg, code, errs)
		}
	}
}

// list names every fault kind, invariant, fencing rule and persistence
// mode with what it means; help scenarios prints the file format and the
// event kinds; version the formats.
func TestListHelpVersion(t *testing.T) {
	code, out, _ := runCLI("list")
	if code != exitSafe {
		t.Fatalf("list: exit %d", code)
	}
	var names []string
	for _, k := range sim.FaultKinds {
		names = append(names, string(k))
	}
	for _, id := range invariant.All {
		names = append(names, string(id))
	}
	for _, f := range model.Fencings {
		names = append(names, string(f))
	}
	names = append(names, "none", "aof-everysec", "aof-always")
	for _, n := range names {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(n) + ` +\S`).MatchString(out) {
			t.Errorf("list has no line explaining %q", n)
		}
	}
	code, out, _ = runCLI("help", "scenarios")
	if code != exitSafe || !strings.Contains(out, "The scenario file format") || !strings.Contains(out, "acquired ") || !strings.Contains(out, "fault KIND") {
		t.Errorf("help scenarios: exit %d:\n%.300s", code, out)
	}
	code, out, _ = runCLI("version")
	if code != exitSafe || !strings.Contains(out, "locksim "+Version) || !strings.Contains(out, engine.ExhaustiveSchema) {
		t.Errorf("version: exit %d: %s", code, out)
	}
	if code, _, errs := runCLI("help", "nope"); code != exitUsage || !strings.Contains(errs, "topics: scenarios") {
		t.Errorf("help nope: exit %d %s", code, errs)
	}
}

// A design whose fault-free run breaks: nothing else is explored, and the
// one way is saved so that replay tells why (it used to save nothing).
func TestExhaustiveFaultFreeBreakIsReplayable(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI("check", "--design", "redlock", "--quorum", "2", "--exhaustive", "--save-dir", dir, "--progress=false")
	if code != exitViolation || !strings.Contains(out, "with no fault at all: nothing else was explored") ||
		!strings.Contains(out, "replay: locksim replay "+filepath.Join(dir, "01.json")) || !strings.Contains(out, "options quorum=2") {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	if code, rout, rerr := runCLI("replay", filepath.Join(dir, "01.json")); code != exitViolation || !strings.Contains(rout, "mutual-exclusion") {
		t.Errorf("replay: exit %d:\n%s%s", code, rout, rerr)
	}
}
