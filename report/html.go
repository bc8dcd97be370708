package report

import (
	"bytes"
	"embed"
	"html/template"
	"io"
	"os"
	"strconv"
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

// htmlViolation is one entry of the page's "what happened": a violation,
// or a group of violations that share a cause (Members set; group.go).
// Its texts show times in milliseconds (msHTML).
type htmlViolation struct {
	// Index is the (first) violation's number, from 1; Label the entry's
	// ("2", or "1-3" for a group); Numbers a group's members' numbers,
	// space-separated; Count how many.
	Index                    int
	Label, Numbers           string
	Count                    string
	Invariant                string
	NotCounted               bool
	Head, Explanation, Story template.HTML
	Cause, Shared            template.HTML
	Members                  []htmlMember
}

// htmlMember is one violation of a group: its number and what is its own.
type htmlMember struct {
	Index int
	Text  template.HTML
}

// htmlViolations lays out the page's violations, groups as one entry.
func htmlViolations(t *timeline, r *model.Result, rep jsonReport) []htmlViolation {
	var out []htmlViolation
	for _, g := range t.groups(r.Violations) {
		first := g.Members[0]
		v := rep.Violations[first]
		e := htmlViolation{Index: first + 1, Label: numbers(g.Members), Invariant: string(v.Invariant), NotCounted: !r.IsCounted(v.Invariant)}
		if len(g.Members) == 1 {
			e.Head, e.Explanation, e.Story = msHTML(violationHead(v.Violation)), msHTML(v.Explanation), msHTML(v.Story)
			out = append(out, e)
			continue
		}
		var ms []invariant.Violation
		var nums []string
		for _, i := range g.Members {
			ms = append(ms, r.Violations[i])
		}
		e.Invariant, e.NotCounted = groupLabel(ms), !groupCounted(r, ms)
		for k, i := range g.Members {
			nums = append(nums, strconv.Itoa(i+1))
			own := g.Each[k]
			if !e.NotCounted && !r.IsCounted(r.Violations[i].Invariant) {
				own += " (not counted)"
			}
			e.Members = append(e.Members, htmlMember{Index: i + 1, Text: msHTML(own)})
		}
		e.Numbers, e.Count = strings.Join(nums, " "), count(len(ms))
		e.Cause, e.Shared, e.Story = msHTML(g.Cause), msHTML(g.Shared), msHTML(t.groupStory(ms))
		out = append(out, e)
	}
	return out
}

// htmlTerm is one glossary entry at the foot of a page.
type htmlTerm struct{ Anchor, Name, Def string }

// linkGlossary links the glossary terms in the page's prose (the
// teaching text, the explanations, the saving events, the key events) to
// entries at the page's foot, which lists those it linked.
func (page *htmlPage) linkGlossary() {
	used := map[int]bool{}
	if page.Meta.Teaching != "" {
		page.TeachingHTML = linkTerms(prose(page.Meta.Teaching), used)
	}
	for i := range page.Violations {
		v := &page.Violations[i]
		v.Head, v.Explanation, v.Story = linkTerms(v.Head, used), linkTerms(v.Explanation, used), linkTerms(v.Story, used)
		v.Cause, v.Shared = linkTerms(v.Cause, used), linkTerms(v.Shared, used)
		for j := range v.Members {
			v.Members[j].Text = linkTerms(v.Members[j].Text, used)
		}
	}
	for i := range page.Held {
		for j := range page.Held[i].Items {
			page.Held[i].Items[j].Text = linkTerms(page.Held[i].Items[j].Text, used)
		}
	}
	for i := range page.KeyEvents {
		page.KeyEvents[i].HTML = linkTerms(page.KeyEvents[i].HTML, used)
	}
	for i, t := range glossary {
		if used[i] {
			page.Glossary = append(page.Glossary, htmlTerm{Anchor: termAnchor(i), Name: t.Name, Def: t.Def})
		}
	}
}

// htmlHeld is a section of saving events on the page.
type htmlHeld struct {
	Title string
	Items []htmlHeldItem
}

// htmlHeldItem is one saving event: its text, the events it names
// (space-separated seqs, for the script to mark), and whether it is a cost.
type htmlHeldItem struct {
	Text template.HTML
	Seqs string
	Cost bool
}

// seqList renders seqs space-separated.
func seqList(seqs []int) string {
	ss := make([]string, len(seqs))
	for i, s := range seqs {
		ss[i] = strconv.Itoa(s)
	}
	return strings.Join(ss, " ")
}

// htmlKeyEvent is one row of the key events: Time in milliseconds, Exact
// as the text report prints it.
type htmlKeyEvent struct {
	keyEvent
	AtNS        int64
	Time, Exact string
	HTML        template.HTML
}

type htmlPage struct {
	Title      string
	Meta       Meta
	Spec       specSummary
	Design     string
	Error      string
	Vacuous    string
	Unfired    string // NoFaultFiredWhy when no fault took effect
	Verdicts   []verdict
	Violations []htmlViolation
	// Held are the saving events (held.go), their texts in milliseconds.
	Held []htmlHeld
	// TeachingHTML is Meta.Teaching as prose, its glossary terms linked;
	// Glossary the entries the page links to.
	TeachingHTML template.HTML
	Glossary     []htmlTerm
	KeyEvents    []htmlKeyEvent
	// KeyEventsLeft counts the key events past the first MaxReportEvents/4,
	// which the page does not list.
	KeyEventsLeft int
	Events        int
	// HistoryShown is how many events the page's history lists when it
	// lists only the first MaxReportEvents (0: all of them).
	HistoryShown int
	// Danger, for a danger map, replaces the run's verdicts; DangerGroups
	// are its ways by mechanism.
	Danger       *Danger
	DangerGroups []dangerGroup
	// Check, for a check's page, adds its verdicts, tables and notes.
	Check  *checkHTML
	CSS    template.CSS
	Script template.JS
	Data   template.JS
}

// HTML writes the report of one run as one self-contained HTML page: the
// verdicts as badges on top, then the lanes as an SVG timeline (zoom with
// the buttons or the mouse wheel, drag to pan, hover for details) with
// each violation's window shaded and banded, then the teaching text, the
// explanations (violations that share a cause as one entry: li.group with
// its li[data-violation] members and one folded story), the key events
// and the whole history. CSS, script and data are inline; the page loads
// nothing. Elements a test can find: #lanes (the SVG), one
// g.lane[data-lane=ID] per lane (drawn by the script), g.win-band per
// violation, #explanation, #verdicts, and the JSON in script#report-data.
// The script sets body[data-ready="1"] when done and records errors in
// body[data-errors]. The page opens on the whole run and says what it
// shows in body[data-zoom] ("all", "v1", "v1,2,3" for a group, "custom")
// and the view in #lanes[data-view-from-ns, data-view-to-ns]; a click on a
// violation's band or entry zooms on it; the URL fragment #v2 opens it on
// violation 2; #selftest drives every interaction once (for headless
// tests).
func HTML(w io.Writer, r *model.Result, meta Meta) error { return writeHTML(w, r, meta, nil) }

// writeHTML is HTML with extend, if set, adding to the timeline before it
// is drawn and to the page (a danger map's rows and verdicts).
func writeHTML(w io.Writer, r *model.Result, meta Meta, extend func(*timeline, *htmlPage)) error {
	if r == nil {
		return errors.New("nil result")
	}
	t := build(r)
	rep := newJSONReport(r, meta, t)
	m := rep.Meta
	page := htmlPage{
		Title:    pageTitle(m),
		Meta:     m,
		Spec:     rep.Spec,
		Design:   designLine(m.Design, rep.Spec),
		Error:    rep.Error,
		Vacuous:  rep.Vacuous,
		Unfired:  rep.NoFaultFired,
		Verdicts: rep.Verdicts,
		Events:   len(r.History),
		CSS:      template.CSS(asset("report.css")),
		Script:   template.JS(asset("report.js")),
	}
	if extend != nil {
		extend(t, &page)
	}
	page.Violations = htmlViolations(t, r, rep)
	for _, sec := range rep.Held {
		h := htmlHeld{Title: sec.Title}
		for _, it := range sec.Items {
			h.Items = append(h.Items, htmlHeldItem{Text: msHTML(it.Text), Seqs: seqList(it.Seqs), Cost: it.Cost})
		}
		page.Held = append(page.Held, h)
	}
	for i, k := range t.Key {
		if i == MaxReportEvents/4 {
			page.KeyEventsLeft = len(t.Key) - i
			break
		}
		page.KeyEvents = append(page.KeyEvents, htmlKeyEvent{keyEvent: k, AtNS: int64(k.At), Time: msText(k.At), Exact: fmtT(k.At), HTML: msHTML(k.Text)})
	}
	if rep.HistoryTotal > 0 {
		page.HistoryShown = len(rep.History)
	}
	page.linkGlossary()
	t.humanize() // after the stories and key events above read the exact texts
	data, err := marshalIndent(htmlData{jsonReport: rep, Timeline: t}, true)
	if err != nil {
		return err
	}
	page.Data = template.JS(bytes.TrimSpace(data))
	var b bytes.Buffer
	if err := reportTmpl.Execute(&b, page); err != nil {
		return errors.Wrap(err, "rendering html")
	}
	_, err = w.Write(b.Bytes())
	return errors.Wrap(err, "writing html")
}

// humanize rewrites the times in the timeline's texts (hover details, key
// events) by the page's rule (msPlain). Only HTML calls it, on its own
// timeline, after the stories were told.
func (t *timeline) humanize() {
	for li := range t.Lanes {
		for ri := range t.Lanes[li].Rows {
			rw := &t.Lanes[li].Rows[ri]
			for i := range rw.Spans {
				rw.Spans[i].Detail = msPlain(rw.Spans[i].Detail)
			}
			for i := range rw.Marks {
				rw.Marks[i].Detail = msPlain(rw.Marks[i].Detail)
			}
		}
	}
	for i := range t.Links {
		t.Links[i].Detail = msPlain(t.Links[i].Detail)
	}
	for i := range t.Key {
		t.Key[i].Text = msPlain(t.Key[i].Text)
	}
}

// HTMLPath writes the HTML report to a file, replacing it.
func HTMLPath(path string, r *model.Result, meta Meta) error {
	return writeFile(path, func(w io.Writer) error { return HTML(w, r, meta) })
}

// writeFile creates path and writes it with fn.
func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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

// designLine renders "fenced (fencing strict, ttl 1s)", then the options
// that differ from the design's defaults and the clients that only read.
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
	if s.Server != "" {
		opts = append(opts, "server "+s.Server)
	}
	if s.MinReplicasToWrite > 0 {
		opts = append(opts, "min-replicas-to-write "+strconv.Itoa(s.MinReplicasToWrite), "min-replicas-max-lag "+short(s.MinReplicasMaxLag))
	}
	opts = append(opts, s.Settings...)
	if len(s.Readers) > 0 {
		opts = append(opts, "readers "+strings.Join(s.Readers, ", "))
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
