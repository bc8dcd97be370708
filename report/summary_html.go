package report

import (
	"io"
	"strconv"
	"strings"

	"locksim/engine"
	"locksim/model/invariant"
)

// SummaryHTML writes a check as one HTML page (CheckHTML): the
// headline and each invariant's tally as badges, the minimal failing
// case's timeline and explanations, then what ran (the campaign c) and
// the summary (the locksim.check/v1 summary object), both rendered field
// by field, so a field added to either shows up on the page as it does in
// the JSON. casePath is where the caller saved the case, "" for nowhere.
func SummaryHTML(w io.Writer, c engine.CheckConfig, r *engine.CheckResult, casePath string) error {
	var head strings.Builder
	if err := SummaryText(&head, &engine.CheckResult{Design: r.Design, Runs: r.Runs, Planned: r.Planned, BrokenRuns: r.BrokenRuns,
		FailoverRuns: r.FailoverRuns, FirstError: r.FirstError}, ""); err != nil {
		return err
	}
	headline, _, _ := strings.Cut(head.String(), "\n")
	p := CheckPage{Title: "locksim check: design " + r.Design, Headline: headline}
	for _, id := range invariant.All {
		word, v := tallyWord(r, id), r.VerdictOf(id)
		class := "held"
		switch {
		case v.Verdict == engine.VerdictBroken && v.Counted:
			class = "broken"
		case v.Verdict != engine.VerdictHeld: // uncounted breaks, not checked, no verdict
			class = "not-checked"
		}
		p.Tallies = append(p.Tallies, CheckTally{Invariant: string(id), Verdict: class, Text: word})
	}
	camp, sum, err := engine.CheckJSONObjects(c, r, casePath)
	if err != nil {
		return err
	}
	p.Sections = []CheckSection{{Title: "What ran", JSON: camp}, {Title: "Summary", JSON: sum}}
	if m := r.Minimal; m != nil {
		p.Minimal, p.Meta = m, Meta{Design: r.Design, Seed: m.Seed}
		if f := r.FirstFail; f != nil {
			p.Notes = append(p.Notes, "first failure: run "+strconv.Itoa(f.Index)+" (seed "+strconv.FormatUint(f.Seed, 10)+"); configuration: "+f.Config)
		}
		if casePath != "" {
			p.Notes = append(p.Notes, "saved to "+casePath+"; replay with: locksim replay "+casePath)
		}
	}
	return CheckHTML(w, p)
}
