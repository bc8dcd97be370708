package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"locksim/model/invariant"
	"locksim/report"
	"locksim/scenarios"
	"locksim/sim"
)

// CheckSchema identifies the JSON a check writes; see the package doc.
const CheckSchema = "locksim.check/v1"

// SummaryText writes a check's summary for people: the runs, each
// invariant's tally (held, broken in N runs, not counted, not checked), and
// for a failure the first failing run, its configuration, its minimal
// schedule, its report and how to replay it (casePath: where the caller
// saved it, "" for nowhere).
func SummaryText(w io.Writer, r *CheckResult, casePath string) error {
	var b strings.Builder
	runs := plural(r.Runs, "run")
	if r.Planned == 0 && r.Runs > 0 {
		runs += " in the time budget" // as many as it allowed: the same runs as that many --runs
	}
	fmt.Fprintf(&b, "design %s: %s, %d broke a counted invariant%s", r.Design, runs, r.BrokenRuns, pct(r.BrokenRuns, r.Runs))
	if r.FailoverRuns > 0 {
		fmt.Fprintf(&b, ", %d with a failover", r.FailoverRuns)
	}
	if r.Planned > 0 && r.Runs < r.Planned && r.FirstError == nil {
		fmt.Fprintf(&b, " (stopped at the time budget, %d planned)", r.Planned)
	}
	b.WriteString("\n")
	if nv := r.NoVerdict(); nv != "" {
		b.WriteString("no verdict: " + nv + "\n")
	} else if r.VacuousRuns > 0 {
		fmt.Fprintf(&b, "%s vacuous (no client acquired, so they judged nothing)\n", plural(r.VacuousRuns, "run"))
	}
	for _, id := range invariant.All {
		b.WriteString("  " + fmt.Sprintf("%-17s", id) + " " + tallyWord(r, id) + "\n")
	}
	if r.Runs > 0 {
		b.WriteString(r.Coverage.text(r.Runs, r.FailoverRuns, ""))
		if ic := r.Coverage.Interleave; ic.Active() {
			b.WriteString(ic.Bound() + "\n")
		}
	}
	if r.FirstError != nil {
		fmt.Fprintf(&b, "\nrun %d (seed %d) stopped with an error, so the check stopped: %s\n", r.FirstError.Index, r.FirstError.Seed, r.FirstError.Error)
	}
	if m := r.Minimal; m != nil {
		f := r.FirstFail
		fmt.Fprintf(&b, "\nfirst failure: run %d (seed %d); configuration: %s\n", f.Index, f.Seed, f.Config)
		fmt.Fprintf(&b, "minimal failing schedule (%s, seed %d):\n%s\n", plural(len(m.Spec.Faults), "fault"), m.Seed, Describe(m.Spec.Faults))
		// The shrunk run is not one of the counted runs: it can break an
		// invariant the tallies above say held.
		var more []string
		for _, id := range invariant.Broken(m.Violations) {
			if r.Counts[id] == 0 && r.Uncounted[id] == 0 {
				more = append(more, string(id))
			}
		}
		if len(more) > 0 {
			fmt.Fprintf(&b, "(the minimal schedule's run also breaks %s, which none of the %s did: shrinking moved the faults)\n",
				strings.Join(more, ", "), plural(r.Runs, "run"))
		}
		if err := report.Text(&b, m, report.TextOptions{Meta: report.Meta{Design: r.Design, Seed: m.Seed}}); err != nil {
			return err
		}
		if casePath != "" {
			fmt.Fprintf(&b, "\nsaved to %s; replay with: locksim replay %s\n", casePath, casePath)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tallyWord says what the runs showed of one invariant.
func tallyWord(r *CheckResult, id invariant.ID) string {
	counted := false
	for _, c := range r.Counted {
		counted = counted || c == id
	}
	switch {
	case r.FirstError != nil && r.Counts[id] == 0 && r.Uncounted[id] == 0 && r.Judged[id] == "":
		return "no verdict (the check stopped at run " + strconv.Itoa(r.FirstError.Index) + ")"
	case r.NoVerdict() != "" && r.Judged[id] == "":
		return "no verdict"
	case counted && r.Counts[id] > 0:
		return "broken in " + plural(r.Counts[id], "run") + pct(r.Counts[id], r.Runs)
	case !counted && r.Uncounted[id] > 0:
		return "broken (not counted) in " + plural(r.Uncounted[id], "run")
	case r.Judged[id] != "":
		return "not checked (" + r.Judged[id] + ")"
	case !counted:
		return "held (not counted)"
	}
	return "held"
}

// Describe renders a schedule one fault per line.
func Describe(fs []sim.Fault) string {
	if len(fs) == 0 {
		return "  (no faults)\n"
	}
	var b strings.Builder
	for i, f := range fs {
		b.WriteString("  " + strconv.Itoa(i+1) + ". " + f.String() + "\n")
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// pct renders " (12.5%)" of n out of total, "" when total is 0 or n is.
func pct(n, total int) string {
	if total == 0 || n == 0 {
		return ""
	}
	return " (" + strconv.FormatFloat(100*float64(n)/float64(total), 'f', 1, 64) + "%)"
}

// JSONWriter streams a check as JSON (schema locksim.check/v1): the
// campaign, each run as it is tallied (memory stays flat however many
// runs), then the summary. Use Run as CheckConfig.Each and Finish after
// Check.
type JSONWriter struct {
	w    io.Writer
	runs int
	err  error
}

// NewJSONWriter starts the document with the build that writes it
// (ThisBuild), the hash of the campaign's configuration (ConfigHash) and
// what the campaign was.
func NewJSONWriter(w io.Writer, c CheckConfig) *JSONWriter {
	j := &JSONWriter{w: w}
	camp, err := encode(campaignOf(c), "")
	if err != nil {
		j.err = err
		return j
	}
	build, err := encode(ThisBuild(), "")
	if err != nil {
		j.err = err
		return j
	}
	_, j.err = fmt.Fprintf(w, "{\n  \"schema\": %q,\n  \"locksim\": %s,\n  \"config_hash\": %q,\n  \"campaign\": %s,\n  \"runs\": [",
		CheckSchema, build, ConfigHash(campaignOf(c)), camp)
	return j
}

// Run writes one run.
func (j *JSONWriter) Run(o RunOutcome) {
	if j.err != nil {
		return
	}
	b, err := encode(o, "")
	if err != nil {
		j.err = err
		return
	}
	sep := ",\n    "
	if j.runs == 0 {
		sep = "\n    "
	}
	j.runs++
	_, j.err = fmt.Fprintf(j.w, "%s%s", sep, b)
}

// Finish writes the summary and closes the document; casePath is where
// the minimal case was saved.
func (j *JSONWriter) Finish(r *CheckResult, casePath string) error {
	if j.err != nil {
		return j.err
	}
	b, err := marshalNoEscape(summaryOf(r, casePath))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(j.w, "\n  ],\n  \"summary\": %s\n}\n", strings.TrimSpace(string(b)))
	return err
}

// jsonSummary is the summary object of locksim.check/v1.
type jsonSummary struct {
	Design       string               `json:"design"`
	Runs         int                  `json:"runs"`
	Planned      int                  `json:"planned,omitempty"`
	BrokenRuns   int                  `json:"broken_runs"`
	Invariants   map[invariant.ID]int `json:"invariants"`
	Uncounted    map[invariant.ID]int `json:"uncounted,omitempty"`
	FailoverRuns int                  `json:"failover_runs"`
	VacuousRuns  int                  `json:"vacuous_runs,omitempty"`
	NoVerdict    string               `json:"no_verdict,omitempty"`
	Coverage     *jsonCoverage        `json:"coverage,omitempty"`
	FirstFail    *RunOutcome          `json:"first_failure,omitempty"`
	Minimal      []string             `json:"minimal_schedule"`
	MinimalSeed  uint64               `json:"minimal_seed,omitempty"`
	Case         string               `json:"case,omitempty"`
	Error        *RunOutcome          `json:"error,omitempty"`
}

func summaryOf(r *CheckResult, casePath string) jsonSummary {
	s := jsonSummary{Design: r.Design, Runs: r.Runs, Planned: r.Planned, BrokenRuns: r.BrokenRuns, Invariants: r.Counts,
		FailoverRuns: r.FailoverRuns, FirstFail: r.FirstFail, Minimal: []string{}, Error: r.FirstError,
		VacuousRuns: r.VacuousRuns, NoVerdict: r.NoVerdict()}
	if r.Runs > 0 {
		cv := r.Coverage
		s.Coverage = &jsonCoverage{Drawn: cv.Drawn, Fired: cv.Fired, Kinds: cv.Kinds, Places: cv.Places,
			ClockStepRuns: cv.ClockStepRuns, CrashRuns: cv.CrashRuns, Warnings: cv.Warnings(), NoFaults: len(cv.AskedKinds) == 0}
		if ic := cv.Interleave; ic.Active() {
			s.Coverage.Interleave = &jsonInterleave{Policy: ic.Policy.String(), MaxChoices: ic.MaxChoices, MaxThreads: ic.MaxLanes, Bound: ic.Bound()}
			if ic.Policy.Policy == sim.InterleavePCT {
				s.Coverage.Interleave.PerRun = PCTBound(ic.Policy.Depth, ic.MaxLanes, ic.Policy.ChangeHorizon())
			}
		}
	}
	if len(r.Uncounted) > 0 {
		s.Uncounted = r.Uncounted
	}
	if m := r.Minimal; m != nil {
		for _, f := range m.Spec.Faults {
			s.Minimal = append(s.Minimal, f.String())
		}
		s.MinimalSeed, s.Case = m.Seed, casePath
	}
	return s
}

// jsonCoverage is the coverage object of locksim.check/v1's summary.
type jsonCoverage struct {
	// Drawn and Fired count every run's faults and those that took effect.
	Drawn int `json:"faults_drawn"`
	Fired int `json:"faults_fired"`
	// Kinds counts fired faults per kind; Places fired pauses and client
	// crashes per placement.
	Kinds         map[sim.FaultKind]int   `json:"fired_per_kind"`
	Places        map[scenarios.Place]int `json:"fired_per_placement"`
	ClockStepRuns int                     `json:"clock_step_runs"`
	CrashRuns     int                     `json:"crash_runs"`
	// Warnings name the kinds and placements asked for that never fired.
	Warnings []string `json:"warnings,omitempty"`
	// NoFaults: the check drew no faults (--faults none).
	NoFaults bool `json:"no_faults,omitempty"`
	// Interleave is the same-instant scheduler's coverage and bound; absent
	// under the fixed order.
	Interleave *jsonInterleave `json:"interleave,omitempty"`
}

// jsonInterleave is a same-instant scheduler's part of the coverage.
type jsonInterleave struct {
	Policy     string `json:"policy"`
	MaxChoices int    `json:"max_choice_points"`
	MaxThreads int    `json:"max_threads"`
	// PerRun is PCT's lower bound on finding a bug of its depth per run.
	PerRun float64 `json:"pct_per_run_bound,omitempty"`
	Bound  string  `json:"bound"`
}

func marshalNoEscape(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	err := enc.Encode(v)
	return []byte(b.String()), err
}
