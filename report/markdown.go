package report

import (
	"io"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/model"
)

// Markdown writes the story of one run as GitHub-flavoured Markdown, for
// a course page, an issue or a pull request: the title, what ran, the
// teaching text, the violations explained (those that share a cause as
// one item), why it held or what still held, the verdicts as a table, and
// the glossary terms it used with their meanings. No timeline: the text
// report and the HTML page draw it. The same result gives the same bytes.
func Markdown(w io.Writer, r *model.Result, meta Meta) error {
	if r == nil {
		return errors.New("nil result")
	}
	t := build(r)
	m := meta.withResult(r)
	s := summarize(r, t)
	var b strings.Builder
	title := "locksim report"
	if m.Scenario != "" {
		title += ": " + m.Scenario
		if m.Title != "" {
			title += " - " + m.Title
		}
	}
	b.WriteString("### " + mdEscape(title) + "\n\n")
	b.WriteString("| design | `" + mdCode(designLine(m.Design, s)) + "` |\n|:--|:--|\n")
	b.WriteString("| seed | " + strconv.FormatUint(m.Seed, 10) + " |\n")
	if len(m.WhatIf) > 0 {
		b.WriteString("| what if | `" + mdCode(strings.Join(m.WhatIf, " ")) + "` |\n")
	}
	b.WriteString("| clients | " + mdCell(strings.Join(s.Clients, ", ")) + " |\n")
	for _, f := range s.Faults {
		b.WriteString("| fault | `" + mdCode(f) + "` |\n")
	}
	if m.Teaching != "" {
		b.WriteString("\n" + reflow(m.Teaching) + "\n")
	}
	switch {
	case r.Err != nil:
		b.WriteString("\n**No verdicts**: the run stopped with an error before it finished (" + mdEscape(r.Err.Error()) + ").\n")
	case r.Vacuous():
		b.WriteString("\n**Vacuous**: no client acquired the lock, so nothing was judged (no verdict).\n")
	case r.NoFaultFired():
		b.WriteString("\n**No verdict**: none of the run's faults took effect, so it judged the design without them (the key events show why).\n")
	case len(r.Violations) == 0:
		b.WriteString("\n**No violations found.**\n")
	default:
		b.WriteString("\n#### Violations\n\n")
		for _, g := range t.groups(r.Violations) {
			v := r.Violations[g.Members[0]]
			if len(g.Members) == 1 {
				b.WriteString(strconv.Itoa(g.Members[0]+1) + ". **" + string(v.Invariant) + "**: " + mdEscape(violationHead(v)) + "  \n   " + mdEscape(v.Explanation) + "\n")
				if st := t.story(v); st != "" {
					b.WriteString("   " + mdEscape(st) + "\n")
				}
				continue
			}
			var ms = make([]int, len(g.Members))
			copy(ms, g.Members)
			b.WriteString(strconv.Itoa(g.Members[0]+1) + ". **" + numbers(ms) + "**, one cause: " + mdEscape(g.Cause) + "\n")
			if g.Shared != "" {
				b.WriteString("   In each: " + mdEscape(g.Shared) + ".\n")
			}
			for k, i := range g.Members {
				b.WriteString("   - #" + strconv.Itoa(i+1) + " " + mdEscape(g.Each[k]) + "\n")
			}
		}
	}
	for _, sec := range t.heldSections(r) {
		b.WriteString("\n#### " + sec.Title + " (from the history)\n\n")
		for _, it := range sec.Items {
			b.WriteString("- " + mdEscape(it.Text) + ".\n")
		}
	}
	if r.Err == nil {
		b.WriteString("\n| invariant | verdict |\n|:--|:--|\n")
		var folded []string
		for _, d := range verdicts(r, t.ix) {
			if d.Verdict == verdictNotChecked {
				folded = append(folded, d.Invariant)
				continue
			}
			v := d.Verdict
			switch {
			case d.Verdict == verdictBroken && d.Counted:
				v = "**BROKEN** (" + strconv.Itoa(d.Violations) + ")"
			case d.Why != "":
				v += " (" + d.Why + ")"
			}
			b.WriteString("| " + d.Invariant + " | " + mdCell(v) + " |\n")
		}
		if len(folded) > 0 {
			b.WriteString("| " + strings.Join(folded, ", ") + " | not checked (the text report's --details says why) |\n")
		}
	}
	if used := termsIn(b.String()); len(used) > 0 {
		b.WriteString("\n<details><summary>Terms used</summary>\n\n")
		for _, i := range used {
			b.WriteString("- **" + glossary[i].Name + "**: " + mdEscape(glossary[i].Def) + "\n")
		}
		b.WriteString("\n[docs/glossary.md](docs/glossary.md) has them all.\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return errors.Wrap(err, "writing markdown")
}
