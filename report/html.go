package report

import (
	"bytes"
	"embed"
	"html/template"
	"io"
	"os"
	"strings"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/model/invariant"
)

//go:embed templates
var templates embed.FS

// parse loads an embedded HTML template.
func parse(name string, funcs template.FuncMap) *template.Template {
	return template.Must(template.New(name).Funcs(funcs).ParseFS(templates, "templates/"+name))
}

// asset returns an embedded file's text.
func asset(name string) string {
	b, err := templates.ReadFile("templates/" + name)
	if err != nil {
		panic("report: missing embedded asset " + name) // a build error, not user input
	}
	return string(b)
}

var reportTmpl = parse("report.html", template.FuncMap{"prose": prose})

// prose renders plain text for HTML, escaped, with `quoted` words (design
// and scenario IDs in the teaching texts) as <code>. An unpaired backtick
// stays as it is.
func prose(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 0:
			b.WriteString(template.HTMLEscapeString(p))
		case i == len(parts)-1: // opened, never closed
			b.WriteString("`" + template.HTMLEscapeString(p))
		default:
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
		}
	}
	return template.HTML(b.String())
}

// htmlData is the JSON embedded in the page: the JSON report plus the
// timeline the script draws.
type htmlData struct {
	jsonReport
	Timeline *timeline `json:"timeline"`
}

type htmlViolation struct {
	Index                        int
	Invariant, Head, Explanation string
	Story                        string
}

type htmlKeyEvent struct {
	keyEvent
	AtNS int64
	Time string
}

type htmlPage struct {
	Title      string
	Meta       Meta
	Spec       specSummary
	Design     string
	Error      string
	Verdicts   []verdict
	Violations []htmlViolation
	KeyEvents  []htmlKeyEvent
	Events     int
	CSS        template.CSS
	Script     template.JS
	Data       template.JS
}

// HTML writes the report of one run as one self-contained HTML page: the
// verdicts, the explanations and the teaching text on top, then the lanes
// as an SVG timeline (zoom with the buttons or the mouse wheel, drag to
// pan, hover for details) with each violation's window shaded, then the
// key events and the whole history. CSS, script and data are inline; the
// page loads nothing. Elements a test can find: #lanes (the SVG), one
// g.lane[data-lane=ID] per lane (drawn by the script), #explanation,
// #verdicts, and the JSON in script#report-data. The script sets
// body[data-ready="1"] when done and records errors in body[data-errors].
// The URL fragment #v2 opens the page zoomed on violation 2; #selftest
// drives every interaction once (for headless tests).
func HTML(w io.Writer, r *model.Result, meta Meta) error {
	if r == nil {
		return errors.New("report: nil result")
	}
	t := build(r)
	rep := newJSONReport(r, meta, t)
	data, err := marshalIndent(htmlData{jsonReport: rep, Timeline: t}, true)
	if err != nil {
		return err
	}
	m := rep.Meta
	page := htmlPage{
		Title:    pageTitle(m),
		Meta:     m,
		Spec:     rep.Spec,
		Design:   designLine(m.Design, rep.Spec),
		Error:    rep.Error,
		Verdicts: rep.Verdicts,
		Events:   len(r.History),
		CSS:      template.CSS(asset("report.css")),
		Script:   template.JS(asset("report.js")),
		Data:     template.JS(bytes.TrimSpace(data)),
	}
	for i, v := range rep.Violations {
		page.Violations = append(page.Violations, htmlViolation{Index: i + 1, Invariant: string(v.Invariant),
			Head: violationHead(v.Violation), Explanation: v.Explanation, Story: v.Story})
	}
	for _, k := range t.Key {
		page.KeyEvents = append(page.KeyEvents, htmlKeyEvent{keyEvent: k, AtNS: int64(k.At), Time: fmtT(k.At)})
	}
	var b bytes.Buffer
	if err := reportTmpl.Execute(&b, page); err != nil {
		return errors.Wrap(err, "report: rendering html")
	}
	_, err = w.Write(b.Bytes())
	return errors.Wrap(err, "report: writing html")
}

// HTMLPath writes the HTML report to a file, replacing it.
func HTMLPath(path string, r *model.Result, meta Meta) error {
	return writeFile(path, func(w io.Writer) error { return HTML(w, r, meta) })
}

// writeFile creates path and writes it with fn.
func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return errors.Wrap(err, "report")
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return errors.Wrap(f.Close(), "report")
}

func pageTitle(m Meta) string {
	parts := []string{"locksim"}
	if m.Scenario != "" {
		parts = append(parts, m.Scenario)
	}
	if m.Design != "" {
		parts = append(parts, m.Design)
	}
	s := strings.Join(parts, " / ")
	if m.Title != "" {
		s += ": " + m.Title
	}
	return s
}

// designLine renders "fenced (fencing strict, ttl 1s)".
func designLine(design string, s specSummary) string {
	var opts []string
	if s.Fencing != "" {
		opts = append(opts, "fencing "+s.Fencing)
	}
	if s.TTL > 0 {
		opts = append(opts, "ttl "+short(s.TTL))
	}
	if s.Deadline {
		opts = append(opts, "client deadline")
	}
	if len(opts) == 0 {
		return design
	}
	return design + " (" + strings.Join(opts, ", ") + ")"
}

// violationHead says who and when: "A and B, 1.049101s to 1.558910s".
func violationHead(v invariant.Violation) string {
	from, to := v.From, v.To
	if to < from {
		from, to = to, from
	}
	s := joinAnd(v.Clients)
	if s != "" {
		s += ", "
	}
	if from == to {
		s += "at " + fmtT(from)
	} else {
		s += fmtT(from) + " to " + fmtT(to) + " (" + fmtT(to-from) + ")"
	}
	if len(v.Tokens) > 0 {
		var ts []string
		for _, tk := range v.Tokens {
			ts = append(ts, itoa(tk))
		}
		s += ", tokens " + strings.Join(ts, ", ")
	}
	return s
}
