package report

import (
	"strings"
	"testing"

	"locksim/model"
)

// TestMarkdownRun: a run's Markdown story says why it held (or what still
// held), the verdicts with the ones not checked on one row, and the terms
// it used with their meanings.
func TestMarkdownRun(t *testing.T) {
	r := runStory(t, lookup(t, "failover-lost-write"), model.WaitReplica)
	var b strings.Builder
	if err := Markdown(&b, r, Meta{Scenario: "failover-lost-write", Teaching: lookup(t, "failover-lost-write").Text}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"### locksim report: failover-lost-write",
		"**No violations found.**",
		"#### Why it held (from the history)",
		"- A's WAIT 1 came back short",
		"- the cost: B gave up acquiring lock at 15.110806s",
		"| mutual-exclusion | held |",
		"| token-unique, fencing, reentrancy, fifo, rw-exclusion, premature-loss, available | not checked",
		"- **down-after**: Sentinel's down-after-milliseconds",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	r = runStory(t, lookup(t, "clock-jump"), model.Fenced)
	b.Reset()
	if err := Markdown(&b, r, Meta{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#### Violations", "#### Why fencing did not stop it (from the history)", "(the fencing trap)", "| mutual-exclusion | **BROKEN** (1) |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, b.String())
		}
	}
}
