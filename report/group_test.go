package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"locksim/engine"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// fencedPause is a real run of fenced where A is paused past its lease
// right after it acquired and B takes the lock three times meanwhile:
// three mutual-exclusion violations with one cause.
func fencedPause(t *testing.T) *model.Result {
	t.Helper()
	s := model.Spec{Design: "fenced", Fencing: model.FenceStrict, Options: model.Options{TTL: time.Second}, Clients: []string{"A", "B"},
		Workload: model.Workload{Cycles: 3, Work: 5 * time.Millisecond},
		Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1422500 * time.Microsecond,
			After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}}}
	r, err := model.Run(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Violations) != 3 {
		t.Fatalf("the run has %d violations, want 3 (the fixture no longer shows the cascade): %+v", len(r.Violations), r.Violations)
	}
	return r
}

// TestGroupsShareACause: the three overlaps of one paused hold of A are
// one group in the text (the cause once, the facts they share once, a line
// each, the history once), and the JSON keeps all three violations with
// the group beside them; the verdict still counts three.
func TestGroupsShareACause(t *testing.T) {
	r := fencedPause(t)
	var b bytes.Buffer
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	vs := text[strings.Index(text, "\nViolations:\n"):strings.Index(text, "\nVerdicts:\n")]
	for _, want := range []string{
		"1-3. mutual-exclusion, three violations with one cause: A was paused 1.422500s\n   from 0.002949s; meanwhile B held the lock three times (tokens 2, 3, 4)",
		"\n   #1 A and B both held the lock from 1.049101s",
		"\n   #2 A and B both held the lock from 1.064340s",
		"\n   #3 A and B both held the lock from 1.082327s",
	} {
		if !strings.Contains(vs, want) {
			t.Errorf("the violations lack %q:\n%s", want, vs)
		}
	}
	for _, once := range []string{"In each: A acquired at 0.002949s", "from the history:", "in the history:"} {
		if n := strings.Count(strings.ToLower(vs), strings.ToLower(once)); n > 1 || once == "In each: A acquired at 0.002949s" && n != 1 {
			t.Errorf("%q appears %d times in the violations, want once:\n%s", once, n, vs)
		}
	}
	if !strings.Contains(text, "mutual-exclusion  BROKEN (3 violations)") {
		t.Error("the verdict no longer counts three violations")
	}

	var j bytes.Buffer
	if err := JSON(&j, r, Meta{}); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Violations []invariant.Violation `json:"violations"`
		Groups     []Group               `json:"groups"`
	}
	if err := json.Unmarshal(j.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Violations) != 3 {
		t.Errorf("the JSON lists %d violations, want all 3", len(rep.Violations))
	}
	if len(rep.Groups) != 1 || len(rep.Groups[0].Violations) != 3 || rep.Groups[0].Violations[0] != 1 || len(rep.Groups[0].Each) != 3 {
		t.Fatalf("the JSON groups are %+v, want one of violations 1, 2, 3", rep.Groups)
	}
	if g := rep.Groups[0]; !strings.HasPrefix(g.Cause, "A was paused") || !strings.Contains(g.Shared, "A's key on r1 expired") || g.Story == "" {
		t.Errorf("the group is %+v", g)
	}

	// ViolationsText (what locksim.Check logs) is the same block.
	var v bytes.Buffer
	if err := ViolationsText(&v, r, 0); err != nil {
		t.Fatal(err)
	}
	if got := "\nViolations:\n" + v.String() + "\n"; got != vs+"\n" {
		t.Errorf("ViolationsText differs from the report's violations:\n%s\nwant\n%s", got, vs)
	}
}

