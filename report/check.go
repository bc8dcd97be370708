package report

import (
	"bytes"
	"encoding/json"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/model"
)

// CheckPage is what `locksim check --format html` shows on one page: the
// check's verdicts, what ran, its summary, and the minimal failing case's
// run report (its timeline, explanations and key events, as HTML draws
// them for one run).
type CheckPage struct {
	// Title names the check ("locksim check: design fenced"); Headline
	// says what the runs showed in one sentence.
	Title, Headline string
	// Tallies are each invariant's verdict over the runs.
	Tallies []CheckTally
	// Sections are shown as tables, generically: each is a JSON object
	// (what ran, the summary) whose every field that is not zero, false,
	// empty or null becomes a row, objects nested as tables. A field
	// added to the JSON shows up here with no change to the page.
	Sections []CheckSection
	// Minimal is the minimal failing case's run, nil when no run failed;
	// Meta its header; Notes lines under it (where it was saved, how to
	// replay it).
	Minimal *model.Result
	Meta    Meta
	Notes   []string
}

// CheckTally is one invariant's verdict over a check's runs. Verdict is
// the badge's class: held, broken, not-checked or unchecked.
type CheckTally struct {
	Invariant, Verdict, Text string
}

// CheckSection is one table of the check page: a title and a JSON object.
type CheckSection struct {
	Title string
	JSON  json.RawMessage
}

// checkHTML is the page's part about the check (htmlPage.Check).
type checkHTML struct {
	Headline string
	Tallies  []CheckTally
	Sections []checkTable
	Notes    []string
	// NoRun: nothing failed, so there is no run to draw.
	NoRun bool
}

type checkTable struct {
	Title string
	Body  template.HTML
}

// CheckHTML writes a check as one self-contained HTML page: the title and
// headline, the verdict of each invariant over the runs as badges, the
// minimal failing case's timeline, explanations and key events (the page
// HTML writes for one run), then what ran and the summary as tables.
func CheckHTML(w io.Writer, p CheckPage) error {
	c := &checkHTML{Headline: p.Headline, Tallies: p.Tallies, Notes: p.Notes}
	for _, s := range p.Sections {
		body, err := jsonTable(s.JSON)
		if err != nil {
			return errors.Wrapf(err, "check section %q", s.Title)
		}
		c.Sections = append(c.Sections, checkTable{Title: s.Title, Body: body})
	}
	r, meta := p.Minimal, p.Meta
	if r == nil {
		r, c.NoRun = &model.Result{}, true
	}
	meta.Title = p.Title
	return writeHTML(w, r, meta, func(_ *timeline, page *htmlPage) {
		page.Title = p.Title
		page.Check = c
	})
}

// CheckHTMLPath writes the check page to a file, replacing it.
func CheckHTMLPath(path string, p CheckPage) error {
	return writeFile(path, func(w io.Writer) error { return CheckHTML(w, p) })
}

// jsonTable renders a JSON object as an HTML table, keeping the fields'
// order and leaving out zero, false, empty and null values.
func jsonTable(raw json.RawMessage) (template.HTML, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := orderedValue(dec)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	renderValue(&b, v)
	return template.HTML(b.String()), nil
}

// kv is one field of a JSON object, in order.
type kv struct {
	Key   string
	Value any
}

// orderedValue decodes one JSON value: objects as []kv (in order), arrays
// as []any, the rest as json.Number, string, bool or nil.
func orderedValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := tok.(type) {
	case json.Delim:
		switch d {
		case '{':
			var out []kv
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := orderedValue(dec)
				if err != nil {
					return nil, err
				}
				out = append(out, kv{kt.(string), v})
			}
			_, err := dec.Token()
			return out, err
		case '[':
			out := []any{}
			for dec.More() {
				v, err := orderedValue(dec)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := dec.Token()
			return out, err
		}
	}
	return tok, nil
}

// blank reports whether a value says nothing: zero, false, "", null, or
// an empty (or all-empty) object or array.
func blank(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	case []kv:
		for _, f := range x {
			if !blank(f.Value) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !blank(e) {
				return false
			}
		}
		return true
	}
	return false
}

// renderValue writes a value: an object as a table of its non-empty
// fields, an array of plain values as a list, of objects as one table
// each, plain values as text.
func renderValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case []kv:
		b.WriteString(`<table class="kv">`)
		for _, f := range x {
			if blank(f.Value) {
				continue
			}
			b.WriteString(`<tr data-field="` + template.HTMLEscapeString(f.Key) + `"><th>` + template.HTMLEscapeString(fieldName(f.Key)) + `</th><td>`)
			renderValue(b, f.Value)
			b.WriteString("</td></tr>")
		}
		b.WriteString("</table>")
	case []any:
		plain := true
		for _, e := range x {
			switch e.(type) {
			case []kv, []any:
				plain = false
			}
		}
		if plain {
			var ss []string
			for _, e := range x {
				ss = append(ss, template.HTMLEscapeString(plainText(e)))
			}
			b.WriteString(strings.Join(ss, ", "))
			return
		}
		for _, e := range x {
			renderValue(b, e)
		}
	default:
		b.WriteString(template.HTMLEscapeString(plainText(v)))
	}
}

func plainText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// fieldName turns a JSON key into words: "broken_runs" -> "broken runs",
// "MaxFaults" -> "max faults".
func fieldName(k string) string {
	k = strings.ReplaceAll(k, "_", " ")
	var b strings.Builder
	for i, r := range k {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && k[i-1] != ' ' && !(k[i-1] >= 'A' && k[i-1] <= 'Z') {
				b.WriteByte(' ')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
