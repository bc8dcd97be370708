package report

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// Schema identifies the JSON report format; see the package doc. A change
// that is not backward compatible gets a new version.
const Schema = "locksim.report/v2"

// MaxReportEvents bounds the events a JSON or HTML report lists whole:
// a longer run lists its first MaxReportEvents (history_total says how
// many there were; the timeline, the verdicts and the key events still
// cover the whole run, and its case file replays all of it), so that a
// report of a long run stays a few hundred MB at most.
const MaxReportEvents = 20_000

// jsonReport is the JSON report, schema locksim.report/v2.
type jsonReport struct {
	Schema string `json:"schema"`
	// Locksim is the simulator that made the run: its version and
	// fingerprint (engine.ThisBuild).
	Locksim engine.Build `json:"locksim"`
	Meta    Meta         `json:"meta"`
	Spec    specSummary  `json:"spec"`
	Error   string       `json:"error,omitempty"`
	// Vacuous is set (VacuousWhy) when no client acquired: the run judged
	// nothing.
	Vacuous string `json:"vacuous,omitempty"`
	// NoFaultFired is set (NoFaultFiredWhy) when the run was given faults
	// and none took effect: its verdicts judged the design without them.
	NoFaultFired string      `json:"no_fault_fired,omitempty"`
	History      sim.History `json:"history"`
	// HistoryTotal is set when History holds only the first
	// MaxReportEvents of the run's events: how many there were.
	HistoryTotal int             `json:"history_total,omitempty"`
	Violations   []jsonViolation `json:"violations"`
	// Groups are the violations that share a cause (two or more), as the
	// text and the page show them; every violation stays in Violations.
	Groups []Group `json:"groups,omitempty"`
	// Held names the events that kept the run (or part of it) safe and
	// why, and its costs: "Why it held", "What still held", "Why fencing
	// did not stop it" (held.go).
	Held     []heldSection `json:"held,omitempty"`
	Verdicts []verdict     `json:"verdicts"`
}

// jsonViolation is a checker's violation plus the report's retelling of
// it from the history.
type jsonViolation struct {
	invariant.Violation
	Story string `json:"story,omitempty"`
}

// newJSONReport assembles the report of one run.
func newJSONReport(r *model.Result, meta Meta, t *timeline) jsonReport {
	out := jsonReport{
		Schema:     Schema,
		Locksim:    engine.ThisBuild(),
		Meta:       meta.withResult(r),
		Spec:       summarize(r, t),
		History:    r.History,
		Violations: []jsonViolation{},
		Verdicts:   verdicts(r, t.ix),
	}
	if out.History == nil {
		out.History = sim.History{}
	}
	if len(out.History) > MaxReportEvents {
		out.History, out.HistoryTotal = out.History[:MaxReportEvents], len(out.History)
	}
	if r.Err != nil {
		out.Error = r.Err.Error()
	}
	if r.Vacuous() {
		out.Vacuous = VacuousWhy
	}
	if r.NoFaultFired() {
		out.NoFaultFired = NoFaultFiredWhy
	}
	for _, v := range r.Violations {
		out.Violations = append(out.Violations, jsonViolation{Violation: v, Story: t.story(v)})
	}
	out.Groups = t.jsonGroups(r.Violations)
	out.Held = t.heldSections(r)
	return out
}

// JSON writes the report of one run as JSON (schema locksim.report/v2,
// indented by two spaces, one trailing newline). The same result always
// gives the same bytes.
func JSON(w io.Writer, r *model.Result, meta Meta) error {
	if r == nil {
		return errors.New("nil result")
	}
	b, err := marshalIndent(newJSONReport(r, meta, build(r)), false)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return errors.Wrap(err, "writing json")
}

// marshalIndent encodes v with two-space indentation; escapeHTML escapes
// <, > and & so the text can sit inside a <script> element.
func marshalIndent(v any, escapeHTML bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, errors.Wrap(err, "encoding json")
	}
	return b.Bytes(), nil
}