// TestGroupsKeepDistinctCauses: violations of different holds stand
// alone, and the JSON has no groups then; gc-pause's overlap and stale
// write, both from A's one paused hold, are the fixtures' one group.
func TestGroupsKeepDistinctCauses(t *testing.T) {
	for _, f := range fixtures {
		r, meta := f.fn()
		tl := build(r)
		for _, g := range tl.groups(r.Violations) {
			if len(g.Members) != 1 && f.name != "gc-pause" {
				t.Errorf("%s: violations %v grouped", f.name, g.Members)
			}
		}
		var j bytes.Buffer
		if err := JSON(&j, r, meta); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(j.String(), `"groups"`) != (f.name == "gc-pause") {
			t.Errorf("%s: the JSON has groups: %v", f.name, strings.Contains(j.String(), `"groups"`))
		}
	}
	// Two overlaps of two different holds of A do not group.
	r := fencedPause(t)
	r.Violations[1].Clients = []string{"B", "A"}
	if gs := build(r).groups(r.Violations); len(gs) != 2 || len(gs[0].Members) != 2 {
		t.Errorf("groups %+v, want violations 1 and 3 together and 2 alone", gs)
	}
}

// generatedPause is the minimal failing case of a real generated check
// (set-px-lua under drawn pauses and configurations, as `locksim check
// --design set-px-lua --faults pause --runs 300 --seed 1`, shrunk): A paused
// past its lease while B held the lock three times, then A's write went
// through: three mutual-exclusion violations and a stale write, one cause.
func generatedPause(t *testing.T) *model.Result {
	t.Helper()
	res, err := engine.Check(engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: model.SetPxLua},
		Gen: scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause}, MaxFaults: 3, Swarm: true}, Runs: 300, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Minimal
	if m == nil || len(invariant.Broken(m.Violations)) < 2 {
		t.Fatalf("the check's minimal case no longer breaks two invariants: %+v", m)
	}
	return m
}

// TestGroupsAcrossInvariants: violations of different invariants from one
// hold of one client (here A's paused hold: B's overlaps and A's stale
// write) are one block with the cause once and each consequence a clause,
// in the text, the HTML, the JSON and Check's failure log
// (ViolationsText); every violation is still listed and counted.
func TestGroupsAcrossInvariants(t *testing.T) {
	r := generatedPause(t)
	var b bytes.Buffer
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	vs := text[strings.Index(text, "\nViolations:\n"):strings.Index(text, "\nVerdicts:\n")]
	n := len(r.Violations)
	head := fmt.Sprintf("1-%d. mutual-exclusion and stale-write, %s violations with one cause: A was\n   paused", n, count(n))
	if !strings.Contains(vs, head) {
		t.Errorf("the violations are not one block headed %q:\n%s", head, vs)
	}
	for i, v := range r.Violations {
		if want := fmt.Sprintf("\n   #%d %s: ", i+1, v.Invariant); !strings.Contains(vs, want) {
			t.Errorf("violation %d is not a line %q of the block:\n%s", i+1, want, vs)
		}
	}
	if c := strings.Count(vs, "\n1"); c != 1 {
		t.Errorf("%d entries, want one block:\n%s", c, vs)
	}

	var v bytes.Buffer
	if err := ViolationsText(&v, r, 0); err != nil {
		t.Fatal(err)
	}
	if got := "\nViolations:\n" + v.String() + "\n"; got != vs+"\n" {
		t.Errorf("ViolationsText (Check's failure log) differs from the report's violations:\n%s\nwant\n%s", got, vs)
	}

	var j bytes.Buffer
	if err := JSON(&j, r, Meta{}); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Violations []invariant.Violation `json:"violations"`
		Groups     []Group               `json:"groups"`
	}
	if err := json.Unmarshal(j.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Violations) != n || len(rep.Groups) != 1 || len(rep.Groups[0].Violations) != n ||
		len(rep.Groups[0].Invariants) != 2 || rep.Groups[0].Invariants[1] != invariant.StaleWrite {
		t.Fatalf("JSON: %d violations, groups %+v; want all %d in one group of mutual-exclusion and stale-write", len(rep.Violations), rep.Groups, n)
	}
	if c := rep.Groups[0].Cause; !strings.Contains(c, "; meanwhile B held the lock three times; the resource accepted one of A's writes after its lease was lost") {
		t.Errorf("the cause does not state each consequence once: %q", c)
	}

	var h bytes.Buffer
	if err := HTML(&h, r, Meta{}); err != nil {
		t.Fatal(err)
	}
	page := h.String()
	if c := strings.Count(page, `<li class="group"`); c != 1 || !strings.Contains(page, `<span class="inv">mutual-exclusion and stale-write</span>`) {
		t.Errorf("the page has %d group entries, want one naming both invariants", c)
	}
	if !strings.Contains(text, "stale-write       BROKEN") || !strings.Contains(text, "mutual-exclusion  BROKEN") {
		t.Errorf("the verdicts no longer count both invariants:\n%s", text)
	}
}

