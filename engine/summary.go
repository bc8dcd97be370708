package engine

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// CheckSchema identifies the JSON a check writes; see the package doc.
const CheckSchema = "locksim.check/v1"

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

// CheckJSONObjects returns the campaign and the summary objects of a
// check's locksim.check/v1 document, each as compact JSON: what
// report.SummaryHTML shows field by field, so the page and the JSON never
// disagree.
func CheckJSONObjects(c CheckConfig, r *CheckResult, casePath string) (campaign, summary []byte, err error) {
	if campaign, err = json.Marshal(campaignOf(c)); err != nil {
		return nil, nil, err
	}
	summary, err = json.Marshal(summaryOf(r, casePath))
	return campaign, summary, err
}

// jsonSummary is the summary object of locksim.check/v1.
type jsonSummary struct {
	Design     string               `json:"design"`
	Runs       int                  `json:"runs"`
	Planned    int                  `json:"planned,omitempty"`
	BrokenRuns int                  `json:"broken_runs"`
	Invariants map[invariant.ID]int `json:"invariants"`
	Uncounted  map[invariant.ID]int `json:"uncounted,omitempty"`
	Undecided  map[invariant.ID]int `json:"undecided,omitempty"`
	// Verdicts is every invariant's verdict over the runs (VerdictOf):
	// held, broken, not-checked or no-verdict, with why.
	Verdicts     []InvariantVerdict `json:"verdicts"`
	FailoverRuns int                `json:"failover_runs"`
	VacuousRuns  int                `json:"vacuous_runs,omitempty"`
	NoVerdict    string             `json:"no_verdict,omitempty"`
	Coverage     *jsonCoverage      `json:"coverage,omitempty"`
	FirstFail    *RunOutcome        `json:"first_failure,omitempty"`
	Minimal      []string           `json:"minimal_schedule"`
	MinimalSeed  uint64             `json:"minimal_seed,omitempty"`
	Case         string             `json:"case,omitempty"`
	Error        *RunOutcome        `json:"error,omitempty"`
}

func summaryOf(r *CheckResult, casePath string) jsonSummary {
	s := jsonSummary{Design: r.Design, Runs: r.Runs, Planned: r.Planned, BrokenRuns: r.BrokenRuns, Invariants: r.Counts,
		FailoverRuns: r.FailoverRuns, FirstFail: r.FirstFail, Minimal: []string{}, Error: r.FirstError,
		VacuousRuns: r.VacuousRuns, NoVerdict: r.NoVerdict(), Verdicts: r.Verdicts()}
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
	if len(r.Undecided) > 0 {
		s.Undecided = r.Undecided
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