// TestTextWrapWidth: the prose wraps at TextOptions.Wrap; the default is
// DefaultWrap, and a width below 40 is refused.
func TestTextWrapWidth(t *testing.T) {
	r := fencedPause(t)
	for _, w := range []int{0, 60, 120} {
		var b bytes.Buffer
		if err := Text(&b, r, TextOptions{Wrap: w}); err != nil {
			t.Fatal(err)
		}
		want := w
		if w == 0 {
			want = DefaultWrap
		}
		text := b.String()
		vs := text[strings.Index(text, "\nViolations:\n"):strings.Index(text, "\nVerdicts:\n")]
		longest := 0
		for _, l := range strings.Split(vs, "\n") {
			longest = max(longest, len(l))
		}
		if longest > want || longest < want-15 {
			t.Errorf("wrap %d: the longest line of the violations is %d columns, want at most %d (and near it)", w, longest, want)
		}
	}
	if err := Text(&bytes.Buffer{}, r, TextOptions{Wrap: 30}); err == nil {
		t.Error("a wrap width of 30 was accepted")
	}
}

// TestTeachingReflows: a scenario text's hand-made line breaks inside a
// paragraph do not reach the report (fair-crash's text broke a line after
// "The"); blank lines and indented lines keep theirs.
func TestTeachingReflows(t *testing.T) {
	r, _ := clean()
	meta := Meta{Teaching: "grant C the lock. The\ncrashed waiter times out.\n\nSecond paragraph.\n  an indented example"}
	var b bytes.Buffer
	if err := Text(&b, r, TextOptions{Meta: meta}); err != nil {
		t.Fatal(err)
	}
	want := "\ngrant C the lock. The crashed waiter times out.\n\nSecond paragraph.\n  an indented example\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("the teaching text reads\n%s\nwant it to contain\n%s", b.String()[:strings.Index(b.String(), "Timeline")], want)
	}
}

// A pause that came after the lease was already broken is not the cause:
// r1 restarts empty 5ms after A acquired, B takes the lock, and only then
// is A paused after its write. The headline names A's hold, not the pause
// (it once said "A was paused 0.5s" for an overlap that began before it).
func TestGroupCauseIsNotALaterPause(t *testing.T) {
	s := model.Spec{Design: model.Fenced, Fencing: model.FenceNonstrict, Clients: []string{"A", "B"},
		Options: model.Options{TTL: time.Second}, Workload: model.Workload{Cycles: 1, Work: 50 * time.Millisecond, Start: 10 * time.Millisecond},
		Topology: model.Topology{Masters: 1, Persistence: sim.PersistNone},
		Faults: []sim.Fault{
			{Kind: sim.FaultNodeCrash, Target: "r1", Dur: 5 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}},
			{Kind: sim.FaultPause, Target: "A", Dur: 500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindWrite}},
		}}
	r, err := model.Run(s, 1)
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	var b bytes.Buffer
	if err := Text(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.Contains(text, "with one cause: A held the lock from") || strings.Contains(text, "with one cause: A was paused") {
		t.Errorf("the headline names the later pause as the cause:\n%s", text)
	}
}
